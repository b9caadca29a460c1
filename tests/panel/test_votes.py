"""Votes: append-only history, undo in the core, blind visibility, attribution."""

from __future__ import annotations

import pytest
from review_data import read_with

from db.engine import write_session
from db.tables import Image
from reviewer.app import panel as acts
from reviewer.items import Item
from reviewer.panel.votes import VoteError, can_undo, current_votes, panelists, vote_history


@pytest.fixture
def project(project):
    """The conftest's project (SQLite, then PostgreSQL) with two images."""
    with write_session(project.engine) as session:
        session.add_all([Image(file_name=f"ILSVRC2012_val_{i:08d}.JPEG") for i in (1, 2)])
    return project


def test_vote_merge_history_and_undo(project):
    ann = acts.add_panelist(project, "ann").value.id
    acts.vote(project, panelist_id=ann, item=Item(1, 5), verdict="wrong")
    acts.vote(project, panelist_id=ann, item=Item(1, 5), severity="major", category="fine_grained_oov",
              oov_name="kumquat")
    state = acts.my_vote(project, panelist_id=ann, item=Item(1, 5))
    assert (state.verdict, state.severity, state.category, state.oov_name) == ("wrong", "major",
                                                                              "fine_grained_oov", "kumquat")
    acts.undo(project, panelist_id=ann)
    state = acts.my_vote(project, panelist_id=ann, item=Item(1, 5))
    assert (state.verdict, state.severity) == ("wrong", None)
    acts.undo(project, panelist_id=ann)
    assert acts.my_vote(project, panelist_id=ann, item=Item(1, 5)).empty
    assert not read_with(project, can_undo, panelist_id=ann)
    assert acts.undo(project, panelist_id=ann).value is None
    assert len(read_with(project, vote_history, item=Item(1, 5))) == 4  # nothing is ever deleted
    assert read_with(project, current_votes, item=Item(1, 5)) == []


def test_bad_values_are_refused(project):
    ann = acts.add_panelist(project, "ann").value.id
    with pytest.raises(VoteError, match="verdict must be one of"):
        acts.vote(project, panelist_id=ann, item=Item(1, 5), verdict="maybe")
    with pytest.raises(VoteError, match="no panelist"):
        acts.vote(project, panelist_id=999, item=Item(1, 5), verdict="wrong")


def test_blind_until_voted(project):
    ann, bob = acts.add_panelist(project, "ann", chair=True).value.id, acts.add_panelist(project, "bob").value.id
    acts.vote(project, panelist_id=ann, item=Item(2, 7), verdict="correct")
    assert acts.others(project, viewer_id=bob, item=Item(2, 7)) is None
    # A new panel is blind whatever bob's own setting; once the chair turns the rule off, his setting decides.
    assert acts.others(project, viewer_id=bob, item=Item(2, 7), blind=False) is None
    acts.set_panel_rules(project, chair_id=ann, blind=False)
    assert acts.others(project, viewer_id=bob, item=Item(2, 7)) is None
    assert [v.verdict for v in acts.others(project, viewer_id=bob, item=Item(2, 7), blind=False)] == [
        "correct"]
    acts.vote(project, panelist_id=bob, item=Item(2, 7), verdict="wrong")
    seen = acts.others(project, viewer_id=bob, item=Item(2, 7))
    assert [(v.panelist_id, v.verdict) for v in seen] == [(ann, "correct")]
    # Undo only touches one's own votes.
    acts.undo(project, panelist_id=bob)
    assert acts.my_vote(project, panelist_id=ann, item=Item(2, 7)).verdict == "correct"


def test_blind_per_field_and_others_votes_cannot_be_changed(project):
    ann, bob = acts.add_panelist(project, "ann").value.id, acts.add_panelist(project, "bob", chair=True).value.id
    ann_vote = acts.vote(project, panelist_id=ann, item=Item(1, 5), verdict="wrong", severity="major",
                         category="fine_grained", note="a finch, not a sparrow").value
    acts.vote(project, panelist_id=bob, item=Item(1, 5), verdict="wrong")
    [seen] = acts.others(project, viewer_id=bob, item=Item(1, 5))
    # Bob has voted the verdict only: ann's severity and category stay hidden until he votes them.
    assert (seen.verdict, seen.severity, seen.category) == ("wrong", None, None)
    assert seen.note == "a finch, not a sparrow"
    acts.vote(project, panelist_id=bob, item=Item(1, 5), severity="minor", category="non_prototypical")
    [seen] = acts.others(project, viewer_id=bob, item=Item(1, 5))
    assert (seen.severity, seen.category) == ("major", "fine_grained")

    # Even the chair cannot change ann's vote; ann can, and her old row stays in history.
    with pytest.raises(VoteError, match="bob cannot change ann's vote"):
        acts.amend(project, panelist_id=bob, vote_id=ann_vote.id, severity="minor")
    new = acts.amend(project, panelist_id=ann, vote_id=ann_vote.id, severity="minor").value
    assert new.panelist_id == ann and new.id > ann_vote.id
    assert acts.my_vote(project, panelist_id=ann, item=Item(1, 5)).severity == "minor"
    assert [v.severity for v in read_with(project, vote_history, item=Item(1, 5)) if v.panelist_id == ann] == [
        "major", "minor"]
    assert [p.name for p in read_with(project, panelists)] == ["ann", "bob"]


@pytest.mark.parametrize("verdict", [None, "correct", "wrong", "unclear"])
@pytest.mark.parametrize("judged_wrong", [False, True])
def test_rating_is_offered_exactly_when_the_act_is_accepted(verdict, judged_wrong):
    """The window enables the severity/category keys by `can_rate`; the act itself is
    `implied_changes`: they must agree for every vote state, in phase 1 and phase 2."""
    from reviewer.panel.votes import VoteError, VoteState, implied_changes

    state = VoteState(verdict=verdict)
    try:
        changes = implied_changes(state, judged_wrong=judged_wrong, severity="major")
        accepted = True
    except VoteError:
        accepted = False
    assert state.can_rate(judged_wrong=judged_wrong) == accepted
    if accepted and not judged_wrong:
        assert (changes.get("verdict") or verdict) == "wrong"  # rating alone means wrong
