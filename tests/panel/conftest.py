"""Panel fixtures: every panel-logic test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from reviewer.app import panel as acts
from reviewer.project import Project


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def project(request, tmp_path):
    """An empty project on SQLite, or on a fresh PostgreSQL database."""
    db_url = request.getfixturevalue("postgres_url") if request.param == "postgresql" else None
    project = Project.create(tmp_path / "p", db_url=db_url)
    yield project
    project.close()


@pytest.fixture
def panel(project, add_mistakes):
    """Three panelists (ann chairs) on a project with six novel and two known mistakes."""
    items = add_mistakes(project, [(10 + i, True) for i in range(6)] + [(50, False), (51, False)])
    ids = [acts.add_panelist(project, name, chair=name == "ann").value.id for name in ("ann", "bob", "cy")]
    return project, ids, items
