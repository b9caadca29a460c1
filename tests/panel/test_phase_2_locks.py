"""Phase 2 after a phase-1 lock: severity and category are settled by the whole
panel, never by the majority's side alone (a lock records them only once every
panelist has rated both; the chair's override is the other way)."""

from __future__ import annotations

import pytest
from review_data import decisions_table_of, read_with, snapshot_of

from reviewer.app import panel as acts
from reviewer.panel.decisions import DecisionError, lockable_items, non_unanimous_items
from reviewer.panel.phases import PhaseStatus, progress, status
from reviewer.panel.state import decision_history
from reviewer.review.reviewed_mistakes import reviewed_mistakes


def vote(project, reviewer, item, **fields):
    return acts.vote(project, panelist_id=reviewer, item=item, **fields).value


def standing(project, item):
    frame = decisions_table_of(project).set_index(["image_id", "predicted"])
    return frame.loc[(item.image_id, item.predicted), ["verdict", "problematic", "severity", "category"]].tolist()


def test_a_majority_wrong_lock_leaves_phase_2_to_every_panelist(panel):
    project, (ann, bob, cy), items = panel
    item = items[0]
    vote(project, ann, item, verdict="wrong", problematic=True, severity="major", category="fine_grained")
    vote(project, bob, item, verdict="wrong", problematic=False, severity="minor", category="fine_grained")
    vote(project, cy, item, verdict="correct")  # the dissenter rates nothing with a "correct" verdict

    (first,) = acts.lock_all(project, chair_id=ann).value
    # The verdict is locked; severity and category wait for cy's ratings.
    # (Problematic by one of three: not flagged; a flagged image would have no mistakes at all.)
    assert (first.verdict, first.problematic, first.severity, first.category) == ("wrong", False, None, None)
    assert first.reason == "verdict: wrong 2, correct 1; problematic: no 2, yes 1"
    assert standing(project, item) == ["wrong", False, None, None]  # the export has the verdict already
    mistakes = read_with(project, reviewed_mistakes)
    assert mistakes.loc[mistakes["image_id"] == item.image_id, ["source", "severity", "category"]].values.tolist() \
        == [["panel", None, None]]

    snap = snapshot_of(project)
    assert status(snap, item, 1) == PhaseStatus.DECIDED and status(snap, item, 2) == PhaseStatus.VOTING
    phase2 = {p.phase: p for p in progress(snap)}[2]
    # Two known mistakes wait for everyone; the locked one waits for cy only.
    assert {p.name: (p.done, p.to_do) for p in phase2.panelists} == {"ann": (1, 2), "bob": (1, 2), "cy": (0, 3)}
    assert lockable_items(snap) == [] and acts.lock_all(project, chair_id=ann).value == []
    with pytest.raises(DecisionError, match="cy has not rated severity and category"):
        acts.lock(project, chair_id=ann, item=item)

    # cy rates: the severity split reaches the group, then the chair locks it.
    vote(project, cy, item, severity="major", category="fine_grained")
    snap = snapshot_of(project)
    assert status(snap, item, 2) == PhaseStatus.AWAITS_GROUP
    assert non_unanimous_items(snap, fields=["severity"]) == [item]
    assert lockable_items(snap) == [item]
    (second,) = acts.lock_all(project, chair_id=ann).value
    assert (second.verdict, second.problematic, second.severity, second.category) == (
        "wrong", False, "major", "fine_grained")
    assert second.reason == "severity: major 2, minor 1; category: fine_grained 3"
    assert status(snapshot_of(project), item, 2) == PhaseStatus.DECIDED
    assert lockable_items(snapshot_of(project)) == []
    # Append-only: the verdict-only lock stays in the history; the latest row is the whole decision.
    assert [(d.verdict, d.severity) for d in read_with(project, decision_history, item=item)] == [
        ("wrong", None), ("wrong", "major")]
    assert standing(project, item) == ["wrong", False, "major", "fine_grained"]
    mistakes = read_with(project, reviewed_mistakes)
    assert mistakes.loc[mistakes["image_id"] == item.image_id, ["severity", "category"]].values.tolist() == [
        ["major", "fine_grained"]]


def test_a_phase_2_lock_keeps_the_locked_verdict(panel):
    """A verdict changed after the phase-1 lock does not undo it through the phase-2 lock."""
    project, (ann, bob, cy), items = panel
    item = items[1]
    for who, verdict in ((ann, "wrong"), (bob, "wrong"), (cy, "correct")):
        vote(project, who, item, verdict=verdict)
    acts.lock(project, chair_id=ann, item=item)
    vote(project, bob, item, verdict="correct", severity=None)  # bob changes his mind after the lock
    for who in (ann, bob, cy):
        vote(project, who, item, severity="minor", category="non_prototypical")
    d = acts.lock(project, chair_id=ann, item=item).value
    assert (d.verdict, d.severity, d.category) == ("wrong", "minor", "non_prototypical")


def test_known_mistake_needs_every_rating_or_the_chairs_override(panel):
    project, (ann, bob, cy), items = panel
    known = items[6]
    vote(project, ann, known, severity="major", category="fine_grained")
    vote(project, bob, known, severity="major", category="fine_grained")
    with pytest.raises(DecisionError, match="cy has not rated"):
        acts.lock(project, chair_id=ann, item=known)
    assert lockable_items(snapshot_of(project)) == []
    acts.override(project, chair_id=ann, item=known, verdict="wrong",
                      severity="major", category="fine_grained", reason="cy is away; the two agree")
    assert status(snapshot_of(project), known, 2) == PhaseStatus.DECIDED
