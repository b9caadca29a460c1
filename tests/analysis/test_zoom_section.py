"""The zoom-probe section of the report on a hand-built case: synthetic zoom results stored with
two runs (save_zoom), final decisions, and the counts worked out here by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest
from project_data import new_project
from review_data import decide
from sqlalchemy import select

from db.tables import Model, Run
from reviewer.analysis.render import to_markdown
from reviewer.analysis.report_json import report_json
from reviewer.analysis.sections import report_sections
from reviewer.analysis.zoom_probe import HOW_TO_PROBE
from reviewer.app.report import build_report
from reviewer.cli import main
from reviewer.runs.zoom import ZoomParams, ZoomResult, save_zoom

SCALES = (128, 224, 448)  # one scale per zoom group: zoom-out, zoom-224, zoom-in
SHA = "a" * 64


def probe(predicted: int, original: int, *, corrected_at: tuple[int, ...] = (), done: int = 27,
          model: str = "model-A", sha: str | None = SHA) -> ZoomResult:
    """A result over SCALES whose first `done` cells answer `predicted`, except the centre crop of each
    scale in `corrected_at`, which answers the original label (accepted)."""
    result = ZoomResult.empty(ZoomParams(scales=SCALES, top_k=2), model=model, weights_sha256=sha,
                              image_size=(500, 375))
    for i in range(done):
        scale, row, col = SCALES[i // 9], (i % 9) // 3, i % 3
        top1 = original if scale in corrected_at and (row, col) == (1, 1) else predicted
        result.set_cell(scale, row, col, np.array([top1, 999]), np.array([0.6, 0.1], np.float32))
    return result


@pytest.fixture
def hand_built(templates, tmp_path, add_mistakes):
    """model-A: images 1-9 (original labels 0-8), predicted 101-109; model-B: images 10-11 (original
    labels 0-1: add_mistakes counts them per call), predicted 201-202.

    item  panel                               stored probe            corrected at
    A1    correct                             complete                448 (zoom-in)
    A2    wrong, major, fine_grained          complete                128, 448
    A3    wrong, major, fine_grained          complete                -
    A4    wrong, minor, spurious_correlation  complete                224
    A5    wrong (no severity, no category)    complete                -
    A6    unclear                             complete                -
    A7    correct, then reopened: undecided   complete                128 (zoom-out)
    A8    none                                partial (scale 128)     128: partial, already corrected
    A9    none                                none                    (not probed)
    B10   wrong, major, non_prototypical      complete                224, 448
    B11   none                                complete                -
    """
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        a = add_mistakes(project, [(101 + i, True) for i in range(9)], model="model-A")
        b = add_mistakes(project, [(201, True), (202, True)], model="model-B")

        def runs_and_weights(session):
            session.execute(select(Model).where(Model.name == "model-A")).scalar_one().weights_sha256 = SHA
            return {name: run_id for name, run_id in session.execute(
                select(Model.name, Run.id).join(Run, Run.model_id == Model.id)).all()}
        runs = project.write(runs_and_weights)

        for i, verdict, details in ((0, "correct", {}), (1, "wrong", {"severity": "major", "category": "fine_grained"}),
                                    (2, "wrong", {"severity": "major", "category": "fine_grained"}),
                                    (3, "wrong", {"severity": "minor", "category": "spurious_correlation"}),
                                    (4, "wrong", {}), (5, "unclear", {}), (6, "correct", {})):
            decide(project, a[i].image_id, a[i].predicted, verdict, **details)
        decide(project, a[6].image_id, a[6].predicted, None, method="reopened")
        decide(project, b[0].image_id, 201, "wrong", severity="major", category="non_prototypical")

        stored = [(runs["model-A"], a[i], probe(101 + i, i, corrected_at=at))
                  for i, at in enumerate([(448,), (128, 448), (), (224,), (), (), (128,)])]
        stored.append((runs["model-A"], a[7], probe(108, 7, corrected_at=(128,), done=9)))
        stored += [(runs["model-B"], b[0], probe(201, 0, corrected_at=(224, 448), model="model-B", sha=None)),
                   (runs["model-B"], b[1], probe(202, 1, model="model-B", sha=None))]
        for run_id, item, result in stored:
            project.write(lambda s, r=run_id, it=item, res=result: save_zoom(
                session=s, run_id=r, image=it.image_id, predicted=it.predicted, result=res))
        return project

    project = templates.copy(build, tmp_path)  # made once, copied per test
    yield project
    project.close()


def test_per_model_counts_by_hand(hand_built, tmp_path):
    report = build_report(hand_built)
    zoom = report.zoom
    assert zoom.note == "" and zoom.unreadable == 0
    a, b = zoom.models
    assert (a.model, a.mistakes, a.probed, a.corrected, a.partial, a.partial_corrected) == ("model-A", 9, 7, 4, 1, 1)
    # Corrected: A1, A2, A4, A7 of the complete A1-A7.
    assert a.by_verdict == {"correct": [1, 1], "wrong": [2, 4], "unclear": [0, 1], "undecided": [1, 1]}
    assert a.by_severity == {"major": [1, 2], "minor": [1, 1], "unrated": [0, 1]}
    assert a.by_category == {"fine_grained": [1, 2], "fine_grained_oov": [0, 0], "spurious_correlation": [1, 1],
                             "non_prototypical": [0, 0], "unrated": [0, 1]}
    assert a.crosstab["major"]["fine_grained"] == [1, 2] and a.crosstab["minor"]["spurious_correlation"] == [1, 1]
    assert a.crosstab["unrated"]["unrated"] == [0, 1]
    assert sum(n for row in a.crosstab.values() for _, n in row.values()) == 4
    assert a.by_group == {"zoom-out": 2, "zoom-224": 1, "zoom-in": 2}  # A2, A7 | A4 | A1, A2
    assert (b.model, b.mistakes, b.probed, b.corrected, b.partial) == ("model-B", 2, 2, 1, 0)
    assert (a.taesiri_corrected, b.taesiri_corrected) == (4, 1) and not zoom.real_labels
    assert b.by_verdict == {"correct": [0, 0], "wrong": [1, 1], "unclear": [0, 0], "undecided": [0, 1]}
    assert b.crosstab["major"]["non_prototypical"] == [1, 1]
    assert b.by_group == {"zoom-out": 0, "zoom-224": 1, "zoom-in": 1}

    data = report_json(report)["zoom_probe"]
    json.dumps(data)
    row = data["models"][0]
    assert (row["probed"], row["corrected"], row["share"], row["partial"]) == (7, 4, 4 / 7, 1)
    assert row["wrong_severity_by_category"]["major"]["fine_grained"] == {"corrected": 1, "probed": 2}
    assert row["by_group"]["zoom-in"] == {"corrected": 2, "probed": 7}

    section = {s.title: s for s in report_sections(report, tmp_path)}["Zoom probe"]
    assert section.short == "Zoom" and "at least one crop" in section.text
    (_, table), (cross_caption, cross), (_, groups) = section.tables[0], section.tables[1], section.tables[-1]
    assert len(section.tables) == 4  # per model, A's crosstab, B's crosstab, groups
    cells = table.set_index("model")
    assert cells.loc["model-A", "corrected by some crop (this tool: correct/unclear ∪ ReaL)"] == "57.1% (4/7)"
    # No multi-labels, no ReaL here: the accepted labels are the original label by either rule.
    assert cells.loc["model-A", "corrected by some crop (Taesiri et al.: IN+ReaL, original ∪ ReaL)"] == "57.1% (4/7)"
    assert any("no ReaL labels" in w for w in section.warnings)
    assert cells.loc["model-A", "panel: wrong"] == "50.0% (2/4)"
    assert cells.loc["model-A", "partial (not in the shares)"] == "1, 1 already corrected"
    assert cells.loc["model-B", "panel: undecided"] == "0.0% (0/1)"
    assert cross_caption.startswith("model-A: decided wrong")
    cross = cross.set_index("severity")
    assert cross.loc["Major", "Fine-grained"] == "50.0% (1/2)" and cross.loc["all", "all"] == "50.0% (2/4)"
    assert cross.loc["Minor", "Spurious correlation"] == "100.0% (1/1)"
    assert groups.set_index("model").loc["model-A", "zoom-out"] == "28.6% (2/7)"
    assert "## Zoom probe" in to_markdown(list(report_sections(report, tmp_path)), "t")


def test_report_command_prints_the_section(hand_built, capsys):
    root = str(hand_built.root)
    assert main(["report", root]) == 0
    out = capsys.readouterr().out
    assert "\nZoom probe: mistakes some crop corrects" in out
    assert "  model-A: 7 of 9 mistakes probed, corrected by some crop 57.1% (4/7); partial 1 (1 already " in out
    assert "    panel: correct 100.0% (1/1), wrong 50.0% (2/4), unclear 0.0% (0/1), undecided 100.0% (1/1)" in out
    assert "    wrong, severity: major 50.0% (1/2), minor 100.0% (1/1), unrated 0.0% (0/1)" in out
    assert "    zoom group: zoom-out 28.6% (2/7), zoom-224 14.3% (1/7), zoom-in 28.6% (2/7)" in out
    assert main(["report", root, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["analysis"]["zoom_probe"]
    assert [(m["model"], m["probed"], m["corrected"]) for m in data["models"]] == [("model-A", 7, 4),
                                                                                   ("model-B", 2, 1)]


def test_nothing_probed_is_one_line(tmp_path, add_mistakes, capsys):
    project = new_project(tmp_path / "p")
    add_mistakes(project, [(101, True)])
    report = build_report(project)
    assert report.zoom.note == HOW_TO_PROBE and "press X" in HOW_TO_PROBE
    section = {s.title: s for s in report_sections(report, tmp_path)}["Zoom probe"]
    assert section.text == HOW_TO_PROBE and not section.tables
    assert report_json(report)["zoom_probe"]["note"] == HOW_TO_PROBE
    assert main(["report", str(project.root)]) == 0
    assert f"\nZoom probe: {HOW_TO_PROBE}" in capsys.readouterr().out
    project.close()
