"""Polling for others' new votes: what a window learns without a restart, blind."""

from __future__ import annotations

from reviewer.panel.changes import changes_since, latest_cursor
from reviewer.panel.decisions import lock_decision
from reviewer.panel.discussion import add_note
from reviewer.panel.votes import cast_vote, undo_last


def test_new_votes_show_only_on_items_the_viewer_has_voted(panel):
    project, (ann, bob, cy), items = panel
    seen, unseen = items[0], items[1]
    cast_vote(project, reviewer_id=ann, image_id=unseen.image_id, predicted=unseen.predicted, verdict="wrong")
    cast_vote(project, reviewer_id=bob, image_id=seen.image_id, predicted=seen.predicted, verdict="wrong")
    cursor = latest_cursor(project)
    assert changes_since(project, viewer_id=bob, cursor=cursor).empty

    cast_vote(project, reviewer_id=ann, image_id=seen.image_id, predicted=seen.predicted, verdict="correct",
              severity="major", note="it is a toy")
    cast_vote(project, reviewer_id=cy, image_id=unseen.image_id, predicted=unseen.predicted, verdict="wrong")
    changes = changes_since(project, viewer_id=bob, cursor=cursor)
    assert changes.items == {seen}
    assert [(v.reviewer_id, v.verdict, v.severity, v.note) for v in changes.votes] == [
        (ann, "correct", None, "it is a toy")]  # severity hidden: bob has not voted one
    assert changes.hidden == 1  # cy's vote on an item bob has not voted: counted, not shown

    # The next poll from the returned cursor is empty; one's own votes are no news.
    cast_vote(project, reviewer_id=bob, image_id=unseen.image_id, predicted=unseen.predicted, verdict="wrong")
    later = changes_since(project, viewer_id=bob, cursor=changes.cursor)
    assert later.empty and later.cursor.vote_id > changes.cursor.vote_id

    # An undo, a note and the chair's lock all reach bob.
    undo_last(project, reviewer_id=ann)
    add_note(project, reviewer_id=cy, image_id=unseen.image_id, predicted=unseen.predicted, text="agreed")
    lock_decision(project, chair_id=ann, image_id=unseen.image_id, predicted=unseen.predicted)
    news = changes_since(project, viewer_id=bob, cursor=later.cursor)
    assert news.items == {seen, unseen}
    assert [n.text for n in news.notes] == ["agreed"]
    assert [d.verdict for d in news.decisions] == ["wrong"]
    assert news.votes == ()  # ann's vote on `seen` was retracted by her undo


def test_no_cursor_starts_from_now(panel):
    project, (ann, bob, _cy), items = panel
    cast_vote(project, reviewer_id=ann, image_id=items[0].image_id, predicted=items[0].predicted, verdict="wrong")
    first = changes_since(project, viewer_id=bob)
    assert first.empty and first.cursor == latest_cursor(project)
