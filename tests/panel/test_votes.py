"""Votes: append-only history, undo in the core, blind visibility, attribution."""

from __future__ import annotations

import pytest

from db.tables import Image
from db.engine import write_session
from reviewer.panel.votes import (VoteError, can_undo, cast_vote, current_vote, current_votes, get_reviewer,
                                  undo_last, visible_votes, vote_history)
from reviewer.project import Project


@pytest.fixture
def project(tmp_path):
    project = Project.create(tmp_path / "p")
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
