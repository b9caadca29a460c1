"""Fixtures of the evidence tests: the published files in tests/data/published (the real
files, some trimmed: tests/data/README.md), and one project holding all of them (imported
once per session: raters.npz alone takes seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest
from evidence_data import GROUND_TRUTH, published_files, table_counts
from project_data import new_project

from reviewer.project import Project


@pytest.fixture(scope="session")
def published(shared_data) -> Path:
    return shared_data / "published"


@pytest.fixture(scope="session")
def full_project(tmp_path_factory, published, shared_data):
    """A project made from the TFDS v3 sample labels, with every published file imported as evidence.
    Yields (project, results of the import, ground-truth row counts before the import)."""
    from reviewer.app.evidence import import_evidence
    from reviewer.app.imports import init_project

    project, _ = init_project(tmp_path_factory.mktemp("evidence") / "p",
                              labels=[shared_data / "formats" / "tfds_v3_sample.json"])
    before = table_counts(project, GROUND_TRUTH)
    results = import_evidence(project, published_files(published)).value
    yield project, results, before
    project.close()


@pytest.fixture
def project(tmp_path) -> Project:
    project = new_project(tmp_path / "p")
    yield project
    project.close()
