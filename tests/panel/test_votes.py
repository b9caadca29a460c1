"""Votes: append-only history, undo in the core, blind visibility, attribution."""

from __future__ import annotations

import pytest

from db.tables import Image
from db.engine import write_session
from reviewer.panel.votes import (VoteError, amend_vote, can_undo, cast_vote, current_vote, current_votes,
                                  get_reviewer, panelists, undo_last, visible_votes, vote_history)


@pytest.fixture
def project(project):
    """The conftest's project (SQLite, then PostgreSQL) with two images."""
    with write_session(project.engine) as session:
        session.add_all([Image(file_name=f"ILSVRC2012_val_{i:08d}.JPEG") for i in (1, 2)])
    return project


def test_vote_merge_history_and_undo(project):
    ann = get_reviewer(project, "ann").id
    cast_vote(project, reviewer_id=ann, image_id=1, predicted=5, verdict="wrong")
    cast_vote(project, reviewer_id=ann, image_id=1, predicted=5, severity="major", category="fine_grained_oov",
              oov_name="kumquat")
    state = current_vote(project, reviewer_id=ann, image_id=1, predicted=5)
    assert (state.verdict, state.severity, state.category, state.oov_name) == ("wrong", "major",
                                                                              "fine_grained_oov", "kumquat")
    undo_last(project, reviewer_id=ann)
    state = current_vote(project, reviewer_id=ann, image_id=1, predicted=5)
    assert (state.verdict, state.severity) == ("wrong", None)
    undo_last(project, reviewer_id=ann)
    assert current_vote(project, reviewer_id=ann, image_id=1, predicted=5).empty
    assert not can_undo(project, reviewer_id=ann)
    assert undo_last(project, reviewer_id=ann) is None
    assert len(vote_history(project, image_id=1, predicted=5)) == 4  # nothing is ever deleted
    assert current_votes(project, image_id=1, predicted=5) == []


def test_bad_values_are_refused(project):
    ann = get_reviewer(project, "ann").id
    with pytest.raises(VoteError, match="verdict must be one of"):
        cast_vote(project, reviewer_id=ann, image_id=1, predicted=5, verdict="maybe")
    with pytest.raises(VoteError, match="no reviewer"):
        cast_vote(project, reviewer_id=999, image_id=1, predicted=5, verdict="wrong")


def test_blind_until_voted(project):
    ann, bob = get_reviewer(project, "ann").id, get_reviewer(project, "bob").id
    cast_vote(project, reviewer_id=ann, image_id=2, predicted=7, verdict="correct")
    assert visible_votes(project, viewer_id=bob, image_id=2, predicted=7) is None
    assert [v.verdict for v in visible_votes(project, viewer_id=bob, image_id=2, predicted=7, blind=False)] == [
        "correct"]
    cast_vote(project, reviewer_id=bob, image_id=2, predicted=7, verdict="wrong")
    seen = visible_votes(project, viewer_id=bob, image_id=2, predicted=7)
    assert [(v.reviewer_id, v.verdict) for v in seen] == [(ann, "correct")]
    # Undo only touches one's own votes.
    undo_last(project, reviewer_id=bob)
    assert current_vote(project, reviewer_id=ann, image_id=2, predicted=7).verdict == "correct"


def test_blind_per_field_and_others_votes_cannot_be_changed(project):
    ann, bob = get_reviewer(project, "ann").id, get_reviewer(project, "bob", chair=True).id
    ann_vote = cast_vote(project, reviewer_id=ann, image_id=1, predicted=5, verdict="wrong", severity="major",
                         category="fine_grained", note="a finch, not a sparrow")
    cast_vote(project, reviewer_id=bob, image_id=1, predicted=5, verdict="wrong")
    [seen] = visible_votes(project, viewer_id=bob, image_id=1, predicted=5)
    # Bob has voted the verdict only: ann's severity and category stay hidden until he votes them.
    assert (seen.verdict, seen.severity, seen.category) == ("wrong", None, None)
    assert seen.note == "a finch, not a sparrow"
    cast_vote(project, reviewer_id=bob, image_id=1, predicted=5, severity="minor", category="non_prototypical")
    [seen] = visible_votes(project, viewer_id=bob, image_id=1, predicted=5)
    assert (seen.severity, seen.category) == ("major", "fine_grained")

    # Even the chair cannot change ann's vote; ann can, and her old row stays in history.
    with pytest.raises(VoteError, match="bob cannot change ann's vote"):
        amend_vote(project, reviewer_id=bob, vote_id=ann_vote.id, severity="minor")
    new = amend_vote(project, reviewer_id=ann, vote_id=ann_vote.id, severity="minor")
    assert new.reviewer_id == ann and new.id > ann_vote.id
    assert current_vote(project, reviewer_id=ann, image_id=1, predicted=5).severity == "minor"
    assert [v.severity for v in vote_history(project, image_id=1, predicted=5) if v.reviewer_id == ann] == [
        "major", "minor"]
    assert [p.name for p in panelists(project)] == ["ann", "bob"]
