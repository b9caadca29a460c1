"""Phases: novel mistakes need every verdict; known ones skip to severity and
category; a reopen brings one back; progress per phase and per panelist."""

from __future__ import annotations

import pytest
from review_data import snapshot_of, standing_decisions_of

from reviewer.app import panel as acts
from reviewer.panel.chair import NotTheChair
from reviewer.panel.phases import PhaseError, PhaseStatus, phase_items, progress, status


def vote(project, reviewer, item, **fields):
    return acts.vote(project, panelist_id=reviewer, item=item, **fields).value


def by_phase(project):
    return {p.phase: p for p in progress(snapshot_of(project))}


def test_novel_mistakes_need_every_verdict_known_ones_skip_to_phase_2(panel):
    project, (ann, bob, cy), items = panel
    novel, known = items[:6], items[6:]
    snap = snapshot_of(project)
    assert phase_items(snap, 1) == novel
    assert phase_items(snap, 2) == known  # already judged wrong: straight to severity and category

    a, b, c = novel[:3]
    for who in (ann, bob, cy):  # a: unanimous wrong
        vote(project, who, a, verdict="wrong")
    for who, verdict in ((ann, "wrong"), (bob, "wrong"), (cy, "correct")):  # b: split
        vote(project, who, b, verdict=verdict)
    vote(project, ann, c, verdict="correct")  # c: only ann so far
    snap = snapshot_of(project)
    assert [status(snap, i, 1) for i in (a, b, c)] == [PhaseStatus.DECIDED, PhaseStatus.AWAITS_GROUP, PhaseStatus.VOTING]
    # Unanimously wrong joins phase 2 at once; the split one waits for the group.
    assert phase_items(snap, 2) == [a, *known]

    phase1 = by_phase(project)[1]
    assert (phase1.items, phase1.voting, phase1.awaits_group, phase1.decided) == (6, 4, 1, 1)
    mine = {p.name: (p.done, p.to_do, p.awaits_group) for p in phase1.panelists}
    assert mine == {"ann": (3, 3, 1), "bob": (2, 4, 1), "cy": (2, 4, 1)}

    for who, severity in ((ann, "major"), (bob, "major"), (cy, "minor")):
        vote(project, who, known[0], severity=severity, category="fine_grained")
    phase2 = by_phase(project)[2]
    assert (phase2.items, phase2.voting, phase2.awaits_group, phase2.decided) == (3, 2, 1, 0)
    assert {p.name: p.done for p in phase2.panelists} == {"ann": 1, "bob": 1, "cy": 1}


def test_reopen_brings_a_known_mistake_back_to_phase_1(panel):
    project, (ann, bob, cy), items = panel
    known = items[6]
    with pytest.raises(PhaseError, match=r"ILSVRC2012_val_\d{8}\.JPEG predicted \d+ is already open"):
        acts.reopen_item(project, panelist_id=ann, item=items[0], reason="x")
    # Reopening is the chair's act, with a reason: a panelist who could lift the chair's
    # locks could empty the export (issue 29, finding 1).
    with pytest.raises(NotTheChair, match="bob is not the chair"):
        acts.reopen_item(project, panelist_id=bob, item=known, reason="the label looks right to me")
    with pytest.raises(PhaseError, match="needs a reason"):
        acts.reopen_item(project, panelist_id=ann, item=known, reason="  ")
    assert known in phase_items(snapshot_of(project), 2)  # nothing was written
    row = acts.reopen_item(project, panelist_id=ann, item=known,
                           reason="the label looks right to me").value
    assert (row.method, row.decided_by, row.verdict) == ("reopened", ann, None)
    snap = snapshot_of(project)
    assert known in phase_items(snap, 1) and known not in phase_items(snap, 2)
    for who, verdict in ((ann, "correct"), (bob, "correct"), (cy, "wrong")):
        vote(project, who, known, verdict=verdict)
    decision = acts.lock(project, chair_id=ann, item=known).value
    assert decision.verdict == "correct"
    assert known not in phase_items(snapshot_of(project), 2)
    assert standing_decisions_of(project)[known].verdict == "correct"
    # A decided item may be reopened again, and the reopen lifts the decision.
    acts.reopen_item(project, panelist_id=ann, item=known, reason="a second look")
    assert snapshot_of(project).locked(known) is None
    assert by_phase(project)[1].awaits_group == 1


def test_a_new_panelist_has_everything_to_do(panel):
    project, _, items = panel
    acts.add_panelist(project, "dee")
    phase1 = by_phase(project)[1]
    assert {p.name: p.to_do for p in phase1.panelists}["dee"] == 6


def test_a_phase_is_named_and_prints_as_its_number():
    """Phases are `Phase` members, not bare 1 and 2; the command line's JSON, its tables and
    the window print them as the numbers the panel knows them by."""
    import json

    from reviewer.panel.snapshot import FIELD_PHASE, PHASE_FIELDS
    from reviewer.terms import Phase

    assert [str(p) for p in Phase] == ["1", "2"] and f"phase {Phase.RATING}" == "phase 2"
    assert json.dumps({"phase": Phase.RATING}) == '{"phase": 2}'
    assert PHASE_FIELDS[Phase.RATING] == ("severity", "category") and FIELD_PHASE["verdict"] is Phase.CORRECTNESS
    assert Phase.CORRECTNESS.title == "Phase 1, correctness"
