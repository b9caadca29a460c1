"""The review queue: a run's mistakes, filtered, sorted and counted for one panelist."""

from __future__ import annotations

import pytest
from project_data import new_project
from review_data import add_images, add_run, decide, read_with

from reviewer.app import panel as acts
from reviewer.items import Item
from reviewer.review.queue_filter import QueueFilter
from reviewer.review.queue_load import load_queue

DOG, HUSKY, CAT, CAR = 208, 207, 281, 817  # Labrador retriever, golden retriever, tabby, sports car


@pytest.fixture
def project(templates, tmp_path):
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        # Six images; the second already had "Labrador" judged wrong (so predicting it is not novel).
        ids = add_images(project, [HUSKY, HUSKY, CAT, CAT, CAR, CAR],
                         labels={1: {"correct": [HUSKY], "wrong": [DOG]}})
        top1 = {ids[0]: DOG, ids[1]: DOG, ids[2]: CAT, ids[3]: CAR, ids[4]: CAT, ids[5]: CAR}
        probs = {ids[0]: 0.9, ids[1]: 0.4, ids[3]: 0.7, ids[4]: 0.2}
        project.run_id = add_run(project, "resnet50", top1, probs=probs)
        project.ids = ids
        return project

    return templates.copy(build, tmp_path)  # made once, copied per test


def test_queue_lists_the_run_mistakes_with_novelty_and_distance(project):
    queue = read_with(project, load_queue, run_id=project.run_id, panelist_id=None)
    ids = project.ids
    assert [(e.image_id, e.predicted) for e in queue.shown()] == [(ids[0], DOG), (ids[1], DOG), (ids[3], CAR),
                                                                  (ids[4], CAT)]
    assert [e.novel for e in queue.shown()] == [True, False, True, True]
    assert queue[0].hierarchy_distance == 1  # both retrievers
    assert queue[2].hierarchy_distance > 5  # a car is far from a cat
    assert queue.counts().describe() == "4 mistakes: 0 decided · 0 disputed · 4 open"


def test_filters_and_counts_follow_the_panelist_votes(project):
    ann = acts.add_panelist(project, "ann").value.id
    bob = acts.add_panelist(project, "bob").value.id
    ids = project.ids
    acts.vote(project, panelist_id=ann, item=Item(ids[0], DOG), verdict="correct")
    acts.vote(project, panelist_id=ann, item=Item(ids[3], CAR), verdict="wrong")
    acts.undo(project, panelist_id=ann).value  # the vote on the car image is retracted
    acts.vote(project, panelist_id=bob, item=Item(ids[4], CAT), verdict="wrong")
    decide(project, ids[4], CAT, "wrong")

    queue = read_with(project, load_queue, run_id=project.run_id, panelist_id=ann, queue_filter=QueueFilter(status="novel"))
    assert len(queue) == 3
    assert queue.counts().describe() == "3 of 4 mistakes shown: 1 decided · 0 disputed · 2 open; 1 voted by me"
    queue.apply(QueueFilter(status="unvoted"))
    assert [e.image_id for e in queue.shown()] == [ids[1], ids[3], ids[4]]  # bob's vote is not ann's
    queue.apply(QueueFilter(status="reviewed"))
    assert [e.image_id for e in queue.shown()] == [ids[1]]
    queue.apply(QueueFilter(status="decided"))
    assert [e.image_id for e in queue.shown()] == [ids[4]]
    queue.apply(QueueFilter(classes=frozenset({CAR})))
    assert [e.image_id for e in queue.shown()] == [ids[3], ids[4]]  # predicted car, or labelled car
    queue.apply(QueueFilter(classes=frozenset({HUSKY})))
    assert [e.image_id for e in queue.shown()] == [ids[0], ids[1]]  # labelled husky
    queue.apply(QueueFilter(classes=frozenset({HUSKY, CAR})))  # a name matching several classes
    assert [e.image_id for e in queue.shown()] == [ids[0], ids[1], ids[3], ids[4]]
    queue.apply(QueueFilter(max_distance=1))
    assert [e.predicted for e in queue.shown()] == [DOG, DOG]
    queue.apply(QueueFilter(min_confidence=0.5))
    assert [e.image_id for e in queue.shown()] == [ids[0], ids[3]]


def test_sorting_and_navigation(project):
    ann = acts.add_panelist(project, "ann").value.id
    queue = read_with(project, load_queue, run_id=project.run_id, panelist_id=ann,
                       queue_filter=QueueFilter(sort="confidence_desc"))
    assert [round(e.probability, 1) for e in queue.shown()] == [0.9, 0.7, 0.4, 0.2]
    queue.apply(QueueFilter(sort="distance_asc"))
    assert queue[0].hierarchy_distance <= queue[len(queue) - 1].hierarchy_distance
    queue.apply(QueueFilter())
    assert queue.next_row(None) == 0 and queue.next_row(3) is None and queue.previous_row(0) is None
    # A vote updates the queue in memory; "next unvoted" skips it and wraps round.
    queue.set_my_verdict(queue[1].item, "wrong")
    assert queue.next_row(0, unvoted=True) == 2
    assert queue.next_row(3, unvoted=True) == 0
    assert queue.counts().voted_shown == 1
    with pytest.raises(ValueError, match="queue status must be one of"):
        QueueFilter(status="maybe")


def test_a_few_items_read_again_agree_with_the_whole_queue_read_again(project):
    """A window re-reads only the items a change names (`load_item_states`); its queue,
    progress counts included, must then be what reading the whole queue gives."""
    import random

    from reviewer.review.queue_load import load_item_states

    people = [acts.add_panelist(project, name, chair=name == "ann" or None).value.id for name in ("ann", "bob", "cy")]
    me = people[1]
    with project.read() as session:
        kept = load_queue(session=session, run_id=project.run_id, panelist_id=me)
    items = [e.item for e in kept.entries]
    rng = random.Random(3)
    for step in range(40):
        item = rng.choice(items)
        who = rng.choice(people)
        if step % 9 == 8:
            try:
                acts.lock(project, chair_id=people[0], item=item)
            except Exception:  # noqa: BLE001 - not every item can be locked yet
                continue
        else:
            verdict = rng.choice(["correct", "wrong", "unclear"])
            fields = {"severity": rng.choice(["major", "minor"]), "category": "fine_grained"} if verdict == "wrong" \
                else {}
            acts.vote(project, panelist_id=who, item=item, verdict=verdict, problematic=rng.random() < 0.2, **fields)
        with project.read() as session:
            kept.take_item_states(load_item_states(session=session, panelist_id=me, items=[item]))
            fresh = load_queue(session=session, run_id=project.run_id, panelist_id=me)
        assert [e.state for e in kept.entries] == [e.state for e in fresh.entries]
        assert kept.progress == fresh.progress
    assert any(p.decided for p in fresh.progress) and any(e.my_verdict for e in fresh.entries)
