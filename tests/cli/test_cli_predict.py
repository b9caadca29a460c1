"""`reviewer predict` and `reviewer import-logits` as a user runs them, killed mid-run included."""

from __future__ import annotations

import gc
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from project_data import new_project
from run_data import DEMO_IMAGES, make_project, sample_files
from sqlalchemy import select

from db.engine import read_session
from db.tables import Prediction, Run
from reviewer.cli import main

REPO = Path(__file__).resolve().parents[2]


def test_predict_prints_the_run_its_accuracy_and_what_it_queues(tmp_path, capsys):
    # two images the bundled Lite0 gets right, two it gets wrong (assets/demo/manifest.json)
    names = ["n01443537_goldfish.JPEG", "n01494475_hammerhead.JPEG", "n01560419_bulbul.JPEG",
             "n01534433_junco.JPEG"]
    make_project(tmp_path / "p", [DEMO_IMAGES / name for name in names])
    assert main(["predict", str(tmp_path / "p"), "--model", "tf_efficientnet_lite0", "--batch-size", "2"]) == 0
    out = capsys.readouterr().out
    assert "run #1 of tf_efficientnet_lite0: complete, 4 of 4 images predicted" in out
    assert "top-1 accuracy against the original labels: 50.00% (2 of 4)" in out
    assert ("2 mistakes stored: 2 queued for review, 0 already a wrong label of their image, "
            "0 already decided by the panel") in out
    assert main(["predict", str(tmp_path / "p"), "--model", "tf_efficientnet_lite0"]) == 0
    assert "already complete" in capsys.readouterr().out


def test_bad_inputs_exit_2_with_a_message_not_a_traceback(tmp_path, capsys):
    make_project(tmp_path / "p", sample_files(2))
    bad = tmp_path / "other.pth"
    torch.save({"head.weight": torch.zeros(2, 2)}, bad)
    assert main(["predict", str(tmp_path / "p"), "--model", "test_efficientnet", "--checkpoint", str(bad)]) == 2
    err = capsys.readouterr().err
    # (after the line saying torch and timm load: the command answers at once)
    assert f"\nerror: {bad}: does not match the architecture" in err and "Traceback" not in err
    np.save(tmp_path / "logits.npy", np.zeros((3, 1000), np.float32))
    assert main(["import-logits", str(tmp_path / "p"), str(tmp_path / "logits.npy"), "--model", "x"]) == 2
    assert "has 3 rows" in capsys.readouterr().err
    assert main(["predict", str(tmp_path / "p"), "--model", "resnet_9000"]) == 2
    assert "is not a timm architecture" in capsys.readouterr().err


def test_hub_model_without_internet_says_what_to_do(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("models.sources._cached_weights", lambda cfg: None)
    make_project(tmp_path / "p", sample_files(1))
    assert main(["predict", str(tmp_path / "p"), "--model", "resnet18.a1_in1k"]) == 2
    err = capsys.readouterr().err
    assert "hub cannot be reached" in err and "--checkpoint PATH with --model resnet18.a1_in1k" in err


def _count(db: Path) -> tuple[int, str | None]:
    with sqlite3.connect(db, timeout=30) as conn:
        done = conn.execute("SELECT count(*) FROM prediction").fetchone()[0]
        status = conn.execute("SELECT status FROM run").fetchone()
    return done, status[0] if status else None


def _start(project, *, images: int):
    command = [sys.executable, "-m", "reviewer", "predict", str(project.root), "--model", "tf_efficientnet_lite0",
               "--batch-size", "4"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # SIGINT as a terminal would deliver it, even when this suite runs with SIGINT ignored (a
    # background job inherits SIG_IGN, and Python then installs no KeyboardInterrupt handler).
    return command, env, subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(process, project, how, *, after: int, total: int) -> tuple[str, int, str | None]:
    """Send `how` once the run has `after` predictions; (stderr, predictions, status)."""
    db = project.root / "project.db"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None and _count(db)[0] < after:
        time.sleep(0.05)
    process.send_signal(how)
    _, err = process.communicate(timeout=120)
    done, status = _count(db)
    if done == total:
        pytest.skip("the run finished before it could be interrupted")
    return err, done, status


def test_killed_mid_run_resumes_to_the_same_results(tmp_path):
    from reviewer.runs.compute import predict

    files = sample_files(24, step=12)
    project = make_project(tmp_path / "p", files)
    command, env, process = _start(project, images=len(files))
    _, done, status = _interrupt(process, project, signal.SIGKILL, after=8, total=len(files))
    assert 8 <= done < len(files) and status == "running"  # partial, never taken for complete
    resumed = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming run #1: {done} of 24 images done" in resumed.stderr
    assert f"complete, 24 of 24 images predicted, resumed from {done}" in resumed.stdout
    uninterrupted = predict(project, "tf_efficientnet_lite0", batch_size=4, rerun=True)
    with read_session(project.engine) as session:
        runs = session.execute(select(Run).order_by(Run.id)).scalars().all()
        assert [r.status for r in runs] == ["complete", "complete"] and runs[1].id == uninterrupted.run_id
        tops = [session.execute(select(Prediction.image_id, Prediction.row, Prediction.pred_1, Prediction.pred_5)
                                .where(Prediction.run_id == r.id).order_by(Prediction.image_id)).all() for r in runs]
    assert tops[0] == tops[1] and len(tops[0]) == 24
    probs = [np.load(project.root / r.probs_path) for r in runs]
    np.testing.assert_array_equal(probs[0], probs[1])  # the same batches: bit for bit


def test_ctrl_c_keeps_the_finished_batches_and_says_how_to_resume(tmp_path):
    files = sample_files(24, step=12)
    project = make_project(tmp_path / "p", files)
    _, _, process = _start(project, images=len(files))
    err, done, status = _interrupt(process, project, signal.SIGINT, after=4, total=len(files))
    assert process.returncode == 130 and status == "cancelled" and done % 4 == 0
    assert f"interrupted: run #1 keeps {done} of 24 images; run the same command again to resume it" in err


def test_import_logits_again_or_of_another_file_says_what_it_did(tmp_path, capsys):
    """The same file twice: nothing changes, and no --rerun (which import-logits has not) is
    offered; another file under the same --model: stored under another name, said so."""
    from review_data import add_images, val_name

    project = new_project(tmp_path / "p")
    add_images(project, [0, 1, 2])
    names = np.array([val_name(i) for i in (1, 2, 3)])
    rng = np.random.default_rng(0)
    for name in ("a.npz", "b.npz"):
        np.savez(tmp_path / name, logits=rng.normal(size=(3, 1000)).astype(np.float32), file_names=names)
    project.close()
    args = ["import-logits", str(tmp_path / "p"), str(tmp_path / "a.npz"), "--model", "mine"]
    assert main(args) == 0
    capsys.readouterr()
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "already holds the scores of this file" in out and "--rerun" not in out
    assert main(["import-logits", str(tmp_path / "p"), str(tmp_path / "b.npz"), "--model", "mine"]) == 0
    out = capsys.readouterr().out
    assert "note: mine already has a run from another file, so this one is stored as model 'mine#" in out


def test_a_json_file_cut_short_is_named_without_a_doubled_word(tmp_path, capsys):
    cut = tmp_path / "labels.json"
    cut.write_text('{"ILSVRC2012_val_00000001.JPEG": ["n01440764", "n0144')
    assert main(["init", str(tmp_path / "p"), "--labels", str(cut)]) == 2
    err = capsys.readouterr().err
    assert "not valid JSON (Unterminated string starting at line 1, column" in err and "at at" not in err


def test_predict_on_a_project_without_images_points_to_import_images(tmp_path, capsys):
    assert main(["init", str(tmp_path / "p")]) == 0
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "p"), "--model", "tf_efficientnet_lite0"]) == 2
    err = capsys.readouterr().err
    assert "has no images with files" in err and "reviewer import-images PROJECT DIR" in err  # not init


