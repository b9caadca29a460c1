"""The queue's filters and sorts are vocabularies (StrEnums), each member with its title and
its rule: checked here on hand-made entries, without a database or a window."""

from __future__ import annotations

import pytest

from reviewer.review.item_state import ItemState
from reviewer.review.queue_entry import QueueEntry
from reviewer.review.queue_filter import QueueEvidence, QueueFilter, QueueSort, QueueStatus


def entry(image_id: int, *, predicted: int = 1, probability: float = 0.5, distance: int | None = 3,
          accepting: int = 0, rejecting: int = 0, covering: int = 0, **state) -> QueueEntry:
    return QueueEntry(mistake_id=image_id, run_id=1, image_id=image_id, predicted=predicted, probability=probability,
                      novel=True, hierarchy_distance=distance, file_name=f"{image_id}.JPEG", original_label=0,
                      has_file=True, state=ItemState(**state), sources_accepting=accepting,
                      sources_rejecting=rejecting, sources_covering=covering)


def test_a_combo_box_string_becomes_the_member_and_a_wrong_one_names_the_choices():
    chosen = QueueFilter(status="to_do", evidence="rejected", sort="distance_desc")
    assert (chosen.status, chosen.evidence, chosen.sort) == (QueueStatus.TO_DO, QueueEvidence.REJECTED,
                                                             QueueSort.DISTANCE_DESC)
    with pytest.raises(ValueError, match="queue sort must be one of image, confidence_desc"):
        QueueFilter(sort="newest")
    with pytest.raises(ValueError, match="queue evidence must be one of any, accepted"):
        QueueFilter(evidence="some")


def test_every_member_has_its_own_title():
    for vocabulary in (QueueStatus, QueueEvidence, QueueSort):
        titles = [member.title for member in vocabulary]
        assert all(titles) and len(set(titles)) == len(titles)


def test_each_sort_orders_the_entries_unknown_distances_last():
    a = entry(1, probability=0.9, distance=5, predicted=7, accepting=1, rejecting=2)
    b = entry(2, probability=0.2, distance=None, predicted=3, accepting=2)
    c = entry(3, probability=0.5, distance=1, predicted=5, accepting=1)
    entries = [c, a, b]

    def order(sort: str) -> list[int]:
        return [e.image_id for e in sorted(entries, key=QueueFilter(sort=sort).sort.key)]

    assert order("image") == [1, 2, 3]
    assert order("confidence_desc") == [1, 3, 2]
    assert order("confidence_asc") == [2, 3, 1]
    assert order("distance_asc") == [3, 1, 2]
    assert order("distance_desc") == [1, 3, 2]
    assert order("class") == [2, 3, 1]
    assert order("evidence") == [2, 3, 1]  # most accepting first, then fewest rejecting


def test_the_evidence_and_status_filters_keep_what_they_say():
    accepted = entry(1, accepting=1, covering=1)
    disputed = entry(2, accepting=1, rejecting=1, covering=2)
    rejected = entry(3, rejecting=2, covering=2, my_verdict="wrong")
    uncovered = entry(4, to_do=frozenset({1}), notes=2)
    entries = [accepted, disputed, rejected, uncovered]

    def kept(**chosen) -> list[int]:
        return [e.image_id for e in entries if QueueFilter(**chosen).accepts(e)]

    assert kept() == [1, 2, 3, 4]
    assert kept(evidence="accepted") == [1, 2]
    assert kept(evidence="disputed") == [2]
    assert kept(evidence="rejected") == [3]
    assert kept(evidence="uncovered") == [4]
    assert kept(status="voted") == [3] and kept(status="unvoted") == [1, 2, 4]
    assert kept(status="to_do") == [4] and kept(status="noted") == [4]
    assert kept(status="to_do", evidence="accepted") == []


def test_most_informative_next_puts_the_closest_call_first():
    """The chance the prediction is right: the raters' consensus where known, else the model's probability.
    |chance - 0.5|: image 1 (consensus 0.55) 0.05, image 2 (model 0.45, no consensus) 0.05, image 3 (consensus
    0.97, though the model says 0.5) 0.47, image 4 (model 0.9) 0.4, image 5 (consensus 0.10) 0.4. Ties: a
    consensus before the model's probability, then by image."""
    entries = [QueueEntry(**{**vars(entry(i, probability=p)), "consensus": c})
               for i, p, c in ((5, 0.5, 0.10), (4, 0.9, None), (3, 0.5, 0.97), (2, 0.45, None), (1, 0.2, 0.55))]
    informative = QueueFilter(sort="informative").sort
    assert informative is QueueSort.INFORMATIVE and informative.title == "Most informative next"
    assert [e.image_id for e in sorted(entries, key=informative.key)] == [1, 2, 5, 4, 3]
