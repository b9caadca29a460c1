"""Benchmark: the panel with several processes at once, and the panel's reads.

1. N processes (default 5) each casting M votes (default 200) at the same
   moment on one project, on SQLite and on PostgreSQL (if a server answers
   at REVIEWER_TEST_POSTGRES, default postgresql://postgres@127.0.0.1:5432/postgres):
   wall time from the common start to the last vote, votes/s, and the
   slowest single vote as its panelist waited for it. On PostgreSQL a third run
   makes each process a panelist's own database role (`reviewer panel-setup`:
   privileges and row-level security checked on every insert).
2. Reads on a 3-panelist project of --items mistakes: the snapshot, the
   meeting list, progress, the agreement report with --resamples bootstrap
   resamples, a `changes_since` poll.

Run: python bench/bench_panel.py [--processes 5] [--votes 200] [--items 2000] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import func, insert, select

from db.engine import read_session, write_session
from db.tables import Image, Mistake, Model, Run, Vote
from reviewer.app import panel as acts
from reviewer.project import Project

WORKER = r"""
import os, sys, time
from reviewer.project import Project
from reviewer.app.panel import vote
from reviewer.items import Item
root, panelist_id, ready, go, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
project = Project.open(root)
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.001)
slowest = 0.0
for n in range(count):
    t = time.perf_counter()
    vote(project, panelist_id=panelist_id, item=Item(1 + n % 50, 7), verdict=("wrong", "correct")[n % 2])
    slowest = max(slowest, time.perf_counter() - t)
from sqlalchemy import text
with project.read() as session:
    who = session.execute(text("SELECT current_user")).scalar_one() if project.engine.dialect.name != "sqlite" else "-"
print(time.time(), slowest, who)
"""


def make_project(root: Path, db_url: str | None, items: int) -> Project:
    project = Project.create(root, db_url=db_url)
    with write_session(project.engine) as session:
        session.execute(insert(Image), [{"file_name": f"ILSVRC2012_val_{i + 1:08d}.JPEG", "problematic": False}
                                        for i in range(items)])
        model = Model(name="bench", source="hub")
        session.add(model)
        session.flush()
        run = Run(model_id=model.id, status="complete", num_images=items)
        session.add(run)
        session.flush()
        session.execute(insert(Mistake), [{"run_id": run.id, "image_id": i + 1, "predicted": 7, "probability": 0.5,
                                           "novel": i % 5 != 0} for i in range(items)])
    return project


def concurrent_votes(project: Project, processes: int, votes: int, tmp: Path, roles: list[str] | None = None) -> None:
    """`roles`: the panelists are these database roles (panel-setup done); each process connects as its own."""
    if roles:
        named = {name: rid for rid, name in acts.names(project).items()}
        ids, envs = [named[r] for r in roles], [{**os.environ, "PGUSER": r} for r in roles]
    else:
        ids = [acts.add_panelist(project, f"bench {k}").value.id for k in range(processes)]
        envs = [None] * processes
    go = tmp / f"go-{uuid.uuid4().hex}"
    children = [subprocess.Popen([sys.executable, "-c", WORKER, str(project.root), str(rid), str(tmp / f"ready{rid}"),
                                  str(go), str(votes)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env)
                for rid, env in zip(ids, envs)]
    while not all((tmp / f"ready{rid}").exists() for rid in ids):
        time.sleep(0.005)
    start = time.time()
    go.touch()
    outs = [c.communicate() for c in children]
    errors = [err for c, (_, err) in zip(children, outs) if c.returncode or err.strip()]
    end = max(float(out.split()[0]) for out, _ in outs if out.strip())
    slowest = max(float(out.split()[1]) for out, _ in outs if out.strip())
    with read_session(project.engine) as session:
        recorded = session.execute(select(func.count(Vote.id))).scalar_one()
    total = processes * votes
    print(f"  {processes} processes x {votes} votes: {recorded}/{total} recorded, {len(errors)} errors, "
          f"{end - start:.2f} s wall, {total / (end - start):.0f} votes/s, slowest vote {1000 * slowest:.0f} ms")
    if roles:
        print("    connected as:", ", ".join(sorted({out.split()[2] for out, _ in outs if out.strip()})))
    for err in errors:
        print("   ", err.strip().splitlines()[-1])


def with_roles(project: Project, base, database: str, roles: list[str]) -> Project:
    """The project's panel as database roles, reopened with a URL that names no user (as panelists use it)."""
    from reviewer.panel import roles as panel_roles

    panel_roles.apply(project.engine, panel_roles.setup_statements(panel_roles.plan(database, roles, roles[0])))
    project.close()
    config = project.root / "project.json"
    config.write_text(config.read_text().replace(base.render_as_string(hide_password=False).rsplit("/", 1)[0],
                                                 f"postgresql://{base.host}:{base.port or 5432}"))
    os.environ.setdefault("PGUSER", base.username or "postgres")
    return Project.open(project.root)


