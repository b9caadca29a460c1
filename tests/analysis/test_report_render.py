"""`reviewer report` as Markdown, HTML (with PNG plots) and JSON on a small reviewed project."""

from __future__ import annotations

import json

import pytest
from project_data import new_project
from review_data import add_images, add_run, decide

from reviewer.analysis.render import write_report
from reviewer.app.report import build_report
from reviewer.cli import main
from reviewer.evaluation.slices import save_slice

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def project(templates, tmp_path):
    """Six fish images (classes 1-6); a run gets 4, 5 and 6 wrong; the panel decides
    (4, 40) correct, (5, 50) wrong/minor/fine-grained, (6, 60) wrong/major/spurious."""
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        ids = add_images(project, [1, 2, 3, 4, 5, 6])
        add_run(project, "model-A", dict(zip(ids, [1, 2, 3, 40, 50, 60])), probs=dict.fromkeys(ids, 0.8))
        decide(project, ids[3], 40, "correct")
        decide(project, ids[4], 50, "wrong", severity="minor", category="fine_grained")
        decide(project, ids[5], 60, "wrong", severity="major", category="spurious_correlation")
        project.write(lambda session: save_slice(session=session, name="imagenet_m", image_ids=ids[2:]))
        return project

    return templates.copy(build, tmp_path)  # made once, copied per test


def test_markdown_and_html_with_plots(project, tmp_path):
    report = build_report(project)
    path = write_report(report, tmp_path / "md", fmt="markdown")
    text = path.read_text()
    assert "| 1 | model-A | all | 50.0% → 66.7% | 50.0% → 66.7% | – → – |" in text  # Table 1: all fish, no objects
    assert oct(path.stat().st_mode & 0o777) == "0o644"  # readable by the panel, like the plots beside it
    # Table 2: every share with its count and denominator.
    assert "| model-A | 50.0% (1/2) | 0.0% (0/2) | 50.0% (1/2) | 0.0% (0/2) | 2 |" in text  # categories
    assert "| model-A | 50.0% (1/2) | 50.0% (1/2) | 2 |" in text  # severities
    assert "| 1 | model-A | all | 50.0% (3/6) | 6 images | 66.7% | 50.0% (2/4), CI 6.8%–93.2% |" in text  # leaderboard
    assert "| model-A | 3 | 3 | 33.3% (1/3) | 0.0% (0/3) | 0 | 33.3% (1/3) |" in text  # novel predictions
    assert "Warning" not in text  # every item decided, no chi-square test on small counts
    pngs = sorted(p.name for p in (tmp_path / "md").glob("*.png"))
    assert pngs == ["confusions_model-A.png", "distance_model-A.png", "error_types.png", "reliability_run1.png",
                    "shares.png", "topk.png", "trend.png"]
    for name in pngs:
        assert f"![{name}]({name})" in text
        assert (tmp_path / "md" / name).read_bytes()[:8] == PNG
    pairs = (tmp_path / "md" / "confused_pairs.csv").read_text().splitlines()
    assert pairs[0] == "model,class_a,class_b,wnid_a,wnid_b,name_a,name_b,frequency" and len(pairs) == 1 + 2
    html = write_report(report, tmp_path / "html", fmt="html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "<img src='shares.png'" in html and "<table" in html
    assert "Chi-square tests of independence" in html


def test_a_reused_folder_loses_the_plots_of_runs_no_longer_in_the_report(project, tmp_path):
    out = tmp_path / "md"
    out.mkdir()
    for stale in ("reliability_run9.png", "confusions_deleted-model.png", "distance.png"):
        (out / stale).write_bytes(PNG)
    (out / "my_figure.png").write_bytes(PNG)  # not a name the report writes: kept
    write_report(build_report(project), out)
    assert sorted(p.name for p in out.glob("*.png")) == [
        "confusions_model-A.png", "distance_model-A.png", "error_types.png", "my_figure.png", "reliability_run1.png",
        "shares.png", "topk.png", "trend.png"]


def test_report_command_formats_and_json(project, tmp_path, capsys):
    assert main(["report", str(project.root), "--format", "html", "--out", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "report.html").exists() and "report.html" in capsys.readouterr().out
    assert main(["report", str(project.root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"app_version", "project", "runs", "imported_reviews"} <= set(data)  # the stable keys stay
    assert data["runs"][0]["metrics"]["mla_after_review"]["all"]["value"] == pytest.approx(4 / 6)
    analysis = data["analysis"]
    assert analysis["severities"]["model-A"]["major"] == {"count": 1, "share": 0.5}
    assert analysis["reviewed_mistakes"]["model-A"] == {"total": 2, "imported": 0, "panel": 2}
    assert analysis["calibration"]["1"]["ece"] == pytest.approx(0.8 - 3 / 6, abs=1e-6)  # QUBA: 3 of 6 original labels
    assert analysis["calibration"]["1"]["ace"] is None  # these test runs have no probability file
    assert analysis["calibration_multilabel"]["1"]["ece"] == pytest.approx(0.8 - 4 / 6, abs=1e-6)  # 4 right after review
    assert analysis["options"]["collapsed_mappings"] is False
    assert analysis["leaderboard"][0]["slice_correct"] == 2
    assert main(["report", str(project.root)]) == 0
    assert "model-A: major 50.0% (1/2), minor 50.0% (1/2)" in capsys.readouterr().out


def test_a_report_folder_that_cannot_be_written(project, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["report", str(project.root), "--format", "markdown", "--out", str(blocker / "r")]) == 2
    assert f"could not write the report into {blocker / 'r'}" in capsys.readouterr().err


def test_a_slice_run_is_marked_in_table_1_and_an_unknown_slice_is_named(project, tmp_path):
    from reviewer.analysis.report import ReportOptions

    ids = add_images(project, [7, 8], start=50001)
    add_run(project, "model-B", dict(zip(ids, [7, 80])), probs=dict.fromkeys(ids, 0.9), image_slice="imagenet_m")
    text = write_report(build_report(project, ReportOptions(slice_name="nope")), tmp_path / "md").read_text()
    assert "| 2 | model-B | slice imagenet_m |" in text
    assert "No run has a score on 'nope'" in text


def test_the_share_plot_leaves_out_models_with_nothing_rated(tmp_path):
    """n=0 rows drew empty bars (and two empty panels before anything was rated)."""
    import pandas as pd
    from PIL import Image

    from reviewer.analysis.plots import plot_shares

    categories = pd.DataFrame({"fine_grained": [0, 3], "fine_grained_oov": [0, 1], "spurious_correlation": [0, 0],
                               "non_prototypical": [0, 0]}, index=["model-A", "model-B"])
    severities = pd.DataFrame({"major": [0, 0], "minor": [0, 0]}, index=["model-A", "model-B"])
    assert plot_shares(categories * 0, severities, tmp_path / "none.png") is None
    path = plot_shares(categories, severities, tmp_path / "some.png")
    assert path is not None and Image.open(path).size[0] > 100
    # One panel (categories), one row (model-B): drawn shorter than two panels of two rows.
    both = plot_shares(categories.assign(fine_grained=[2, 3]), severities.assign(major=[1, 2]), tmp_path / "both.png")
    assert Image.open(path).size[1] < Image.open(both).size[1]
