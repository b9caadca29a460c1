"""Final decisions: unanimity per field, majority with the tie rules, the chair's
lock and override, notes and the item's history."""

from __future__ import annotations

import pytest
from review_data import read_with, snapshot_of, standing_decisions_of

from reviewer.app import panel as acts
from reviewer.panel.chair import NotTheChair
from reviewer.panel.decisions import DecisionError, field_unanimity, lockable_items, non_unanimous_items
from reviewer.panel.discussion import NoteError, item_history, notes
from reviewer.panel.votes import current_votes


def vote(project, reviewer, item, **fields):
    return acts.vote(project, panelist_id=reviewer, item=item, **fields).value


def lock(project, chair, item):
    return acts.lock(project, chair_id=chair, item=item).value


def test_non_unanimous_items_are_exactly_the_split_ones(panel):
    project, (ann, bob, cy), items = panel
    same, split_verdict, split_flag, partial = items[:4]
    for who in (ann, bob, cy):
        vote(project, who, same, verdict="wrong")
        vote(project, who, split_flag, verdict="correct", problematic=who == cy)
    for who, verdict in ((ann, "wrong"), (bob, "correct"), (cy, "wrong")):
        vote(project, who, split_verdict, verdict=verdict)
    vote(project, ann, partial, verdict="wrong")
    vote(project, bob, partial, verdict="correct")  # cy has not voted: not for the group yet
    known = items[6]
    for who, category in ((ann, "fine_grained"), (bob, "fine_grained"), (cy, "spurious_correlation")):
        vote(project, who, known, severity="minor", category=category)
    snap = snapshot_of(project)
    assert non_unanimous_items(snap) == [split_verdict, split_flag, known]
    assert non_unanimous_items(snap, fields=["problematic"]) == [split_flag]
    assert non_unanimous_items(snap, fields=["category", "severity"]) == [known]
    assert field_unanimity(snap, known) == {"verdict": None, "problematic": None, "severity": True,
                                            "category": False}
    assert field_unanimity(snap, partial)["verdict"] is None


def test_lock_is_majority_unclear_on_a_tie_and_chair_only(panel):
    project, (ann, bob, cy), items = panel
    two_one, three_way = items[:2]
    for who, verdict in ((ann, "wrong"), (bob, "wrong"), (cy, "correct")):
        vote(project, who, two_one, verdict=verdict, problematic=who != ann)
    for who, verdict in ((ann, "wrong"), (bob, "correct"), (cy, "unclear")):
        vote(project, who, three_way, verdict=verdict)
    with pytest.raises(NotTheChair, match="bob is not the chair"):
        lock(project, bob, two_one)
    d = lock(project, ann, two_one)
    assert (d.verdict, d.problematic, d.method, d.decided_by) == ("wrong", True, "majority", ann)
    assert d.reason == "verdict: wrong 2, correct 1; problematic: yes 2, no 1"
    d = lock(project, ann, three_way)
    assert d.verdict == "unclear" and "(tie)" in d.reason
    # The labels the metrics use now carry the panel's decisions.
    assert {item: d.verdict for item, d in standing_decisions_of(project).items()} == {
        two_one: "wrong", three_way: "unclear"}

    # A vote changed after the group's discussion: a new lock follows the new majority.
    vote(project, cy, three_way, verdict="wrong")
    assert lock(project, ann, three_way).verdict == "wrong"


def test_no_lock_before_every_panelist_has_voted_a_verdict(panel):
    project, (ann, bob, cy), items = panel
    partial = items[0]
    vote(project, ann, partial, verdict="wrong")
    vote(project, bob, partial, verdict="wrong")
    with pytest.raises(DecisionError, match="cy has not voted a verdict"):
        lock(project, ann, partial)
    vote(project, cy, partial, problematic=True)  # a flag alone is not a verdict
    with pytest.raises(DecisionError, match="cy has not voted a verdict"):
        lock(project, ann, partial)
    vote(project, cy, partial, verdict="correct")
    assert lock(project, ann, partial).verdict == "wrong"


