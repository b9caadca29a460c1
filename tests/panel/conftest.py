"""Panel fixtures: every panel-logic test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from reviewer.app import panel as acts
from reviewer.project import Project


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def project(request, tmp_path, templates):
    """An empty project on SQLite (made once, copied per test), or on a fresh PostgreSQL database."""
    if request.param == "postgresql":
        project = Project.create(tmp_path / "p", db_url=request.getfixturevalue("migrated_postgres_url"))
    else:
        project = templates.new(tmp_path / "p")
    yield project
    project.close()


@pytest.fixture
def panel(project, add_mistakes):
    """Three panelists (ann chairs) on a project with six novel and two known mistakes."""
    items = add_mistakes(project, [(10 + i, True) for i in range(6)] + [(50, False), (51, False)])
    ids = [acts.add_panelist(project, name, chair=name == "ann").value.id for name in ("ann", "bob", "cy")]
    return project, ids, items
