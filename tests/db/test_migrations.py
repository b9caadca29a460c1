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
