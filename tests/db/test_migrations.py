"""Schema migrations: a project made at an older revision opens with today's app."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import inspect, text
from sqlmodel import SQLModel

import db.tables  # noqa: F401
from db import migrate
from db.engine import create_engine
from reviewer.project import Project, ProjectError


def test_first_revision_upgrades_to_head_keeping_data(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    migrate.upgrade(engine, "0001")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO image (file_name, problematic) VALUES ('a.JPEG', 0)"))
    migrate.upgrade(engine)
    assert migrate.current_revision(engine) == migrate.head_revision()
    with engine.connect() as conn:
        assert conn.execute(text("SELECT file_name FROM image")).scalar_one() == "a.JPEG"


def test_head_schema_matches_the_tables(tmp_path):
    """Every table and column of db/tables.py exists after the migrations (no
    change to the tables without a migration)."""
    engine = create_engine(f"sqlite:///{tmp_path / 'p.db'}")
    migrate.upgrade(engine)
    inspector = inspect(engine)
    for table in SQLModel.metadata.sorted_tables:
        columns = {c["name"] for c in inspector.get_columns(table.name)}
        assert columns == {c.name for c in table.columns}, table.name


def test_newer_schema_is_refused(tmp_path):
    project = Project.create(tmp_path / "p")
    with project.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
    project.close()
    with pytest.raises(ProjectError, match="update the app"):
        Project.open(tmp_path / "p")


def test_open_errors_name_the_folder(tmp_path):
    with pytest.raises(ProjectError, match="is not a review project"):
        Project.open(tmp_path)
    Project.create(tmp_path / "p")
    with pytest.raises(ProjectError, match="already a project"):
        Project.create(tmp_path / "p")
    (tmp_path / "p" / "project.json").write_text("{broken")
    with pytest.raises(ProjectError, match="unreadable"):
        Project.open(tmp_path / "p")


def test_sqlite_is_in_wal_mode_with_foreign_keys(tmp_path):
    project = Project.create(tmp_path / "p")
    with project.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    assert json.loads((tmp_path / "p" / "project.json").read_text())["db_url"] is None


def test_a_project_made_at_0001_with_votes_opens_today(tmp_path):
    """0002 rebuilds the vote table on SQLite (a column with a foreign key): every vote survives."""
    root = tmp_path / "old"
    root.mkdir()
    (root / "project.json").write_text(json.dumps({"format": 1, "db_url": None}))
    engine = create_engine(f"sqlite:///{root / 'project.db'}")
    migrate.upgrade(engine, "0001")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO image (id, file_name, problematic) VALUES (1, 'ILSVRC2012_val_00000001.JPEG', 0)"))
        conn.execute(text("INSERT INTO reviewer (id, name, is_chair, created_at) VALUES (1, 'ann', 1, '2026-01-01')"))
        for verdict in ("wrong", "correct"):
            conn.execute(text(
                "INSERT INTO vote (image_id, predicted, reviewer_id, verdict, problematic, note, retracted, created_at)"
                f" VALUES (1, 65, 1, '{verdict}', 0, 'a note', 0, '2026-01-01')"))
    engine.dispose()
    project = Project.open(root)
    assert migrate.current_revision(project.engine) == migrate.head_revision() != "0001"
    with project.engine.connect() as conn:
        rows = conn.execute(text("SELECT verdict, note, undoes, p.name FROM vote JOIN panelist p ON p.id = panelist_id "
                                 "ORDER BY vote.id")).all()
    assert [tuple(r) for r in rows] == [("wrong", "a note", None, "ann"), ("correct", "a note", None, "ann")]


NEXT_MIGRATION = '''"""a column the next version adds

