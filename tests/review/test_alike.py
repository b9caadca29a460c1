"""Alike mistakes in sets (reviewer.review.alike) and what a key casts on a set
(reviewer.review.alike_review), on hand-made entries and vectors without a database;
then a set's votes recorded through the app's batch and undone one by one."""

from __future__ import annotations

import numpy as np
import pytest
from project_data import new_project

from reviewer.items import Item
from reviewer.panel.votes import VoteState
from reviewer.review.alike import AlikeBy, alike_by_confusion, alike_by_neighbourhood, find_alike
from reviewer.review.alike_review import TOGGLE_PROBLEMATIC, AlikeReview
from reviewer.review.item_state import ItemState
from reviewer.review.queue_entry import QueueEntry


def entry(image_id: int, original: int | None, predicted: int, *, stands_wrong: bool = False) -> QueueEntry:
    return QueueEntry(mistake_id=image_id, run_id=1, image_id=image_id, predicted=predicted, probability=0.5,
                      novel=True, hierarchy_distance=2, file_name=f"{image_id}.JPEG", original_label=original,
                      has_file=True, state=ItemState(stands_wrong=stands_wrong))


def test_confusion_pairs_of_two_or_more_largest_first():
    # 40 (American chameleon) taken for 46 (green lizard) three times; 46 for 40 once (another direction);
    # 1 for 2 twice; an image without a label in none.
    entries = [entry(7, 40, 46), entry(2, 40, 46), entry(5, 1, 2), entry(3, 40, 46), entry(4, 46, 40),
               entry(6, 1, 2), entry(8, None, 46)]
    sets = alike_by_confusion(entries)
    assert [(g.title, [e.image_id for e in g.entries]) for g in sets] == [
        ("American chameleon → green lizard", [2, 3, 7]), ("goldfish → great white shark", [5, 6])]
    assert sets[0].reason == "3 images labelled American chameleon, each predicted green lizard"
    assert find_alike(entries, "confusion") == sets


def test_neighbourhoods_gather_close_images_around_the_densest_first():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(16), rng.standard_normal(16)
    near = lambda centre, i: centre + 0.1 * rng.standard_normal(16)  # noqa: E731
    vectors = {"1.JPEG": near(a, 1), "2.JPEG": near(a, 2), "3.JPEG": near(a, 3), "4.JPEG": near(b, 4),
               "5.JPEG": near(b, 5), "6.JPEG": rng.standard_normal(16)}  # 6: close to no one; 7: no embedding
    entries = [entry(i, 0, 1) for i in range(1, 8)]
    sets = alike_by_neighbourhood(entries, vectors)
    assert [sorted(e.image_id for e in g.entries) for g in sets] == [[1, 2, 3], [4, 5]]
    assert sets[0].title == "like tench"  # every image here is labelled 0
    assert sets[0].reason == "3 images with cosine similarity at least 0.75 to 1.JPEG (the first); labelled tench"
    # A cap on the size: the seed's nearest first; the one left over has no partner left.
    capped = alike_by_neighbourhood(entries, vectors, max_size=2)
    assert [len(g) for g in capped] == [2, 2] and sum(len(g) for g in capped) == 4
    # Blocks of any size give the same sets.
    assert alike_by_neighbourhood(entries, vectors, block=2) == sets
    assert find_alike(entries, AlikeBy.NEIGHBOURHOOD, vectors=vectors) == sets


def test_a_key_casts_on_the_selection_by_each_items_own_rules():
    entries = [entry(1, 0, 1), entry(2, 0, 1), entry(3, 0, 1, stands_wrong=True), entry(4, 0, 1)]
    sets = alike_by_confusion(entries)
    votes = {Item(2, 1): VoteState(verdict="correct"), Item(3, 1): VoteState(verdict="correct")}
    review = AlikeReview(sets, votes)
    assert review.selected == {Item(i, 1) for i in (1, 2, 3, 4)}  # a set opens all selected
    review.move(3)
    review.toggle()  # 4 out
    cast = review.cast("severity_major")
    # 1: unvoted, a severity means wrong; 2: voted correct, refused; 3: stands wrong (phase 2): rated, verdict kept.
    assert cast.votes == ((Item(1, 1), {"severity": "major", "verdict": "wrong"}), (Item(3, 1), {"severity": "major"}))
    assert cast.refused == ((Item(2, 1), "severity and category describe a wrong prediction: vote wrong first"),)
    assert cast.describe("Major") == ("Major: 2 votes; 1 not recorded (severity and category describe a wrong "
                                      "prediction: vote wrong first)")
    correct = review.cast("verdict_correct")
    assert [changes for _, changes in correct.votes] == [
        {"verdict": "correct", "severity": None, "category": None, "oov_name": None}] * 3
    review.expect(cast)
    assert review.my_vote(Item(1, 1)) == VoteState(verdict="wrong", severity="major")
    assert review.cast(TOGGLE_PROBLEMATIC).votes[0] == (Item(1, 1), {"problematic": True})
    review.toggle_all()
    assert review.selected == {Item(i, 1) for i in (1, 2, 3, 4)}
    review.toggle_all()
    assert review.selected == set() and review.cast("verdict_wrong").votes == ()
    with pytest.raises(KeyError):
        review.cast("category_fine_grained_oov")  # asks a name per image: the review page's


