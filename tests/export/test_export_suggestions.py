"""The categoriser's suggestions in the export (reviewer.export.suggestions, issue 37), on the real
files of tests/data (error_types_data): each complete run's mistakes without a final decision of
the panel are listed in suggestions/run-<id>.json, each with the suggested category and severity,
the rule and confidence of each, under "suggested" (never the panel's), and the published answer
beside it where ViT-3B's review judged the same prediction; a mistake the panel decided is not
listed; the manifest names each file; the files are the same bytes when exported again."""

from __future__ import annotations

import filecmp
import json

import numpy as np
import pytest
from error_types_data import build

from reviewer.app.export import export_project
from reviewer.evidence import evidence_for
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.project import Project
from reviewer.review.suggest import FITTED, SuggestionFacts, suggest
from reviewer.runs.mistakes import stored_mistakes
from reviewer.terms import Category

SPELLED = {"Fine-grained error": "fine_grained", "Fine-grained error with OOV": "fine_grained_oov",
           "Fine-grained with OOV": "fine_grained_oov", "Spurious Correlation": "spurious_correlation",
           "Non-prototypical": "non_prototypical", "Fine-grained with Multilabel Options": "fine_grained"}


@pytest.fixture(scope="module")
def made(tmp_path_factory, shared_data):
    return build(tmp_path_factory.mktemp("export_suggestions"), shared_data)


@pytest.fixture(scope="module")
def exported(made, tmp_path_factory):
    project = Project.open(made["root"])
    first = export_project(project, tmp_path_factory.mktemp("out")).value
    second = export_project(project, tmp_path_factory.mktemp("out")).value
    project.close()
    return first, second


def suggestions_one_at_a_time(made, run_id: int) -> dict:
    """{file name: (predicted, suggestion)} of the run's mistakes, each read on its own."""
    project = Project.open(made["root"])
    out = {}
    with project.read() as session:
        labels = reviewed_labelset(session=session, after_review=False)
        for m in stored_mistakes(session=session, run_id=run_id):
            position = int(labels.positions(np.array([m.image_id]))[0])
            known = labels.labels_of(position)
            targets = tuple(known["correct"]) or (m.original_label,)
            lines = tuple(evidence_for(session, m.file_name, m.predicted, m.original_label))
            out[m.file_name] = (m.image_id, m.predicted, suggest(SuggestionFacts(
                m.predicted, targets, lines, wrong=tuple(known["wrong"]) or None)))
    project.close()
    return out


def confidence(rule: str) -> float:
    agreed, decided = next(v for k, v in FITTED.items() if str(k) == rule)
    return round(agreed / decided, 2)


@pytest.mark.parametrize("run_id", [1, 2])
def test_every_undecided_mistake_is_listed_with_its_suggestion_marked_as_such(made, exported, run_id):
    path = exported[0].path / "suggestions" / f"run-{run_id}.json"
    data = json.loads(path.read_text())
    assert (data["run"], data["model"]) == (run_id, f"model_{run_id}")
    assert "never the panel's decisions" in data["note"]
    expected = {name: v for name, v in suggestions_one_at_a_time(made, run_id).items()
                if (v[0], v[1]) not in made["decided"]}
    assert set(data["mistakes"]) == set(expected) and len(expected) > 100
    for name, (_, predicted, s) in expected.items():
        record = data["mistakes"][name]
        assert record["top_prediction"] == predicted
        said = record["suggested"]
        assert said["failure category"] == s.category.published and said["failure severity"] == s.severity.caption
        assert (said["error_type"], said["category_rule"], said["severity_rule"]) == (
            str(s.error_type), str(s.category_rule), str(s.severity_rule))
        assert said["category_confidence"] == confidence(said["category_rule"])
        assert said["severity_confidence"] == confidence(said["severity_rule"])
        assert said["reasons"] == s.reasons and said["measured"] is True
        item = made["review"].get(name)
        if item is not None and item["top_prediction"] == predicted:
            assert record["published"] == {  # Borderline is the paper's minor
                "failure category": Category(SPELLED[item["failure category"]]).published,
                "failure severity": "Major" if item["failure severity"] == "Major" else "Minor"}
        else:
            assert "published" not in record  # nothing here is anyone's decision


def test_the_panels_decisions_are_not_listed_and_the_manifest_names_the_files(made, exported):
    manifest = exported[0].manifest
    listed = {s["run"]: s for s in manifest["suggestions"]}
    assert set(listed) == {1, 2}
    data = json.loads((exported[0].path / "suggestions" / "run-1.json").read_text())
    with Project.open(made["root"]).read() as session:
        names = {(m.image_id, m.predicted): m.file_name for m in stored_mistakes(session=session, run_id=1)}
    decided = {names[k] for k in made["decided"]}
    assert not decided & set(data["mistakes"])
    assert listed[1]["mistakes"] == len(names) and listed[1]["listed_without_panel_decision"] == len(names) - 5
    assert listed[1]["with_published_answer"] == sum("published" in r for r in data["mistakes"].values()) >= 5
    assert listed[1]["file"] == "suggestions/run-1.json"


def test_exported_again_the_suggestions_are_the_same_bytes(exported):
    first, second = exported
    for run_id in (1, 2):
        name = f"suggestions/run-{run_id}.json"
        assert filecmp.cmp(first.path / name, second.path / name, shallow=False)
