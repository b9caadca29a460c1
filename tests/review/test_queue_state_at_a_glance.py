"""State at a glance (issue 23): each queue entry says where the panel stands on its
item for the panelist (the decided value and how, a dispute, their phase-2 rating still
to give, problematic, notes), the filters find each, and the header's counts add up."""

from __future__ import annotations

import pytest
from project_data import new_project
from review_data import add_images, add_run, read_with

from reviewer.app import panel as acts
from reviewer.items import Item
from reviewer.panel.final import DecidedHow
from reviewer.panel.rules import set_rules
from reviewer.review.item_state import Dispute, Standing
from reviewer.review.queue_filter import QueueFilter, QueueStatus
from reviewer.review.queue_load import load_item_states, load_queue

DOG, HUSKY, CAT, CAR = 208, 207, 281, 817


@pytest.fixture
def panel(templates, tmp_path):
    """Six novel mistakes; ann (the chair) and bob voted:
    0 both correct (unanimous) · 1 correct/wrong (disputed) · 2 correct/unclear, locked (tie -> unclear)
    3 both wrong and problematic, bob rated it (ann's rating to give) · 4 a note, no votes · 5 nothing."""
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        ids = add_images(project, [HUSKY, HUSKY, CAT, CAT, CAR, CAR])
        project.run_id = add_run(project, "resnet50", dict(zip(ids, [DOG, DOG, CAR, CAR, CAT, CAT])))
        ann = acts.add_panelist(project, "ann", chair=True).value.id
        bob = acts.add_panelist(project, "bob").value.id
        items = [Item(i, p) for i, p in zip(ids, [DOG, DOG, CAR, CAR, CAT, CAT])]
        for who, item, verdict in [(ann, items[0], "correct"), (bob, items[0], "correct"),
                                   (ann, items[1], "correct"), (bob, items[1], "wrong"),
                                   (ann, items[2], "correct"), (bob, items[2], "unclear")]:
            acts.vote(project, panelist_id=who, item=item, verdict=verdict, problematic=False)
        for who in (ann, bob):
            acts.vote(project, panelist_id=who, item=items[3], verdict="wrong", problematic=True)
        acts.vote(project, panelist_id=bob, item=items[3], severity="major", category="fine_grained")
        acts.lock(project, chair_id=ann, item=items[2])
        acts.note(project, panelist_id=bob, item=items[4], text="is that a car or a van?")
        acts.note(project, panelist_id=ann, item=items[4], text="a van, I think")
        project.items, project.ann, project.bob = items, ann, bob
        return project

    return templates.copy(build, tmp_path)  # made once, copied per test


def _queue(project, panelist_id, **filters):
    return read_with(project, load_queue, run_id=project.run_id, panelist_id=panelist_id,
                     queue_filter=QueueFilter(**filters))


def test_each_entry_says_where_the_panel_stands(panel):
    queue = _queue(panel, panel.ann)
    states = [queue.entry(item).state for item in panel.items]
    # Unanimous: decided, its value and how.
    assert states[0].decision.verdict == "correct" and states[0].decision.how == DecidedHow.UNANIMOUS
    # My green "correct" beside the panel's locked "unclear": both are there, and how it came about.
    assert states[2].my_verdict == "correct"
    assert states[2].decision.verdict == "unclear" and states[2].decision.how == DecidedHow.TIE_UNCLEAR
    assert "tied" in states[2].decision.describe()
    # Disputed: everyone voted the phase's fields and they differ.
    assert states[1].dispute == Dispute(1, ("verdict",)) and not states[1].decided
    assert "verdict" in states[1].dispute.describe()
    # Wrong by all: decided wrong and problematic; ann's rating still to give, bob's given.
    assert states[3].decision.verdict == "wrong" and states[3].problematic is True
    assert states[3].awaits_my_rating and not _queue(panel, panel.bob).entry(panel.items[3]).state.awaits_my_rating
    # Undecided says nothing of problematic.
    assert states[1].problematic is None and states[5].problematic is None
    assert [s.notes for s in states] == [0, 0, 0, 0, 2, 0]
    assert [s.standing for s in states] == [Standing.DECIDED, Standing.DISPUTED, Standing.DECIDED,
                                            Standing.DECIDED, Standing.OPEN, Standing.OPEN]


def test_filters_find_each_state(panel):
    queue = _queue(panel, panel.ann)
    shown = {}
    for status in (QueueStatus.DISPUTED, QueueStatus.PHASE2, QueueStatus.PROBLEMATIC, QueueStatus.NOTED,
                   QueueStatus.DECIDED):
        queue.apply(QueueFilter(status=status))
        shown[status] = [panel.items.index(e.item) for e in queue.shown()]
    assert shown == {QueueStatus.DISPUTED: [1], QueueStatus.PHASE2: [3], QueueStatus.PROBLEMATIC: [3],
                     QueueStatus.NOTED: [4], QueueStatus.DECIDED: [0, 2, 3]}
    assert QueueFilter(status="disputed").status is QueueStatus.DISPUTED  # the stored strings still name them


def test_the_header_counts_add_up_and_follow_a_vote(panel):
    queue = _queue(panel, panel.ann)
    assert queue.counts().describe() == "6 mistakes: 3 decided · 1 disputed · 2 open; 4 voted by me"
    queue.apply(QueueFilter(status=QueueStatus.UNVOTED))
    assert queue.counts().describe() == "2 of 6 mistakes shown: 0 decided · 0 disputed · 2 open; " \
                                        "0 voted by me"
    # bob changes his mind on the disputed item: unanimous now, decided, item by item.
    acts.vote(panel, panelist_id=panel.bob, item=panel.items[1], verdict="correct")
    queue.apply(QueueFilter())
    queue.take_item_states(read_with(panel, load_item_states, panelist_id=panel.ann, items=[panel.items[1]]))
    assert queue.entry(panel.items[1]).state.decision.verdict == "correct"
    assert queue.counts().describe() == "6 mistakes: 4 decided · 0 disputed · 2 open; 4 voted by me"
    assert queue.counts().describe() == _queue(panel, panel.ann).counts().describe()


def test_disputes_follow_the_blind_rule(panel):
    # A third panelist joins: nobody knows a dispute until cy voted too, and nothing unanimous stands.
    cy = acts.add_panelist(panel, "cy").value.id
    queue = _queue(panel, cy)
    assert queue.entry(panel.items[1]).state.dispute is None
    assert queue.entry(panel.items[0]).state.decision is None  # unanimous no more: undecided, visibly
    acts.vote(panel, panelist_id=cy, item=panel.items[1], verdict="unclear", problematic=False)
    assert _queue(panel, cy).entry(panel.items[1]).state.dispute == Dispute(1, ("verdict",))
    # A viewer off the panel sees disputes only when the panel is not blind (a new panel is).
    assert _queue(panel, None).entry(panel.items[1]).state.dispute is None
    panel.write(lambda s: set_rules(s, chair_id=panel.ann, blind=False))
    assert _queue(panel, None).entry(panel.items[1]).state.dispute is not None
    panel.write(lambda s: set_rules(s, chair_id=panel.ann, blind=True))
    assert _queue(panel, None).entry(panel.items[1]).state.dispute is None
    assert _queue(panel, cy).entry(panel.items[1]).state.dispute is not None
