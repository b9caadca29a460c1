"""The variable top-k result as the report renders it: both ASMA readings and the ReaL
accuracy of the 1-5-label images, named unambiguously in the analysis table (the
analysis window's Top-k tab and the Markdown/HTML report), its JSON records and the
`reviewer report` text. The run's metrics are written here by hand, as the typed
results `reviewer.evaluation.summary.project_summary` gives."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from dataclasses import replace
from types import SimpleNamespace

import pandas as pd
import pytest

from reviewer.analysis.plots import LIGHT
from reviewer.analysis.report_json import json_records
from reviewer.analysis.run_tables import topk_table
from reviewer.analysis.sections.topk import topk_section
from reviewer.cli.cmd_report import _print_quality
from reviewer.evaluation.metrics import GroupScores, Score
from reviewer.evaluation.summary import MistakeCounts, ProjectCounts, ProjectSummary, RunMetrics, RunSummary
from reviewer.evaluation.topk import VariableTopK

NAN = float("nan")
NO_SCORE = Score(value=NAN, correct=0, total=0)


def variable_topk(label_set: str, asma: float, share_found: float, real_1_to_5: float) -> VariableTopK:
    return VariableTopK(
        label_set=label_set, max_labels=5, asma=asma, asma_share_found=share_found, mean_jaccard=0.55,
        mean_hit_rate=0.6, all_in_topk=0.5, real_accuracy_1_to_5=real_1_to_5, images=5,
        by_label_count={1: {"images": 3, "mean_jaccard": 2 / 3, "mean_hit_rate": 2 / 3, "all_in_topk": 2 / 3},
                        2: {"images": 2, "mean_jaccard": 1 / 3, "mean_hit_rate": 1 / 2, "all_in_topk": 0.0}},
        over_max={"images": 0, "mean_jaccard": NAN, "mean_hit_rate": NAN, "all_in_topk": NAN})


NO_GROUPS = GroupScores(all=NO_SCORE, organisms=NO_SCORE, objects=NO_SCORE)
METRICS = RunMetrics(predictions=5, top1=NO_SCORE, mla=NO_GROUPS, mla_after_review=NO_GROUPS, real=NO_SCORE,
                     variable_topk=variable_topk("real", 0.5, 0.5833, 0.8125),
                     variable_topk_multilabel=variable_topk("multilabel", 0.25, 0.375, 0.9))
SUMMARY = ProjectSummary(
    app_version="test",
    project=ProjectCounts(name="p", root="p", images=5, images_with_files=0, problematic=0, multilabel_set=5,
                          evaluable=5),
    runs=(RunSummary(id=7, model="net", source="hub", status="complete", image_slice=None, limit=None,
                     images_covered="all", device="cpu", fast_decode=False, precision="fp32", created_at=None,
                     mistakes=MistakeCounts(total=0, novel=0), metrics=METRICS),),
    imported_reviews=())


def test_the_table_carries_both_readings_per_subgroup_and_run():
    table = topk_table(SUMMARY)
    real = table[table["label_set"] == "real"].set_index("labels")
    assert real.loc[2, "mean_jaccard"] == pytest.approx(1 / 3) and real.loc[2, "mean_hit_rate"] == pytest.approx(0.5)
    assert (real["asma"] == 0.5).all() and (real["asma_share_found"] == 0.5833).all()
    assert (real["real_accuracy_1_to_5"] == 0.8125).all()
    (record,) = [r for r in json_records(table) if r["label_set"] == "multilabel" and r["labels"] == 1]
    assert record["asma"] == 0.25 and record["asma_share_found"] == 0.375 and record["mean_jaccard"] == 2 / 3


def test_the_section_names_each_asma_by_its_definition(tmp_path):
    section = topk_section(SimpleNamespace(topk=topk_table(SUMMARY)), tmp_path, style=LIGHT)
    ((_, table),) = section.tables
    cited = "ASMA (example-based accuracy |Y∩Ŷ|/|Y∪Ŷ|, as the papers cite)"
    other = "ASMA (share of labels found, m/k)"
    assert cited in table.columns and other in table.columns and "ASMA" not in table.columns
    real = table[table["valid labels"] == "ReaL (Anzaku et al.)"]
    assert set(real[cited]) == {"50.0%"} and set(real[other]) == {"58.3%"}
    assert set(real["top-1 in valid labels, 1-5 labels"]) == {"81.25%"}
    assert list(real["|Y∩Ŷ|/|Y∪Ŷ| (mean)"]) == ["66.7%", "33.3%"]
    assert list(real["labels found, m/k (mean)"]) == ["66.7%", "50.0%"]
    assert "Zhang & Zhou" in section.text and "one to five labels" in section.text
    assert (tmp_path / "topk.png").is_file()


def test_the_text_report_gives_both_asmas_and_the_real_accuracy_of_the_same_images():
    report = SimpleNamespace(summary=SUMMARY, calibration={}, class_balance={})
    out = io.StringIO()
    with redirect_stdout(out):
        _print_quality(report)
    text = out.getvalue()
    assert "ASMA 50.0% (example-based accuracy, intersection over union of the valid labels and the top-k, " \
           "as the papers cite)" in text
    assert "ASMA 58.3% (share of labels found, m/k)" in text
    assert "ReaL accuracy 81.25% (same images)" in text and "5 images with 1-5 labels" in text


def test_an_empty_table_keeps_its_columns():
    table = topk_table(replace(SUMMARY, runs=()))
    assert isinstance(table, pd.DataFrame) and table.empty
    assert {"mean_jaccard", "asma_share_found", "real_accuracy_1_to_5"} <= set(table.columns)