Revision ID: 9001
Revises: {head}
"""
import sqlalchemy as sa
from alembic import op

revision = "9001"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("image", schema=None) as batch_op:
        batch_op.add_column(sa.Column("next_version_note", sa.String(), nullable=True))


def downgrade():
    with op.batch_alter_table("image", schema=None) as batch_op:
        batch_op.drop_column("next_version_note")
'''


def test_a_project_made_today_opens_with_the_next_version(tmp_path, shared_data, monkeypatch):
    """The next app version ships one more migration; today's project (with its labels,
    a review and the ImageNet-M slice) is upgraded on open and keeps all of it."""
    import shutil

    from reviewer.app.imports import import_review, init_project

    project, _ = init_project(tmp_path / "p", labels=[shared_data / "formats" / "tfds_v3_sample.json"])
    import_review(project, shared_data / "imagenet-mistakes" / "vit3b_mistakes.json", model="vit3b")
    tables = ("image", "label", "image_slice", "problematic_mark", "imported_review_item")

    def counts(engine):
        with engine.connect() as conn:
            return {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one() for t in tables}

    before = counts(project.engine)
    project.close()
    next_dir = tmp_path / "next_migrations"
    shutil.copytree(migrate.MIGRATIONS_DIR, next_dir, ignore=shutil.ignore_patterns("__pycache__"))
    (next_dir / "versions" / "9001_next.py").write_text(NEXT_MIGRATION.format(head=migrate.head_revision()))
    monkeypatch.setattr(migrate, "MIGRATIONS_DIR", next_dir)
    reopened = Project.open(tmp_path / "p")
    assert migrate.current_revision(reopened.engine) == "9001"
    assert counts(reopened.engine) == before and before["imported_review_item"] == 378
    assert "next_version_note" in {c["name"] for c in inspect(reopened.engine).get_columns("image")}
    reopened.close()
    monkeypatch.undo()  # today's app again: refuses the newer schema instead of damaging it
    with pytest.raises(ProjectError, match="update the app"):
        Project.open(tmp_path / "p")


def test_the_database_refuses_values_outside_the_vocabularies(tmp_path):
    """CHECK constraints (0004): a verdict, category or run status written around the app
    is refused by the database itself."""
    from sqlalchemy.exc import IntegrityError

    project = Project.create(tmp_path / "p")
    with project.engine.begin() as conn:
        conn.execute(text("INSERT INTO image (id, file_name, problematic, multilabel) VALUES (1, 'a.JPEG', 0, 0)"))
        conn.execute(text("INSERT INTO panelist (id, name, is_chair, created_at) VALUES (1, 'ann', 0, '2026-01-01')"))
    good = ("INSERT INTO vote (image_id, predicted, panelist_id, verdict, problematic, severity, category, note, "
            "retracted, created_at) VALUES (1, 5, 1, {}, 0, {}, {}, '', 0, '2026-01-01')")
    with project.engine.begin() as conn:
        conn.execute(text(good.format("'wrong'", "'major'", "'fine_grained'")))
        conn.execute(text(good.format("NULL", "NULL", "NULL")))
    for verdict, severity, category in (("'Wrong'", "NULL", "NULL"), ("NULL", "'borderline'", "NULL"),
                                        ("NULL", "NULL", "'fine grained'")):
        with pytest.raises(IntegrityError, match="CHECK constraint failed"):
            with project.engine.begin() as conn:
                conn.execute(text(good.format(verdict, severity, category)))
    with pytest.raises(IntegrityError, match="CHECK constraint failed"):
        with project.engine.begin() as conn:
            conn.execute(text("INSERT INTO model (id, name, source) VALUES (1, 'm', 'hub')"))
            conn.execute(text("INSERT INTO run (model_id, status, num_images, device, preprocessing, report, "
                              "created_at) VALUES (1, 'done', 0, '', '{}', '{}', '2026-01-01')"))


def test_the_checks_are_the_vocabularies_of_the_app():
    """The values 0004 writes out are reviewer.terms' (so the two cannot drift apart)."""
    import importlib.util

    from reviewer.terms import Category, DecisionMethod, RunStatus, Severity, Verdict, values

    path = migrate.MIGRATIONS_DIR / "versions" / "0004_vocabulary_checks.py"
    spec = importlib.util.spec_from_file_location("checks", path)
    checks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checks)
    assert list(checks.VERDICTS) == values(Verdict)
    assert list(checks.SEVERITIES) == values(Severity)
    assert list(checks.PANEL_SEVERITIES) == [s.value for s in Severity.panel()]
    assert list(checks.CATEGORIES) == values(Category)
    assert list(checks.RUN_STATUSES) == values(RunStatus)
    assert list(checks.DECISION_METHODS) == [m.value for m in DecisionMethod if m.stored]