def test_moving_between_sets_and_knowing_when_one_is_done():
    entries = [entry(1, 40, 46), entry(2, 40, 46), entry(3, 1, 2), entry(4, 1, 2)]
    review = AlikeReview(alike_by_confusion(entries))  # two of two each: by class, 1 -> 2 first
    assert review.row == 0 and not review.previous_set() and not review.move(-1)
    assert review.next_set() and review.selected == {Item(1, 46), Item(2, 46)} and not review.next_set()
    assert not review.set_complete()
    review.take_votes({Item(1, 46): VoteState(verdict="unclear"), Item(2, 46): VoteState(verdict="wrong")})
    assert not review.set_complete()  # wrong needs its rating
    review.take_votes({Item(2, 46): VoteState(verdict="wrong", severity="minor", category="fine_grained")})
    assert review.set_complete() and not review.set_complete(review.sets[0])
    assert AlikeReview([]).shown is None and AlikeReview([]).cast("verdict_wrong").votes == ()


def test_a_sets_votes_are_each_the_panelists_and_undone_one_by_one(tmp_path):
    from review_data import add_images, add_run

    from reviewer.app import panel as acts
    from reviewer.app.alike_review import alike_sets, my_votes

    project = new_project(tmp_path / "p")
    ids = add_images(project, [40, 40, 40, 1])
    add_run(project, "m", {ids[0]: 46, ids[1]: 46, ids[2]: 46, ids[3]: 2})
    ann = acts.add_panelist(project, "ann", chair=True).value
    found = alike_sets(project, run_id=1, panelist_id=ann.id, alike_by="confusion")
    assert found.mistakes == 4 and [len(g) for g in found.sets] == [3]
    review = AlikeReview(found.sets, found.votes)
    cast = review.cast("verdict_unclear")
    done = acts.vote_batch(project, panelist_id=ann.id, votes=cast.votes)
    assert done.changes.items == {Item(i, 46) for i in ids[:3]}
    items = [Item(i, 46) for i in ids[:3]]
    assert {v.verdict for v in my_votes(project, panelist_id=ann.id, items=items).values()} == {"unclear"}
    # Ctrl+Z takes back the last item's vote alone, then the one before.
    acts.undo(project, panelist_id=ann.id)
    assert [v.verdict for v in my_votes(project, panelist_id=ann.id, items=items).values()] == [
        "unclear", "unclear", None]
    acts.undo(project, panelist_id=ann.id)
    assert [v.verdict for v in my_votes(project, panelist_id=ann.id, items=items).values()] == ["unclear", None, None]


def test_neighbourhoods_from_the_projects_index(tmp_path):
    from index_data import write_index
    from review_data import add_images, add_run, val_name

    from reviewer.app.alike_review import NO_INDEX, alike_sets
    from reviewer.errors import UserError

    project = new_project(tmp_path / "p")
    ids = add_images(project, [1, 2, 3, 4, 5])
    add_run(project, "m", {i: 9 for i in ids})
    with pytest.raises(UserError, match="reviewer index"):
        alike_sets(project, run_id=1, panelist_id=None, alike_by="neighbourhood")
    assert "choose Same confusion" in NO_INDEX
    # Images 1, 3, 4 alike; 2 apart; 5 skipped by the index (a zero row); the listing in another order.
    a, b = np.eye(8)[0], np.eye(8)[1]
    rows = {1: a, 3: a + 0.2 * b, 4: a - 0.2 * b, 2: b, 5: np.zeros(8)}
    order = [4, 2, 5, 1, 3]
    write_index(project.root, train_root=tmp_path, train=[], project=[(f"/v/{val_name(n)}", "") for n in order],
                project_vectors=np.stack([rows[n] / max(np.linalg.norm(rows[n]), 1) for n in order]))
    found = alike_sets(project, run_id=1, panelist_id=None, alike_by="neighbourhood")
    assert [sorted(e.file_name for e in g.entries) for g in found.sets] == [[val_name(n) for n in (1, 3, 4)]]
    assert found.paths[found.sets[0].items[0]] is None  # these images have no files
