"""A killed or failed `import-logits` leaves no run stuck 'running' (issue 29, findings
6 and 7): a retry of the same file resumes the killed run under its number (report
lists one run, complete), and a full disk is a clear error with nothing left behind."""

from __future__ import annotations

import errno
import json
import subprocess
import sys

import numpy as np
from project_data import new_project
from review_data import add_images, val_name
from sqlalchemy import func, select

from db.tables import Model, Prediction, Run
from reviewer.cli import main
from reviewer.project import Project


def _project_and_scores(tmp_path, images: int = 4):
    project = new_project(tmp_path / "p")
    add_images(project, list(range(images)))
    project.close()
    names = np.array([val_name(i) for i in range(1, images + 1)])
    logits = np.random.default_rng(0).normal(size=(images, 1000)).astype(np.float32)
    np.savez(tmp_path / "scores.npz", logits=logits, file_names=names)
    return tmp_path / "p", tmp_path / "scores.npz"


def _runs(root) -> list[tuple[int, str]]:
    project = Project.open(root)
    try:
        with project.read() as session:
            return [tuple(r) for r in session.execute(select(Run.id, Run.status).order_by(Run.id)).all()]
    finally:
        project.close()


KILLED_IMPORT = """
import os, signal, sys
from models.store import ProbabilityWriter
from reviewer.cli import main
def killed(self):  # the probability file is whole, the run not yet complete: SIGKILL here
    os.kill(os.getpid(), signal.SIGKILL)
ProbabilityWriter.sync = killed
main(["import-logits", sys.argv[1], sys.argv[2], "--model", "mine"])
"""


def test_a_killed_import_is_resumed_by_the_retry(tmp_path, capsys):
    root, scores = _project_and_scores(tmp_path)
    killed = subprocess.run([sys.executable, "-c", KILLED_IMPORT, str(root), str(scores)], capture_output=True,
                            text=True, timeout=120, check=False)
    assert killed.returncode == -9, killed.stderr
    assert _runs(root) == [(1, "running")]  # what a kill leaves: the run 'running', its files
    assert (root / "runs" / "run_1.probs.f16.npy").exists()
    assert main(["import-logits", str(root), str(scores), "--model", "mine"]) == 0
    assert "run #1 of mine" in capsys.readouterr().out
    assert _runs(root) == [(1, "complete")]
    assert main(["report", str(root), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(run["id"], run["status"]) for run in report["runs"]] == [(1, "complete")]
    project = Project.open(root)
    try:
        with project.read() as session:
            assert session.execute(select(func.count()).select_from(Prediction)).scalar_one() == 4
    finally:
        project.close()


def test_older_leftovers_are_removed_when_the_retry_resumes(tmp_path, capsys):
    root, scores = _project_and_scores(tmp_path)
    for _ in range(2):
        subprocess.run([sys.executable, "-c", KILLED_IMPORT, str(root), str(scores)], capture_output=True, timeout=120,
                       check=False)
    assert _runs(root) == [(1, "running"), (2, "running")] or _runs(root) == [(1, "running")]
    assert main(["import-logits", str(root), str(scores), "--model", "mine"]) == 0
    capsys.readouterr()
    assert [status for _, status in _runs(root)] == ["complete"]
    assert sorted(p.name for p in (root / "runs").glob("*.npy")) == [f"run_{_runs(root)[0][0]}.{kind}.npy"
                                                                      for kind in ("images", "probs.f16")]


def test_a_full_disk_is_a_clear_error_and_leaves_no_run(tmp_path, capsys, monkeypatch):
    from models.store import ProbabilityWriter

    root, scores = _project_and_scores(tmp_path)

    def disk_full(self, rows, probs):
        raise OSError(errno.ENOSPC, "No space left on device", str(root / "runs" / "run_1.probs.f16.npy"))

    monkeypatch.setattr(ProbabilityWriter, "write", disk_full)
    assert main(["import-logits", str(root), str(scores), "--model", "mine"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: could not write ") and "No space left on device" in err
    assert "nothing was imported" in err and "Traceback" not in err
    assert _runs(root) == [] and not list((root / "runs").glob("*.npy"))
    monkeypatch.undo()  # space freed: the same command works
    assert main(["import-logits", str(root), str(scores), "--model", "mine"]) == 0
    assert [status for _, status in _runs(root)] == ["complete"]
    project = Project.open(root)
    try:
        with project.read() as session:
            assert session.execute(select(func.count()).select_from(Model)).scalar_one() == 1
    finally:
        project.close()