OPENER = r"""
import os, sys, time
from reviewer.project import Project
root, ready, go = sys.argv[1:4]
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.001)
Project.open(root).close()
print("opened", flush=True)
"""


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_five_processes_opening_an_older_project_at_once_all_open_it(tmp_path, request, backend):
    """The first upgrades the schema; the others wait for it (no 'database is locked')."""
    import os
    import subprocess
    import sys
    import time

    url = request.getfixturevalue("postgres_url") if backend == "postgresql" else None
    root = tmp_path / "old"
    root.mkdir()
    (root / "project.json").write_text(json.dumps({"format": 1, "db_url": url}))
    engine = create_engine(url or f"sqlite:///{root / 'project.db'}")
    migrate.upgrade(engine, "0001")
    engine.dispose()
    go = tmp_path / "go"
    children = [subprocess.Popen([sys.executable, "-c", OPENER, str(root), str(tmp_path / f"ready{k}"), str(go)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ})
                for k in range(5)]
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready{k}").exists() for k in range(5)):
        assert time.monotonic() < deadline and all(c.poll() is None for c in children)
        time.sleep(0.005)
    go.touch()
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0 and out.strip() == "opened", err
    engine = create_engine(url or f"sqlite:///{root / 'project.db'}")
    assert migrate.current_revision(engine) == migrate.head_revision()
    engine.dispose()


def test_a_downgrade_that_would_lose_undo_links_is_refused_and_changes_nothing(tmp_path):
    from reviewer.app import panel as acts

    project = Project.create(tmp_path / "p")
    project.write(lambda s: s.execute(text(
        "INSERT INTO image (id, file_name, problematic, multilabel) VALUES (1, 'ILSVRC2012_val_00000001.JPEG', "
        "false, false)")))
    ann = acts.add_panelist(project, "ann").value.id
    project.write(lambda s: s.execute(text(
        "INSERT INTO vote (image_id, predicted, panelist_id, problematic, note, retracted, created_at) "
        f"VALUES (1, 65, {ann}, false, '', false, '2026-01-01')")))
    acts.undo(project, panelist_id=ann)
    with pytest.raises(RuntimeError, match="1 votes are undos"):
        migrate.downgrade(project.engine, "0001")
    assert migrate.current_revision(project.engine) == migrate.head_revision()  # not even the later steps ran
    with project.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM vote WHERE undoes IS NOT NULL")).scalar_one() == 1
    migrate.downgrade(project.engine, "0002")  # no data lost by these steps: allowed
    assert migrate.current_revision(project.engine) == "0002"
    project.close()


def test_a_downgrade_below_0003_is_refused_when_the_real_tfds_file_lists_classes_under_two_kinds(tmp_path,
                                                                                                 shared_data):
    """The TFDS v3 file lists some classes of an image under two kinds; the schema before
    0003 holds one kind per class, so going back would lose them: refused, nothing changed."""
    import csv
    import subprocess
    import sys

    labels = shared_data / "published" / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv"
    made = subprocess.run([sys.executable, "-m", "reviewer", "init", str(tmp_path / "p"), "--labels", str(labels)],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    # Independently of the app: label rows of a class listed under two or more kinds.
    doubled = 0
    with labels.open(newline="") as f:
        for row in csv.DictReader(f):
            kinds: dict[str, int] = {}
            for column in ("proposed_labels", "unclear_multi_labels", "wrong_multi_labels"):
                # (a class repeated within one column is one label: val_00000955 lists 622 twice)
                for cls in {c.strip() for c in row[column].split(",") if c.strip()}:
                    kinds[cls] = kinds.get(cls, 0) + 1
            doubled += sum(n for n in kinds.values() if n > 1)
    assert doubled > 700
    project = Project.open(tmp_path / "p")
    with project.engine.connect() as conn:
        before = conn.execute(text("SELECT count(*) FROM label")).scalar_one()
    with pytest.raises(RuntimeError, match=f"{doubled} label rows list a class under two kinds"):
        migrate.downgrade(project.engine, "0002")
    assert migrate.current_revision(project.engine) == migrate.head_revision()
    with project.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM label")).scalar_one() == before
    project.close()


def test_a_current_project_opens_without_loading_alembic(tmp_path):
    """The usual open finds the schema current from the migration files read as text
    (alembic's import is 0.3-1 s of every command's start); it agrees with alembic's head,
    and a project one revision behind is still upgraded by alembic."""
    import subprocess
    import sys

    versions = migrate.MIGRATIONS_DIR / "versions"
    assert migrate._file_head(versions, versions.stat().st_mtime_ns) == migrate.head_revision()
    Project.create(tmp_path / "p").close()
    probe = ("import sys; from reviewer.project import Project; Project.open(sys.argv[1]).close(); "
             "print('alembic' in sys.modules)")
    opened = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "p")], capture_output=True, text=True,
                            timeout=120)
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout.strip() == "False"
    engine = create_engine(f"sqlite:///{tmp_path / 'behind.db'}")
    migrate.upgrade(engine, "0001")
    assert not migrate._at_head(engine)
    migrate.upgrade(engine)
    assert migrate._at_head(engine) and migrate.current_revision(engine) == migrate.head_revision()


