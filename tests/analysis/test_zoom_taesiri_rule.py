"""The zoom section's two rules for a crop's accepted labels: this tool's (correct or unclear
multi-labels with ReaL's) and Taesiri et al.'s IN+ReaL (the original label with ReaL's, §3), on
hand-built images with multi-labels and ReaL labels; the counts are worked out here by hand."""

from __future__ import annotations

import json

import numpy as np
from project_data import new_project
from review_data import add_images, add_run
from sqlalchemy import insert

from db.engine import write_session
from db.tables import Label, LabelSource
from reviewer.analysis.report_json import report_json
from reviewer.analysis.sections import report_sections
from reviewer.app.report import build_report
from reviewer.cli import main
from reviewer.runs.zoom import ZoomParams, ZoomResult, save_zoom

SCALES = (128, 224, 448)

# image: original label, multi-labels, ReaL labels, prediction, what the centre crop at S=224 answers
IMAGES = [
    (10, {"correct": [10], "unclear": [20]}, [10], 30, 20),  # the unclear label: the tool's rule only
    (11, {"correct": [11]}, [11, 21], 31, 21),  # a ReaL label: both rules
    (12, {"correct": [12]}, [12], 32, 32),  # the prediction everywhere: neither
]
# By hand: this tool's rule corrects 2 of the 3 probed mistakes, Taesiri et al.'s 1 of 3.


def probe(predicted: int, centre: int) -> ZoomResult:
    result = ZoomResult.empty(ZoomParams(scales=SCALES, top_k=2), model="model-A", weights_sha256=None,
                              image_size=(500, 375))
    for scale in SCALES:
        for row in range(3):
            for col in range(3):
                top1 = centre if (scale, row, col) == (224, 1, 1) else predicted
                result.set_cell(scale, row, col, np.array([top1, 999]), np.array([0.6, 0.1], np.float32))
    return result


def test_an_unclear_label_found_by_a_crop_corrects_by_the_tools_rule_not_taesiris(tmp_path, capsys):
    project = new_project(tmp_path / "p")
    ids = add_images(project, [o for o, *_ in IMAGES], labels={i: ml for i, (_, ml, *_) in enumerate(IMAGES)})
    with write_session(project.engine) as session:
        source = LabelSource(kind="test", path="real.json")
        session.add(source)
        session.flush()
        session.execute(insert(Label), [{"label_set": "real", "image_id": ids[i], "class_index": c, "kind": "correct",
                                         "source_id": source.id} for i, (_, _, real, *_) in enumerate(IMAGES)
                                        for c in real])
    run_id = add_run(project, "model-A", {ids[i]: predicted for i, (_, _, _, predicted, _) in enumerate(IMAGES)})
    for i, (_, _, _, predicted, centre) in enumerate(IMAGES):
        project.write(lambda s, i=i, p=predicted, c=centre: save_zoom(
            session=s, run_id=run_id, image=ids[i], predicted=p, result=probe(p, c)))

    report = build_report(project)
    (m,) = report.zoom.models
    assert (m.probed, m.corrected, m.taesiri_corrected) == (3, 2, 1)
    assert report.zoom.real_labels

    data = report_json(report)["zoom_probe"]
    json.dumps(data)
    assert "correct or unclear" in data["accepted_rule"] and "Taesiri" in data["taesiri_rule"]
    assert data["paper_optimal_zoom"]["share"] == 0.9891
    row = data["models"][0]
    assert (row["corrected"], row["share"]) == (2, 2 / 3)
    assert row["taesiri_in_real"] == {"rule": data["taesiri_rule"], "corrected": 1, "probed": 3, "share": 1 / 3,
                                      "unclassifiable": 2}  # no crop correct by IN+ReaL: 3 - 1

    section = {s.title: s for s in report_sections(report, tmp_path)}["Zoom probe"]
    table = section.tables[0][1].set_index("model")
    assert table.loc["model-A", "corrected by some crop (this tool: correct/unclear ∪ ReaL)"] == "66.7% (2/3)"
    assert table.loc["model-A", "corrected by some crop (Taesiri et al.: IN+ReaL, original ∪ ReaL)"] == "33.3% (1/3)"
    assert "98.91%" in section.text and "For each IN image, we use the union of the IN and ReaL" in section.text

    assert main(["report", str(project.root)]) == 0
    out = capsys.readouterr().out
    assert "  model-A: 3 of 3 mistakes probed, corrected by some crop 66.7% (2/3)" in out
    assert "    Taesiri et al.'s rule (IN+ReaL): corrected by some crop 33.3% (1/3)" in out
    project.close()