def test_phase_2_ties_severity_major_category_undecided(panel):
    project, (ann, bob, cy), items = panel
    dee = acts.add_panelist(project, "dee").value.id  # four panelists: a 2:2 split is possible
    known = items[6]
    for who, severity, category in ((ann, "major", "fine_grained"), (bob, "minor", "non_prototypical"),
                                    (cy, "major", "non_prototypical"), (dee, "minor", "fine_grained")):
        vote(project, who, known, severity=severity, category=category)
    d = lock(project, ann, known)
    # A known mistake stays wrong (nobody reopened it); the ties follow the documented rule.
    assert (d.verdict, d.severity, d.category) == ("wrong", "major", None)
    assert d.reason == "severity: major 2, minor 2 (tie); category: fine_grained 2, non_prototypical 2 (tie)"


def test_override_needs_the_chair_and_a_reason_and_leaves_votes_alone(panel):
    project, (ann, bob, cy), items = panel
    item = items[0]
    for who in (ann, bob, cy):
        vote(project, who, item, verdict="wrong")
    before = [(v.panelist_id, v.verdict) for v in read_with(project, current_votes, item=item)]
    kw = dict(item=item, verdict="correct")
    with pytest.raises(DecisionError, match="needs a reason"):
        acts.override(project, chair_id=ann, reason="  ", **kw)
    with pytest.raises(NotTheChair, match="cy is not the chair"):
        acts.override(project, chair_id=cy, reason="I know better", **kw)
    with pytest.raises(DecisionError, match="leave them out"):
        acts.override(project, chair_id=ann, reason="x", severity="major", **kw)
    d = acts.override(project, chair_id=ann, reason="the class definition includes this breed", **kw).value
    assert (d.method, d.verdict, d.reason) == ("override", "correct", "the class definition includes this breed")
    after = [(v.panelist_id, v.verdict) for v in read_with(project, current_votes, item=item)]
    assert after == before
    history = read_with(project, item_history, item=item)
    assert [(h.who, h.kind) for h in history] == [("ann", "vote"), ("bob", "vote"), ("cy", "vote"),
                                                  ("ann", "override")]
    assert history[0].text == "verdict: Wrong"
    assert "the class definition includes this breed" in history[-1].text


def test_lock_all_takes_fully_voted_items_only(panel):
    project, (ann, bob, cy), items = panel
    for who in (ann, bob, cy):
        vote(project, who, items[0], verdict="wrong")
        vote(project, who, items[1], verdict="correct" if who == cy else "wrong")
    vote(project, ann, items[2], verdict="wrong")
    snap = snapshot_of(project)
    assert lockable_items(snap, unanimous_only=True) == [items[0]]
    assert lockable_items(snap) == [items[0], items[1]]
    assert [d.verdict for d in acts.lock_all(project, chair_id=ann).value] == ["wrong", "wrong"]
    assert lockable_items(snapshot_of(project)) == []  # nothing is locked twice


def test_notes_and_history_of_changed_votes(panel):
    project, (ann, bob, _cy), items = panel
    item = items[0]
    with pytest.raises(NoteError, match="needs some text"):
        acts.note(project, panelist_id=bob, item=item, text="  ")
    vote(project, bob, item, verdict="correct")
    acts.note(project, panelist_id=ann, item=item,
             text="look at the beak: it is a finch")
    vote(project, bob, item, verdict="wrong", note="convinced by the beak")
    assert [n.text for n in read_with(project, notes, item=item)] == [
        "look at the beak: it is a finch"]
    texts = [(h.who, h.kind, h.text) for h in read_with(project, item_history, item=item)]
    assert texts == [("bob", "vote", "verdict: Correct"),
                     ("ann", "note", "look at the beak: it is a finch"),
                     ("bob", "vote", "verdict: Correct → Wrong, note: 'convinced by the beak'")]