def test_0012_names_the_panel_panelists_and_keeps_every_row(tmp_path):
    """Revision 0012 renames reviewer -> panelist (and vote/discussion_note.reviewer_id ->
    panelist_id): votes, notes, batch keys, decisions and lock rows carry over, the unique batch
    key still refuses a repeat, a new panelist still gets its lock row; down and up again alike."""
    engine = create_engine(f"sqlite:///{tmp_path / 'p.db'}")
    migrate.upgrade(engine, "0011")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO image (id, file_name, problematic) VALUES (1, 'a.JPEG', 0)"))
        conn.execute(text("INSERT INTO reviewer (id, name, is_chair, created_at) VALUES (7, 'ann', 1, '2026-01-01')"))
        conn.execute(text("INSERT INTO vote (image_id, predicted, reviewer_id, verdict, problematic, note, retracted, "
                          "batch_key, created_at) VALUES (1, 65, 7, 'wrong', 0, '', 0, 'k1', '2026-01-01')"))
        conn.execute(text("INSERT INTO discussion_note (image_id, predicted, reviewer_id, text, created_at) "
                          "VALUES (1, 65, 7, 'a note', '2026-01-01')"))
        conn.execute(text("INSERT INTO decision (image_id, predicted, verdict, problematic, method, reason, decided_by, "
                          "created_at) VALUES (1, 65, 'wrong', 0, 'majority', '', 7, '2026-01-01')"))
    for _ in range(2):  # up, then down and up again
        migrate.upgrade(engine)
        inspector = inspect(engine)
        assert "reviewer" not in inspector.get_table_names() and "panelist" in inspector.get_table_names()
        assert {i["name"] for i in inspector.get_indexes("vote")} >= {"ix_vote_panelist_id", "uq_vote_panelist_batch_key"}
        with engine.begin() as conn:
            assert conn.execute(text("SELECT p.name, v.verdict, n.text, d.decided_by FROM vote v "
                                     "JOIN panelist p ON p.id = v.panelist_id "
                                     "JOIN discussion_note n ON n.panelist_id = p.id "
                                     "JOIN decision d ON d.decided_by = p.id")).one() == ("ann", "wrong", "a note", 7)
            with pytest.raises(Exception, match="UNIQUE"):
                with conn.begin_nested():
                    conn.execute(text("INSERT INTO vote (image_id, predicted, panelist_id, verdict, problematic, note, "
                                      "retracted, batch_key, created_at) VALUES (1, 65, 7, 'wrong', 0, '', 0, 'k1', "
                                      "'2026-01-01')"))
        migrate.downgrade(engine, "0011")
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM vote WHERE reviewer_id = 7")).scalar_one() == 1
    migrate.upgrade(engine)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO panelist (id, name, is_chair, created_at) VALUES (8, 'bob', 0, '2026-01-02')"))
        assert conn.execute(text("SELECT count(*) FROM app_lock WHERE scope = 1 AND key = 8")).scalar_one() == 1
    engine.dispose()