def test_several_models_in_one_command_are_one_run_each_with_the_precision_shown(tmp_path, capsys,
                                                                                  tiny_checkpoint):
    names = ["n01443537_goldfish.JPEG", "n01494475_hammerhead.JPEG", "n01560419_bulbul.JPEG"]
    project = make_project(tmp_path / "p", [DEMO_IMAGES / name for name in names])
    assert main(["predict", str(project.root), "--model", "tf_efficientnet_lite0", "tf_efficientnet_lite2",
                 "--precision", "bf16", "--decoder", "processes", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "run #1 of tf_efficientnet_lite0: complete, 3 of 3 images predicted" in out
    assert "run #2 of tf_efficientnet_lite2: complete, 3 of 3 images predicted" in out
    assert out.count("computed in bf16") == 2
    with read_session(project.engine) as session:
        runs = list(session.execute(select(Run).order_by(Run.id)).scalars())
    assert [r.report["precision"] for r in runs] == ["bf16", "bf16"]
    assert [r.report["decoder"] for r in runs] == ["processes", "processes"]
    assert main(["leaderboard", str(project.root)]) == 0
    board = capsys.readouterr().out
    assert board.count(" bf16 ") == 2  # the precision beside each run
    assert main(["report", str(project.root)]) == 0
    assert capsys.readouterr().out.count("[computed in bf16]") == 2
    # a checkpoint names the weights of one model
    assert main(["predict", str(project.root), "--model", "test_efficientnet", "tf_efficientnet_lite0",
                 "--checkpoint", str(tiny_checkpoint)]) == 2
    assert "one model" in capsys.readouterr().err


# The command as its own process: os._exit (its last step) reports the collector's state first.
COLLECTOR_PROBE = """
import gc, json, os, sys
full = []
gc.callbacks.append(lambda phase, info: full.append(1) if phase == "stop" and info["generation"] == 2 else None)
real_exit = os._exit

def reported_exit(code):
    print(json.dumps([code, gc.get_freeze_count(), len(full), gc.isenabled()]), flush=True)
    real_exit(code)

os._exit = reported_exit
sys.argv = ["reviewer", "predict", sys.argv[1], "--model", "test_efficientnet", "--checkpoint", sys.argv[2]]
from reviewer.cli import main
main()
"""


def test_the_predict_command_imports_torch_out_of_the_collectors_sight(tmp_path, tiny_checkpoint):
    """As the `reviewer` command, predict imports torch and timm with the cycle collector paused
    and freezes what they made: their 400,000-odd objects cost 6 full collections at import
    (0.5 s on 2 cores) and one more per 300 images, each scanning them all. Called by another
    program (a notebook, a script) it leaves that program's collector as it was."""
    project = make_project(tmp_path / "p", sample_files(3))
    project.close()
    result = subprocess.run([sys.executable, "-c", COLLECTOR_PROBE, str(project.root), str(tiny_checkpoint)],
                            capture_output=True, text=True, timeout=300)
    code, frozen, full_collections, enabled = json.loads(result.stdout.strip().splitlines()[-1])
    assert code == 0, result.stderr
    assert frozen > 100_000 and enabled
    assert full_collections <= 1  # the interpreter's own start may run one; the imports ran 6
    frozen_before, enabled_before = gc.get_freeze_count(), gc.isenabled()  # (GUI tests may change both)
    assert main(["predict", str(project.root), "--model", "test_efficientnet", "--checkpoint", str(tiny_checkpoint),
                 "--rerun"]) == 0
    assert gc.get_freeze_count() == frozen_before and gc.isenabled() == enabled_before
