"""The zoom-hard split on a hand-built case: two runs' mistakes, stored probes whose crops
are set by hand, and each image's status worked out here from Taesiri et al.'s definition
(§4.1, §4.4.1: unclassifiable when none of the 324 crops has a correct top-1; correct:
IN+ReaL, the original label with ReaL's), then saved as a slice, exported and reported."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from project_data import new_project
from review_data import add_images, add_run
from sqlalchemy import insert, select

from db.engine import write_session
from db.tables import Label, LabelSource, Panelist
from reviewer.analysis.report_json import report_json
from reviewer.analysis.sections import report_sections
from reviewer.app.export import export_project
from reviewer.app.report import build_report
from reviewer.app.zoom import zoom_hard_split
from reviewer.cli import main
from reviewer.evaluation.slices import SliceError, slice_image_ids, slice_rule
from reviewer.evaluation.zoom_hard import (
    CLASSIFIED,
    CORRECTED,
    NEEDS_PROBE,
    NOT_PREDICTED,
    UNCLASSIFIABLE,
    ZoomHardError,
)
from reviewer.runs.zoom import PAPER_SCALES, ZoomParams, ZoomResult, save_zoom

# Originals 0-7 (image i has original label i, its one correct multi-label); image 0 has ReaL label 50,
# image 1 the unclear multi-label 61 (this tool accepts it; IN+ReaL does not).
A = {0: 100, 1: 101, 2: 102, 3: 103, 4: 104, 5: 105, 6: 106, 7: 7}  # image -> run A's top-1 (image 7 right)
B = {0: 110, 1: 111, 2: 112, 3: 3, 4: 114, 5: 115, 7: 117}  # run B: image 3 right, no prediction for image 6


def probe(model: str, predicted: int, *, answers: dict[tuple[int, int, int], int] = (), done: int = 324,
          scales=PAPER_SCALES) -> ZoomResult:
    """A result whose first `done` cells (scale by scale) answer `predicted`, except the cells
    (scale, row, col) in `answers`, which answer the class given."""
    result = ZoomResult.empty(ZoomParams(scales=scales, top_k=2), model=model, weights_sha256=None,
                              image_size=(500, 375))
    answers = dict(answers)
    for i in range(done):
        scale, row, col = scales[i // 9], (i % 9) // 3, i % 3
        top1 = answers.get((scale, row, col), predicted)
        result.set_cell(scale, row, col, np.array([top1, 999]), np.array([0.6, 0.1], np.float32))
    return result


@pytest.fixture
def case(templates, tmp_path):
    """Stored probes, and the status worked out by hand for A and B together (IN+ReaL):

    image  A's probe                          B's probe                 status
    0      complete, crop (512,0,2) = 50 ReaL complete, none            corrected
    1      complete, crop (224,1,1) = 61      complete, none            unclassifiable (61 is only unclear)
    2      owner: complete, none; bob:        complete, none            unclassifiable (the owner's result
           complete, crop (10,0,0) = 2                                  is read, not another panelist's)
    3      complete, none                     B right (3)               classified by a run
    4      complete, none                     partial (first 54), none  needs a complete probe
    5      partial (first 54), (64,1,1) = 5   not probed                corrected (a partial one decides)
    6      complete, none                     no prediction             not predicted by every run
    7      A right (7)                        complete, none            classified by a run
    Image 8 is nobody's mistake: no candidate. A complete probe of fewer scales than the paper's is
    no answer (image 3 of B would need one; see test_fewer_scales_are_not_the_papers_324_crops).
    """
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        ids = add_images(project, list(range(9)), labels={1: {"correct": [1], "unclear": [61]}})
        with write_session(project.engine) as session:
            source = LabelSource(kind="real", path="real.json")
            session.add(source)
            session.flush()
            session.execute(insert(Label), [{"label_set": "real", "image_id": ids[0], "class_index": 50,
                                             "kind": "correct", "source_id": source.id}])
            session.add(Panelist(name="bob"))
        run_a = add_run(project, "model-A", {ids[i]: c for i, c in A.items()} | {ids[8]: 8})
        run_b = add_run(project, "model-B", {ids[i]: c for i, c in B.items()} | {ids[8]: 8})
        bob = project.write(lambda s: s.execute(select(Panelist.id).where(Panelist.name == "bob")).scalar_one())
        stored = [  # (run, image, predicted, result, computed by)
            (run_a, 0, 100, probe("model-A", 100, answers={(512, 0, 2): 50}), None),
            (run_a, 1, 101, probe("model-A", 101, answers={(224, 1, 1): 61}), None),
            (run_a, 2, 102, probe("model-A", 102), None),
            (run_a, 2, 102, probe("model-A", 102, answers={(10, 0, 0): 2}), bob),
            (run_a, 3, 103, probe("model-A", 103), None),
            (run_a, 4, 104, probe("model-A", 104), None),
            (run_a, 5, 105, probe("model-A", 105, answers={(64, 1, 1): 5}, done=54), None),
            (run_a, 6, 106, probe("model-A", 106), None),
            (run_b, 0, 110, probe("model-B", 110), None),
            (run_b, 1, 111, probe("model-B", 111), None),
            (run_b, 2, 112, probe("model-B", 112), None),
            (run_b, 4, 114, probe("model-B", 114, done=54), None),
            (run_b, 7, 117, probe("model-B", 117), None),
        ]
        for run_id, image, predicted, result, by in stored:
            store(project, run_id, ids[image], predicted, result, by)
        project.case = ids, run_a, run_b
        return project

    project = templates.copy(build, tmp_path)  # made once, copied per test
    yield project, *project.case
    project.close()


def store(project, run_id: int, image_id: int, predicted: int, result: ZoomResult, by: int | None = None) -> None:
    project.write(lambda s: save_zoom(session=s, run_id=run_id, image=image_id, predicted=predicted, result=result,
                                      computed_by=by))


def statuses(outcome, ids) -> dict[int, str]:
    table = outcome.result.table
    return {ids.index(int(i)): s for i, s in zip(table["image_id"], table["status"])}


def test_both_runs_by_hand(case):
    project, ids, run_a, run_b = case
    outcome = zoom_hard_split(project, runs=[str(run_a), "model-B"]).value
    assert statuses(outcome, ids) == {0: CORRECTED, 1: UNCLASSIFIABLE, 2: UNCLASSIFIABLE, 3: CLASSIFIED,
                                      4: NEEDS_PROBE, 5: CORRECTED, 6: NOT_PREDICTED, 7: CLASSIFIED}
    counts = outcome.result.counts()
    assert counts[UNCLASSIFIABLE] == 2 and counts[CORRECTED] == 2 and counts[NEEDS_PROBE] == 1
    assert sum(counts.values()) == 8  # every candidate once; image 8 is nobody's mistake
    assert outcome.result.images() == [f"ILSVRC2012_val_{ids[i]:08d}.JPEG" for i in (1, 2)]
    row = outcome.result.table.set_index("image_id").loc[ids[4]]
    assert (row["model-A (run 1)"], row["model-B (run 2)"]) == ("no correct crop", "partial, no correct crop yet")


def test_one_run_and_this_tools_labels(case):
    project, ids, run_a, _ = case
    only_a = statuses(zoom_hard_split(project, runs=[str(run_a)]).value, ids)
    # A alone: its complete probes with no correct crop (1: the unclear 61 is not IN+ReaL), 5 corrected (partial).
    assert only_a == {0: CORRECTED, 1: UNCLASSIFIABLE, 2: UNCLASSIFIABLE, 3: UNCLASSIFIABLE, 4: UNCLASSIFIABLE,
                      5: CORRECTED, 6: UNCLASSIFIABLE}
    accepted = statuses(zoom_hard_split(project, runs=[str(run_a)], labels="accepted").value, ids)
    assert accepted[1] == CORRECTED and accepted[0] == CORRECTED  # 61 unclear accepted; ReaL's 50 too
    assert {i for i, s in accepted.items() if s == UNCLASSIFIABLE} == {2, 3, 4, 6}


def test_fewer_scales_are_not_the_papers_324_crops(case):
    project, ids, _, run_b = case
    project.write(lambda s: save_zoom(session=s, run_id=run_b, image=ids[4], predicted=114,
                                      result=probe("model-B", 114, scales=(128, 224, 448), done=27)))
    assert statuses(zoom_hard_split(project, runs=[str(run_b)]).value, ids)[4] == NEEDS_PROBE
    project.write(lambda s: save_zoom(session=s, run_id=run_b, image=ids[4], predicted=114,
                                      result=probe("model-B", 114)))
    assert statuses(zoom_hard_split(project, runs=[str(run_b)]).value, ids)[4] == UNCLASSIFIABLE


def test_saved_as_a_slice_exported_and_reported(case, tmp_path, capsys):
    project, ids, run_a, run_b = case
    runs = [str(run_a), str(run_b)]
    outcome = zoom_hard_split(project, runs=runs, save="zoom_hard", export=tmp_path / "split.json").value
    assert outcome.saved == 2
    with project.read() as session:
        assert slice_image_ids(session=session, name="zoom_hard").tolist() == [ids[1], ids[2]]
        rule = slice_rule(session=session, name="zoom_hard")
    assert rule["kind"] == "zoom-hard" and rule["labels"] == "in-real" and "324 zoomed crops" in rule["rule"]
    assert rule["runs"] == [{"run": run_a, "model": "model-A"}, {"run": run_b, "model": "model-B"}]
    assert rule["counts"][NEEDS_PROBE] == 1
    written = json.loads((tmp_path / "split.json").read_text())
    assert written["images"] == [f"ILSVRC2012_val_{ids[i]:08d}.JPEG" for i in (1, 2)]
    assert len(written["candidates"]) == 8
    with pytest.raises(SliceError, match="already has a slice"):
        zoom_hard_split(project, runs=runs, save="zoom_hard")

    first = export_project(project, tmp_path / "out").value
    entry, = first.manifest["zoom_hard_splits"]
    assert (entry["slice"], entry["file"], entry["images"]) == ("zoom_hard", "splits/zoom_hard.json", 2)
    assert entry["runs"] == [f"model-A (run {run_a})", f"model-B (run {run_b})"] and entry["rule"] == rule
    data = json.loads((first.path / "splits" / "zoom_hard.json").read_text())
    assert data["images"] == written["images"] and data["rule"] == rule and data["format"] == "zoom-hard split"
    digest = hashlib.sha256((first.path / "splits" / "zoom_hard.json").read_bytes()).hexdigest()
    assert first.manifest["outputs"]["splits/zoom_hard.json"]["sha256"] == digest
    second = export_project(project, tmp_path / "out").value
    assert (second.path / "splits" / "zoom_hard.json").read_bytes() == (
        first.path / "splits" / "zoom_hard.json").read_bytes()

    report = build_report(project)
    assert [(z.name, z.images) for z in report.zoom.splits] == [("zoom_hard", 2)]
    assert report_json(report)["zoom_probe"]["zoom_hard_splits"][0]["runs"] == entry["runs"]
    a = report.zoom.models[0]
    assert (a.model, a.probed, a.taesiri_corrected, a.unclassifiable) == ("model-A", 6, 1, 5)  # 0 | 1,2,3,4,6
    section = {s.title: s for s in report_sections(report, tmp_path)}["Zoom probe"]
    caption, table = section.tables[-1]
    assert caption.startswith("Zoom-hard splits") and table.loc[0, "slice"] == "zoom_hard"
    assert "'zoom_hard'" in section.text

    assert main(["export", str(project.root), str(tmp_path / "cli")]) == 0
    assert "splits/zoom_hard.json: the zoom-hard split 'zoom_hard', 2 images" in capsys.readouterr().out
    assert main(["report", str(project.root)]) == 0
    out = capsys.readouterr().out
    assert "corrected by some crop 16.7% (1/6); unclassifiable, no crop correct 83.3% (5/6)" in out
    assert f"zoom-hard split 'zoom_hard' (reviewer zoom-split): 2 images no crop corrects for model-A (run {run_a}), " \
           f"model-B (run {run_b}) (in-real labels)" in out


def test_nothing_unclassifiable_saves_nothing(case):
    project, ids, _, run_b = case
    for image, predicted in ((0, 110), (1, 111), (2, 112), (4, 114), (7, 117)):  # one crop answers the label
        store(project, run_b, ids[image], predicted, probe("model-B", predicted, answers={(224, 1, 1): image}))
    only_b = statuses(zoom_hard_split(project, runs=[str(run_b)]).value, ids)
    assert only_b == {0: CORRECTED, 1: CORRECTED, 2: CORRECTED, 4: CORRECTED, 5: NEEDS_PROBE, 7: CORRECTED}
    with pytest.raises(ZoomHardError, match="would be empty .1 need a complete probe first"):
        zoom_hard_split(project, runs=[str(run_b)], save="b_hard")
    with project.read() as session, pytest.raises(SliceError):
        slice_image_ids(session=session, name="b_hard")


def test_the_command_prints_the_counts_and_what_to_probe(case, capsys):
    project, ids, run_a, run_b = case
    assert main(["zoom-split", str(project.root), "--runs", str(run_a), str(run_b), "--show", "unclassifiable"]) == 0
    out = capsys.readouterr().out
    assert "of 8 candidate images (a mistake of some run): 2 unclassifiable, 2 corrected by some crop, 1 need a " \
           "complete probe, 2 classified correctly by a run, 1 without a prediction of every run" in out
    assert f"  ILSVRC2012_val_{ids[1]:08d}.JPEG\n" in out
    assert f"to probe them: reviewer zoom {project.root} --run {run_b}\n" in out  # B's image 4 is partial
    assert main(["zoom-split", str(project.root), "--runs", "review:1"]) == 2
