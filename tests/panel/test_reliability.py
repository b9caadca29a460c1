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

import pytest
from review_data import snapshot_of
from sqlalchemy import func, select

from db.engine import read_session
from db.tables import Vote
from reviewer.app import panel as acts
from reviewer.cli import main

pytestmark = pytest.mark.slow

# A panelist's process: opens the project, says it is ready, waits for the
# common start signal, then casts its votes, printing each id once recorded.
WORKER = r"""
import os, sys, time
from reviewer.app import panel as acts
from reviewer.items import Item
from reviewer.project import Project
root, panelist_id, ready, go = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
items = [tuple(map(int, pair.split(":"))) for pair in sys.argv[5].split(",")]
project = Project.open(root)
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.002)
for n, (image_id, predicted) in enumerate(items):
    row = acts.vote(project, panelist_id=panelist_id, item=Item(image_id, predicted),
                    verdict=("wrong", "correct", "unclear")[n % 3], note=f"vote {n}").value
    print(row.id, flush=True)
"""


def _env() -> dict:
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


def _batch_file(path, items, rows: int) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["image", "predicted", "verdict", "note"])
        for n in range(rows):
            item = items[n % len(items)]
            writer.writerow([f"ILSVRC2012_val_{item.image_id:08d}.JPEG", item.predicted,
                             ("wrong", "correct")[n % 2], f"vote {n}"])


