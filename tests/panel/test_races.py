"""One panelist writing from several processes at once (two windows, a window and a
script), on SQLite and PostgreSQL: simultaneous single-field votes on one item all
count, and simultaneous undos undo different acts, never one act twice (20 rounds
each, real processes released together)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from sqlalchemy import select

from db.engine import read_session
from db.tables import Vote
from reviewer.app import panel as acts
from reviewer.panel.votes import current_vote

pytestmark = pytest.mark.slow
ROUNDS = 20

# A process of the panelist: opens the project, says it is ready, then for each round
# waits for the round's start file, does its act, and says it is done.
WORKER = r"""
import os, sys, time
from reviewer.app import panel as acts
from reviewer.items import Item
from reviewer.project import Project
root, panelist_id, k, folder, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
items = [tuple(map(int, pair.split(":"))) for pair in sys.argv[6].split(",")] if len(sys.argv) > 6 else []
FIELDS = [dict(problematic=True), dict(verdict="wrong"), dict(severity="major"), dict(category="fine_grained")]
project = Project.open(root)
open(os.path.join(folder, f"ready{k}"), "w").close()
for r in range(int(os.environ["ROUNDS"])):
    go = os.path.join(folder, f"go{r}")
    while not os.path.exists(go):
        time.sleep(0.001)
    if mode == "fields":
        acts.vote(project, panelist_id=panelist_id, item=Item(*items[r]), **FIELDS[k])
    else:
        row = acts.undo(project, panelist_id=panelist_id).value
        print(r, row.undoes if row is not None else None, flush=True)
    open(os.path.join(folder, f"done{r}_{k}"), "w").close()
"""


def start(project, panelist_id: int, n: int, folder, mode: str, items=()):
    folder.mkdir()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "ROUNDS": str(ROUNDS)}
    pairs = [",".join(f"{i.image_id}:{i.predicted}" for i in items)] if items else []
    children = [subprocess.Popen([sys.executable, "-c", WORKER, str(project.root), str(panelist_id), str(k),
                                  str(folder), mode, *pairs],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                for k in range(n)]
    wait_for(children, [folder / f"ready{k}" for k in range(n)])
    return children


def wait_for(children, files) -> None:
    deadline = time.monotonic() + 180
    while not all(f.exists() for f in files):
        assert time.monotonic() < deadline, "the panelist's processes stalled"
        assert all(c.poll() is None for c in children), [c.communicate() for c in children]
        time.sleep(0.002)


def finish(children) -> list[str]:
    outs = []
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        outs.append(out)
    return outs


def test_simultaneous_single_field_votes_of_one_panelist_all_count(project, add_mistakes, tmp_path):
    items = add_mistakes(project, [(100 + r, True) for r in range(ROUNDS)])
    bob = acts.add_panelist(project, "bob").value.id
    folder = tmp_path / "fields"
    children = start(project, bob, 4, folder, "fields", items)
    for r in range(ROUNDS):
        (folder / f"go{r}").touch()  # four processes vote one field each on item r, at once
        wait_for(children, [folder / f"done{r}_{k}" for k in range(4)])
    finish(children)
    with read_session(project.engine) as session:
        for item in items:
            state = current_vote(session=session, panelist_id=bob, item=item)
            assert (state.problematic, state.verdict, state.severity, state.category) == (
                True, "wrong", "major", "fine_grained"), item


def test_simultaneous_undos_undo_different_acts(project, add_mistakes, tmp_path):
    items = add_mistakes(project, [(200 + i, True) for i in range(5)])
    bob = acts.add_panelist(project, "bob").value.id
    folder = tmp_path / "undo"
    children = start(project, bob, 5, folder, "undo")
    cast = []
    for r in range(ROUNDS):
        cast.append([acts.vote(project, panelist_id=bob, item=item, verdict="wrong", note=f"round {r}").value.id
                     for item in items])
        (folder / f"go{r}").touch()  # five undos at once: the round's five votes, each once
        wait_for(children, [folder / f"done{r}_{k}" for k in range(5)])
    outs = finish(children)
    undone: dict[int, list[int]] = {}
    for out in outs:
        for r, target in (line.split() for line in out.splitlines()):
            undone.setdefault(int(r), []).append(int(target))
    for r in range(ROUNDS):
        assert sorted(undone[r]) == sorted(cast[r]), r
    with read_session(project.engine) as session:
        targets = session.execute(select(Vote.undoes).where(Vote.undoes.is_not(None))).scalars().all()
    assert len(targets) == len(set(targets)) == 5 * ROUNDS  # no act undone twice
