"""Phases: novel mistakes need every verdict; known ones skip to severity and
category; a reopen brings one back; progress per phase and per panelist."""

from __future__ import annotations

import pytest

from reviewer.panel.decisions import lock_decision
from reviewer.panel.phases import AWAITS_GROUP, DECIDED, VOTING, PhaseError, phase_items, progress, reopen, status
from reviewer.panel.snapshot import load_snapshot
from reviewer.panel.votes import cast_vote, get_reviewer
from reviewer.labels.reviewed import latest_decisions


def vote(project, reviewer, item, **fields):
    return cast_vote(project, reviewer_id=reviewer, image_id=item.image_id, predicted=item.predicted, **fields)


def by_phase(project):
    return {p.phase: p for p in progress(project)}


def test_novel_mistakes_need_every_verdict_known_ones_skip_to_phase_2(panel):
    project, (ann, bob, cy), items = panel
    novel, known = items[:6], items[6:]
    snap = load_snapshot(project)
    assert phase_items(snap, 1) == novel
    assert phase_items(snap, 2) == known  # already judged wrong: straight to severity and category

    a, b, c = novel[:3]
    for who in (ann, bob, cy):  # a: unanimous wrong
        vote(project, who, a, verdict="wrong")
    for who, verdict in ((ann, "wrong"), (bob, "wrong"), (cy, "correct")):  # b: split
        vote(project, who, b, verdict=verdict)
    vote(project, ann, c, verdict="correct")  # c: only ann so far
    snap = load_snapshot(project)
    assert [status(snap, i, 1) for i in (a, b, c)] == [DECIDED, AWAITS_GROUP, VOTING]
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
        reopen(project, reviewer_id=bob, image_id=items[0].image_id, predicted=items[0].predicted)
    row = reopen(project, reviewer_id=bob, image_id=known.image_id, predicted=known.predicted,
                 reason="the label looks right to me")
    assert (row.method, row.decided_by, row.verdict) == ("reopened", bob, None)
    snap = load_snapshot(project)
    assert known in phase_items(snap, 1) and known not in phase_items(snap, 2)
    for who, verdict in ((ann, "correct"), (bob, "correct"), (cy, "wrong")):
        vote(project, who, known, verdict=verdict)
    decision = lock_decision(project, chair_id=ann, image_id=known.image_id, predicted=known.predicted)
    assert decision.verdict == "correct"
    assert known not in phase_items(load_snapshot(project), 2)
    assert (known.image_id, known.predicted, "correct", False) in [tuple(d) for d in latest_decisions(project)]
    # A decided item may be reopened again, and the reopen lifts the decision.
    reopen(project, reviewer_id=cy, image_id=known.image_id, predicted=known.predicted)
    assert load_snapshot(project).locked(known) is None
    assert by_phase(project)[1].awaits_group == 1


def test_a_new_panelist_has_everything_to_do(panel):
    project, _, items = panel
    get_reviewer(project, "dee")
    phase1 = by_phase(project)[1]
    assert {p.name: p.to_do for p in phase1.panelists}["dee"] == 6