def test_a_batch_killed_mid_file_records_all_of_it_or_nothing(project, add_mistakes, tmp_path):
    """SIGKILL while `vote --batch` records: the batch is one transaction, so the database
    holds every vote of the file or none (never a part a script could not tell apart)."""
    items = add_mistakes(project, [(200 + i, True) for i in range(20)])
    acts.add_panelist(project, "ann")
    batch = tmp_path / "votes.csv"
    _batch_file(batch, items, 3000)
    child = subprocess.Popen([sys.executable, "-m", "reviewer", "vote", str(project.root), "--panelist", "ann",
                              "--batch", str(batch)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=_env())
    for line in child.stderr:  # said once every row is checked, as the transaction starts
        if line.startswith("recording 3000 votes"):
            break
    time.sleep(0.2)
    os.kill(child.pid, signal.SIGKILL)
    printed = child.stdout.read().splitlines()
    child.wait()
    assert child.returncode == -signal.SIGKILL
    with read_session(project.engine) as session:
        rows = session.execute(select(Vote)).scalars().all()
    assert len(rows) in (0, 3000)  # all or nothing
    assert not printed or len(rows) == 3000  # a vote is printed only once the whole file is recorded


def test_a_batch_sent_again_after_sigkill_records_each_row_once(project, add_mistakes, tmp_path):
    """Killed at random moments (before, during and after its commit, before or after its
    output), then sent again until it finishes: every row is recorded exactly once."""
    import random

    items = add_mistakes(project, [(400 + i, True) for i in range(20)])
    acts.add_panelist(project, "ann")
    batch = tmp_path / "votes.csv"
    _batch_file(batch, items, 300)
    command = [sys.executable, "-m", "reviewer", "vote", str(project.root), "--panelist", "ann", "--batch", str(batch)]
    rng = random.Random(7)
    for _ in range(10):
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
        time.sleep(rng.uniform(0.5, 4.0))  # the interpreter starts in about a second; the batch takes a few
        child.kill()
        child.communicate()
    done = subprocess.run(command, capture_output=True, text=True, env=_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    recorded = [line for line in done.stdout.splitlines() if line.startswith("vote ")]
    again = [line for line in done.stdout.splitlines() if line.startswith("already recorded")]
    assert len(recorded) + len(again) == 300
    with read_session(project.engine) as session:
        keys = session.execute(select(Vote.batch_key)).scalars().all()
    assert len(keys) == 300 and len(set(keys)) == 300  # each row once, whatever the kills left
    resent = subprocess.run(command, capture_output=True, text=True, env=_env(), timeout=300)
    assert resent.stdout.count("already recorded") == 300 and "recording 0 votes" in resent.stderr


def test_batch_rows_with_their_own_keys(project, add_mistakes, tmp_path, capsys):
    items = add_mistakes(project, [(500, True), (501, True)])
    acts.add_panelist(project, "ann")
    names = [f"ILSVRC2012_val_{i.image_id:08d}.JPEG" for i in items]
    first = tmp_path / "first.csv"
    first.write_text(f"key,image,predicted,verdict\nrow-a,{names[0]},500,wrong\nrow-b,{names[1]},501,correct\n")
    assert main(["vote", str(project.root), "--panelist", "ann", "--batch", str(first)]) == 0
    assert "[row-a]" in capsys.readouterr().out
    # Another file with one of the same keys: that row is not cast again, the new one is.
    second = tmp_path / "second.csv"
    second.write_text(f"key,image,predicted,verdict\nrow-b,{names[1]},501,correct\nrow-c,{names[0]},500,unclear\n")
    assert main(["vote", str(project.root), "--panelist", "ann", "--batch", str(second)]) == 0
    out = capsys.readouterr().out
    assert "already recorded [row-b]" in out and "[row-c]" in out
    with read_session(project.engine) as session:
        assert session.execute(select(func.count(Vote.id))).scalar_one() == 3
    twice = tmp_path / "twice.csv"
    twice.write_text(f"key,image,predicted,verdict\nk,{names[0]},500,wrong\nk,{names[1]},501,wrong\n")
    assert main(["vote", str(project.root), "--panelist", "ann", "--batch", str(twice)]) == 2
    assert "key 'k' is on line 2 too" in capsys.readouterr().err


def test_a_database_failure_mid_file_records_nothing(project, add_mistakes, tmp_path, capsys):
    """The database refuses the 50th vote of a batch: none of the file is recorded."""
    from sqlalchemy import text

    items = add_mistakes(project, [(200 + i, True) for i in range(20)])
    acts.add_panelist(project, "ann")
    batch = tmp_path / "votes.csv"
    _batch_file(batch, items, 100)
    with project.engine.begin() as conn:  # a disk that fails on the 50th row
        if project.engine.dialect.name == "sqlite":
            conn.execute(text("CREATE TRIGGER fail_50 BEFORE INSERT ON vote WHEN (SELECT count(*) FROM vote) >= 49 "
                              "BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"))
        else:
            conn.execute(text("CREATE FUNCTION fail_50() RETURNS trigger AS $$ BEGIN IF (SELECT count(*) FROM vote) "
                              ">= 49 THEN RAISE EXCEPTION 'disk I/O error'; END IF; RETURN NEW; END $$ "
                              "LANGUAGE plpgsql"))
            conn.execute(text("CREATE TRIGGER fail_50 BEFORE INSERT ON vote FOR EACH ROW EXECUTE FUNCTION fail_50()"))
    with pytest.raises(Exception, match="disk I/O error"):
        main(["vote", str(project.root), "--panelist", "ann", "--batch", str(batch)])
    assert "vote " not in capsys.readouterr().out  # nothing was said to be recorded
    with read_session(project.engine) as session:
        assert session.execute(select(func.count(Vote.id))).scalar_one() == 0


def test_five_processes_casting_200_votes_each_at_once(project, add_mistakes, tmp_path):
    items = add_mistakes(project, [(300 + i % 700, True) for i in range(200)])
    reviewers = [acts.add_panelist(project, f"panelist {k}").value.id for k in range(5)]
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
        owner = dict(session.execute(select(Vote.id, Vote.panelist_id)).all())
    for rid, (out, _) in zip(reviewers, results):
        ids = [int(x) for x in out.split()]
        assert len(ids) == 200
        assert {owner[i] for i in ids} == {rid}  # every vote is its own panelist's


def demo_project(project):
    """The demo: its 300 shipped images and the bundled EfficientNet-Lite0's recorded top-1
    (assets/demo/manifest.json), so the panel reviews the demo's real 121 mistakes."""
    import json

    from review_data import add_run
    from sqlalchemy import select as sql_select

    from db.tables import Image
    from reviewer.app.imports import import_images
    from reviewer.paths import asset

    manifest = json.loads(asset("demo", "manifest.json").read_text())
    import_images(project, asset("demo", "images"))
    with read_session(project.engine) as session:
        ids = dict(session.execute(sql_select(Image.file_name, Image.id)).all())
    add_run(project, "tf_efficientnet_lite0", {ids[e["file"]]: e["lite0_top1"] for e in manifest["images"]})
    return manifest["mistakes"]


def test_three_panelists_review_the_demo_independently_then_the_chair_decides(project, tmp_path, capsys):
    """The panel's process end to end through the command line, one voting process per panelist."""

    top1_errors = demo_project(project)
    items = snapshot_of(project).items
    # The demo's top-1 errors, less the few a collapsed class mapping accepts (a label subsuming the prediction).
    assert top1_errors - 10 <= len(items) <= top1_errors
    c = [len(range(k, len(items), 4)) for k in range(4)]  # items per pattern
    patterns = [("wrong", "wrong", "wrong"), ("wrong", "wrong", "correct"), ("correct", "wrong", "unclear"),
                ("correct", "correct", "correct")]  # unanimous, 2:1, three-way tie, unanimous
    root, names = str(project.root), ("ann", "bob", "cy")
    assert main(["panelist", root, "ann", "--chair"]) == 0
    children = []
    for k, name in enumerate(names):
        if name != "ann":
            assert main(["panelist", root, name]) == 0
        batch = tmp_path / f"{name}.csv"
        with batch.open("w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["image", "predicted", "verdict", "note"])
            for n, item in enumerate(items):
                writer.writerow([item.image_id, item.predicted, patterns[n % 4][k], f"{name} on {n}"])
        children.append(subprocess.Popen([sys.executable, "-m", "reviewer", "vote", root, "--panelist", name,
                                          "--batch", str(batch)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, env=_env()))
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        assert out.count("\n") == len(items)
    capsys.readouterr()
    assert main(["panel-status", root]) == 0
    assert (f"Phase 1, correctness: {len(items)} items: 0 being voted, {c[1] + c[2]} awaiting the group, "
            f"{c[0] + c[3]} decided") in capsys.readouterr().out
    assert main(["decide", root, "--chair", "bob"]) == 2
    assert "bob is not the chair" in capsys.readouterr().err
    assert main(["decide", root, "--chair", "ann"]) == 0
    # Majority of the latest votes; the three-way ties are unclear.
    assert (f"ann locked {len(items)} majority decisions: correct {c[3]}, unclear {c[2]}, wrong {c[0] + c[1]}"
            in capsys.readouterr().out)
