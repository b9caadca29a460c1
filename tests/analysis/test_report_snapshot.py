"""A report taken while the panel is deciding is one moment of the database: a decision
committed half-way through `build_report` is in every table of it or in none. Kept
(reviewer.analysis.cache), such a report is kept under the key of its own moment, so the
next report sees the decision."""

from __future__ import annotations

import pytest
from review_data import add_images, add_run, decide

import reviewer.analysis.report as report_module
from reviewer.app.report import build_report
from reviewer.project import Project

TABLES = ("categories", "severities", "mla", "reviewed", "confusions", "by_distance")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def project(request, tmp_path):
    """Classes 1-6; the run gets 4, 5 and 6 wrong; (4, 40) and (5, 50) are decided, (6, 60) not yet.
    On SQLite (one WAL read transaction) and PostgreSQL (REPEATABLE READ)."""
    db_url = request.getfixturevalue("migrated_postgres_url") if request.param == "postgresql" else None
    project = Project.create(tmp_path / "p", db_url=db_url)
    ids = add_images(project, [1, 2, 3, 4, 5, 6])
    add_run(project, "model-A", dict(zip(ids, [1, 2, 3, 40, 50, 60])), probs=dict.fromkeys(ids, 0.8))
    decide(project, ids[3], 40, "correct")
    decide(project, ids[4], 50, "wrong", severity="minor", category="fine_grained")
    project.pending = ids[5]
    yield project
    project.close()


def _tables(report) -> dict:
    return {name: getattr(report, name).reset_index(drop=True) for name in TABLES}


def _same(a: dict, b: dict) -> bool:
    return all(a[name].equals(b[name]) for name in TABLES)


def test_a_decision_committed_mid_report_is_in_no_table_of_it(project, monkeypatch):
    before = _tables(build_report(project, keep=False))
    assert not (project.root / "cache").exists()  # nothing kept: the next report is computed
    original = report_module.decisions_table

    def decide_meanwhile(*, session):
        # Another panelist's decision lands after the label views and the summary were read,
        # before the decision tables are: on another connection, committed at once.
        decide(project, project.pending, 60, "wrong", severity="major", category="spurious_correlation")
        return original(session=session)

    monkeypatch.setattr(report_module, "decisions_table", decide_meanwhile)
    during = _tables(build_report(project))
    monkeypatch.undo()
    after = _tables(build_report(project))

    assert _same(during, before)  # the snapshot: the decision is in none of the tables ...
    assert not _same(after, before)  # ... though it changes them once the next report is taken
    assert int(after["severities"].drop(columns="model", errors="ignore").to_numpy().sum()) > \
        int(before["severities"].drop(columns="model", errors="ignore").to_numpy().sum())