def reads(project: Project, items: int, resamples: int) -> None:
    from reviewer.panel.agreement import agreement_report, pairwise_kappa
    from reviewer.panel.decisions import non_unanimous_items
    from reviewer.panel.phases import progress
    from reviewer.panel.snapshot import load_snapshot

    ids = [acts.add_panelist(project, name).value.id for name in ("ann", "bob", "cy")]
    verdicts = ("wrong", "correct", "unclear")
    with write_session(project.engine) as session:
        session.execute(insert(Vote), [
            {"image_id": i + 1, "predicted": 7, "panelist_id": rid, "verdict": verdicts[(i * (k + 1)) % 7 % 3],
             "severity": ("major", "minor")[(i + k) % 2], "category": "fine_grained", "problematic": False,
             "note": "", "retracted": False} for i in range(items) for k, rid in enumerate(ids)])

    def read(function):
        with project.read() as session:
            return function(session=session)

    def timed(label, fn):
        t = time.perf_counter()
        result = fn()
        print(f"  {label}: {1000 * (time.perf_counter() - t):.0f} ms")
        return result

    snap = timed(f"snapshot of {items} items x 3 panelists", lambda: read(load_snapshot))
    timed("non-unanimous items", lambda: non_unanimous_items(snap))
    timed("progress", lambda: progress(snapshot=snap))
    timed("Cohen's kappa matrix (verdict)", lambda: pairwise_kappa(snap, "verdict"))
    timed(f"agreement report, 4 fields, {resamples} resamples", lambda: agreement_report(snap, resamples=resamples))
    timed("meeting list (the meeting's rows)", lambda: acts.meeting_state(project, viewer_id=ids[0]))
    cursor = acts.cursor(project)
    timed("poll for changes (nothing new)", lambda: acts.poll(project, cursor=cursor))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=5)
    parser.add_argument("--votes", type=int, default=200)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    admin_url = os.environ.get("REVIEWER_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        print("SQLite (WAL, BEGIN IMMEDIATE, synchronous=FULL):")
        concurrent_votes(make_project(tmp / "sqlite", None, 50), args.processes, args.votes, tmp)
        reads(make_project(tmp / "sqlite-reads", None, args.items), args.items, args.resamples)
        try:
            import psycopg
            from sqlalchemy.engine import make_url

            base = make_url(admin_url)
            admin = psycopg.connect(base.set(drivername="postgresql").render_as_string(hide_password=False),
                                    autocommit=True, connect_timeout=3)
        except Exception as exc:  # no server: say so, the SQLite figures stand
            print(f"PostgreSQL: skipped ({exc})")
            return
        name = f"reviewer_bench_{uuid.uuid4().hex[:8]}"
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            url = base.set(database=name).render_as_string(hide_password=False)
            print(f"PostgreSQL ({admin.execute('SHOW server_version').fetchone()[0]}):")
            project = make_project(tmp / "pg", url, 50)
            concurrent_votes(project, args.processes, args.votes, tmp)
            project.close()
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{name}"')
            print("PostgreSQL, each panelist its own role (panel-setup: privileges and row-level security):")
            roles = [f"{name}_p{k}" for k in range(args.processes)]
            try:
                project = with_roles(make_project(tmp / "pg-roles", url, 50), base, name, roles)
                concurrent_votes(project, args.processes, args.votes, tmp, roles=roles)
                project.close()
            finally:
                admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
                for role in (*roles, f"{name}_panel", f"{name}_chair"):
                    admin.execute(f'DROP ROLE IF EXISTS "{role}"')
            admin.execute(f'CREATE DATABASE "{name}"')
            project = make_project(tmp / "pg-reads", url, args.items)
            reads(project, args.items, args.resamples)
            project.close()
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
