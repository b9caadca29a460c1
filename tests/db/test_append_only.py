"""The panel's history is append-only in the database, not only by the app's habit:
raw SQL that changes or deletes a vote, a decision or a note is refused on SQLite
and PostgreSQL (TRUNCATE too), and nothing is changed."""

from __future__ import annotations

import pytest
from project_data import new_project
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from reviewer.app import panel as acts
from reviewer.project import Project


def make_history(tmp_path, add_mistakes, url):
    """A project with two votes, a lock and a note."""
    project = Project.create(tmp_path / "p", db_url=url) if url else new_project(tmp_path / "p")
    (item,) = add_mistakes(project, [(10, True)])
    ann = acts.add_panelist(project, "ann", chair=True).value.id
    bob = acts.add_panelist(project, "bob").value.id
    for who in (ann, bob):
        acts.vote(project, panelist_id=who, item=item, verdict="wrong", problematic=False)
    acts.lock(project, chair_id=ann, item=item)
    acts.note(project, panelist_id=bob, item=item, text="a shark, not a fish")
    return project


@pytest.fixture(params=["sqlite", "postgresql"])
def history(request, tmp_path, add_mistakes):
    url = request.getfixturevalue("migrated_postgres_url") if request.param == "postgresql" else None
    project = make_history(tmp_path, add_mistakes, url)
    yield project
    project.close()


def rows(project) -> dict:
    with project.engine.connect() as conn:
        return {table: conn.execute(text(f"SELECT * FROM {table} ORDER BY id")).all()
                for table in ("vote", "decision", "discussion_note")}


@pytest.mark.parametrize("statement", [
    "UPDATE vote SET verdict = 'correct' WHERE panelist_id = (SELECT id FROM panelist WHERE name = 'bob')",
    "DELETE FROM vote",
    "UPDATE decision SET verdict = 'correct'",
    "DELETE FROM decision",
    "UPDATE discussion_note SET text = 'edited'",
    "DELETE FROM discussion_note",
])
def test_changing_or_deleting_history_is_refused(history, statement):
    before = rows(history)
    with pytest.raises(DBAPIError, match="append-only"):
        with history.engine.begin() as conn:
            conn.execute(text(statement))
    assert rows(history) == before


def test_truncate_is_refused_on_postgresql(tmp_path, add_mistakes, postgres_url):
    """SQLite has no TRUNCATE (its DELETE is refused above)."""
    history = make_history(tmp_path, add_mistakes, postgres_url)
    before = rows(history)
    for table in ("vote", "decision", "discussion_note"):
        with pytest.raises(DBAPIError, match="append-only"):
            with history.engine.begin() as conn:
                conn.execute(text(f"TRUNCATE {table} CASCADE"))
    assert rows(history) == before
    history.close()


def test_the_app_still_appends(history):
    bob = acts.add_panelist(history, "bob").value.id
    item = acts.review_queue(history, run_id=1, panelist_id=bob).shown()[0].item
    acts.vote(history, panelist_id=bob, item=item, verdict="unclear")
    assert acts.undo(history, panelist_id=bob).value is not None
    assert len(rows(history)["vote"]) == 4
