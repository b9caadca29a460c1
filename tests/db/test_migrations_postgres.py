"""The same Alembic migrations build the schema on PostgreSQL (a networked panel)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import inspect, text
from sqlmodel import SQLModel

import db.tables  # noqa: F401
from db import migrate
from db.engine import create_engine
from reviewer.project import Project

pytestmark = pytest.mark.postgres


def test_migrations_upgrade_step_by_step_on_postgresql(postgres_url):
    engine = create_engine(postgres_url)
    try:
        migrate.upgrade(engine, "0001")
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO image (file_name, problematic) VALUES ('a.JPEG', false)"))
        migrate.upgrade(engine)
        assert migrate.current_revision(engine) == migrate.head_revision()
        inspector = inspect(engine)
        for table in SQLModel.metadata.sorted_tables:
            assert {c["name"] for c in inspector.get_columns(table.name)} == {c.name for c in table.columns}, \
                table.name
        with engine.connect() as conn:
            assert conn.execute(text("SELECT file_name FROM image")).scalar_one() == "a.JPEG"
    finally:
        engine.dispose()


def test_a_project_on_postgresql_keeps_its_url(postgres_url, tmp_path):
    project = Project.create(tmp_path / "p", db_url=postgres_url)
    project.close()
    assert json.loads((tmp_path / "p" / "project.json").read_text())["db_url"] == postgres_url
    reopened = Project.open(tmp_path / "p")
    try:
        assert reopened.engine.dialect.name == "postgresql" and reopened.name == "p"
    finally:
        reopened.close()
