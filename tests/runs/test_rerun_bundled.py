"""A second bundled model rerun on a slice queues only its unreviewed predictions:
real images (the demo's), real models (EfficientNet-Lite0, then Lite1), the
`reviewer predict` command."""

from __future__ import annotations

import json
import shutil

import pytest
from review_data import decide, read_with
from sqlalchemy import select

from db.engine import read_session
from db.tables import Model, Run
from reviewer.app.imports import init_project
from reviewer.cli import main
from reviewer.evaluation.leaderboard import leaderboard
from reviewer.evaluation.slices import save_slice
from reviewer.paths import asset
from reviewer.review.pending import pending_items, rerun_summary
from reviewer.runs.mistakes import stored_mistakes

pytestmark = pytest.mark.slow


def test_lite1_rerun_on_a_slice_queues_only_new_mistakes(tmp_path, capsys):
    manifest = json.loads(asset("demo", "manifest.json").read_text())
    # Ten demo images the bundled Lite0 gets wrong (the manifest records its top-1).
    wrong = [e["file"] for e in manifest["images"] if e["label"] != e["lite0_top1"]][:10]
    images = tmp_path / "images"
    images.mkdir()
    for name in wrong:
        shutil.copy(asset("demo", "images", name), images / name)
    project, _ = init_project(tmp_path / "p", images=images)

    assert main(["predict", str(project.root), "--model", "tf_efficientnet_lite0", "--device", "cpu"]) == 0
    with read_session(project.engine) as session:
        run_a = session.execute(select(Run.id).order_by(Run.id.desc())).scalars().first()
    first = read_with(project, stored_mistakes, run_id=run_a)
    assert len(first) == 10
    for m in first:  # the panel reviews them all
        decide(project, m.image_id, m.predicted, "wrong", severity="minor", category="fine_grained")
    assert read_with(project, pending_items) == []

    project.write(lambda session: save_slice(session=session, name="hard", image_ids=[m.image_id for m in first]))
    capsys.readouterr()
    assert main(["predict", str(project.root), "--model", "tf_efficientnet_lite1", "--images", "hard",
                 "--device", "cpu"]) == 0
    with read_session(project.engine) as session:
        run_b, image_slice = session.execute(select(Run.id, Run.image_slice).join(Model).where(
            Model.name == "tf_efficientnet_lite1")).one()
    assert image_slice == "hard"
    second = read_with(project, stored_mistakes, run_id=run_b)
    decided = {m.item for m in first}
    new = {m.item for m in second if m.item not in decided}
    repeated = {m.item for m in second} & decided
    assert new and repeated  # Lite1 repeats some of Lite0's mistakes and makes its own
    assert {m.item for m in read_with(project, pending_items, run_id=run_b)} == new
    assert read_with(project, rerun_summary, run_id=run_b) == {"mistakes": len(second), "known_wrong_label": 0,
                                                               "decided": len(repeated), "queued": len(new)}
    board = read_with(project, leaderboard, slice_name="hard").set_index("run_id")
    # Lite0 got every slice image wrong; Lite1 gets right the images it made no mistake on.
    assert board.loc[run_a, "slice_correct"] == 0
    assert board.loc[run_b, "slice_correct"] == 10 - len(second)
