"""Several panelists at once, with real processes, on SQLite and PostgreSQL:
no acknowledged vote lost to a SIGKILL, no vote lost or refused when five
processes vote at once, and every vote attributed to whoever cast it."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from db.engine import read_session
from db.tables import Vote
from reviewer.cli import main
from reviewer.panel.votes import get_reviewer

pytestmark = pytest.mark.slow

# A panelist's process: opens the project, says it is ready, waits for the
# common start signal, then casts its votes, printing each id once recorded.
WORKER = r"""
import os, sys, time
from reviewer.project import Project
from reviewer.panel.votes import cast_vote
root, reviewer_id, ready, go = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
items = [tuple(map(int, pair.split(":"))) for pair in sys.argv[5].split(",")]
project = Project.open(root)
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.002)
for n, (image_id, predicted) in enumerate(items):
    row = cast_vote(project, reviewer_id=reviewer_id, image_id=image_id, predicted=predicted,
                    verdict=("wrong", "correct", "unclear")[n % 3], note=f"vote {n}")
    print(row.id, flush=True)
"""


def _env() -> dict:
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


def test_sigkill_mid_stream_loses_no_acknowledged_vote(project, add_mistakes, tmp_path):
    items = add_mistakes(project, [(200 + i, True) for i in range(20)])
    ann = get_reviewer(project, "ann").id
    batch = tmp_path / "votes.csv"
    with batch.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["image", "predicted", "verdict", "note"])
        for n in range(1000):  # more than it casts before the kill
            item = items[n % len(items)]
            writer.writerow([f"ILSVRC2012_val_{item.image_id:08d}.JPEG", item.predicted,
                             ("wrong", "correct")[n % 2], f"vote {n}"])
    child = subprocess.Popen([sys.executable, "-m", "reviewer", "vote", str(project.root), "--reviewer", "ann",
                              "--batch", str(batch)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=_env())
    acknowledged = []
    for line in child.stdout:
        acknowledged.append(int(line.split()[1].rstrip(":")))
        if len(acknowledged) == 40:
            os.kill(child.pid, signal.SIGKILL)  # mid-stream: the next vote may be half-way
            break
    acknowledged += [int(line.split()[1].rstrip(":")) for line in child.stdout]  # printed before the kill
    child.wait()
    assert child.returncode == -signal.SIGKILL
    with read_session(project.engine) as session:
        rows = {v.id: v for v in session.execute(select(Vote)).scalars()}
    assert set(acknowledged) <= set(rows)
    # Each acknowledged vote is whole: the right reviewer, item and value.
    for n, vote_id in enumerate(acknowledged):
        row, item = rows[vote_id], items[n % len(items)]
        assert (row.reviewer_id, row.image_id, row.predicted, row.note) == (ann, item.image_id, item.predicted,
                                                                             f"vote {n}")
    assert len(rows) < 1000  # it really was killed mid-stream


def test_five_processes_casting_200_votes_each_at_once(project, add_mistakes, tmp_path):
    items = add_mistakes(project, [(300 + i % 700, True) for i in range(200)])
    reviewers = [get_reviewer(project, f"panelist {k}").id for k in range(5)]
    go = tmp_path / "go"
    pairs = ",".join(f"{i.image_id}:{i.predicted}" for i in items)
    children = [subprocess.Popen([sys.executable, "-c", WORKER, str(project.root), str(rid),
                                  str(tmp_path / f"ready{rid}"), str(go), pairs],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
                for rid in reviewers]
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready{rid}").exists() for rid in reviewers):
        assert time.monotonic() < deadline, "the panelists' processes did not start"
        assert all(c.poll() is None for c in children), [c.communicate() for c in children]
        time.sleep(0.01)
    go.touch()  # all five start voting at the same moment
    results = [c.communicate(timeout=300) for c in children]
    for child, (out, err) in zip(children, results):
        assert child.returncode == 0, err
        assert "locked" not in err.lower() and "error" not in err.lower(), err
    with read_session(project.engine) as session:
        assert session.execute(select(func.count(Vote.id))).scalar_one() == 1000
        owner = dict(session.execute(select(Vote.id, Vote.reviewer_id)).all())
    for rid, (out, _) in zip(reviewers, results):
        ids = [int(x) for x in out.split()]
        assert len(ids) == 200
        assert {owner[i] for i in ids} == {rid}  # every vote is its own panelist's


def test_three_panelists_review_independently_then_the_chair_decides(project, add_mistakes, tmp_path, capsys):
    """The panel's process end to end through the command line, one voting process per panelist."""
    items = add_mistakes(project, [(400 + i, True) for i in range(6)] + [(450, False)])
    votes = {  # item index -> verdicts of ann, bob, cy
        0: ("wrong", "wrong", "wrong"), 1: ("wrong", "wrong", "correct"), 2: ("correct", "wrong", "unclear"),
        3: ("correct", "correct", "correct"), 4: ("unclear", "wrong", "unclear"), 5: ("wrong", "correct", "wrong")}
    cli = [sys.executable, "-m", "reviewer"]
    root = str(project.root)
    assert main(["panelist", root, "ann", "--chair"]) == 0
    children = []
    for k, name in enumerate(("ann", "bob", "cy")):
        batch = tmp_path / f"{name}.csv"
        with batch.open("w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["image", "predicted", "verdict", "severity", "category"])
            for i, verdicts in votes.items():
                writer.writerow([f"ILSVRC2012_val_{items[i].image_id:08d}.JPEG", items[i].predicted, verdicts[k],
                                 "", ""])
            known = items[6]
            writer.writerow([f"ILSVRC2012_val_{known.image_id:08d}.JPEG", known.predicted, "",
                             ("major", "major", "minor")[k], "fine_grained"])
        if name != "ann":
            assert main(["panelist", root, name]) == 0
        children.append(subprocess.Popen(cli + ["vote", root, "--reviewer", name, "--batch",
                                                str(batch)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True))
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        assert out.count("\n") == 7
    capsys.readouterr()
    assert main(["panel-status", root]) == 0
    assert "Phase 1, correctness: 6 items: 0 being voted, 4 awaiting the group, 2 decided" in capsys.readouterr().out
    assert main(["decide", root, "--chair", "bob"]) == 2
    assert "bob is not the chair" in capsys.readouterr().err
    assert main(["decide", root, "--chair", "ann"]) == 0
    # 0, 1, 5 wrong; 2 a three-way tie: unclear; 3 correct; 4 unclear 2:1; and the known mistake's severity.
    assert "ann locked 7 majority decisions: correct 1, unclear 2, wrong 4" in capsys.readouterr().out
