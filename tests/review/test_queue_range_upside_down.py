"""A range given upside down (issue 35, 9: Distance 5 to 2 emptied the queue without a word)
is read the right way up, and the filter says so for the window to show."""

from __future__ import annotations

from project_data import new_project
from review_data import add_images, add_run, read_with

from reviewer.review.queue_filter import QueueFilter
from reviewer.review.queue_load import load_queue

DOG, HUSKY, CAT, CAR, TENCH = 208, 207, 281, 817, 0


def test_a_distance_range_upside_down_is_read_the_right_way_up_and_said(tmp_path):
    upside_down = QueueFilter(min_distance=5, max_distance=2)
    assert (upside_down.min_distance, upside_down.max_distance) == (2, 5)
    assert upside_down.notes == ("Distance 5 to 2 read as 2 to 5",)
    assert upside_down == QueueFilter(min_distance=2, max_distance=5)  # the same filter, with a note
    assert QueueFilter(min_distance=2, max_distance=5).notes == ()
    assert QueueFilter(min_confidence=0.8, max_confidence=0.3).notes == ("Confidence 80% to 30% read as 30% to 80%",)

    project = new_project(tmp_path / "p")
    ids = add_images(project, [HUSKY, HUSKY, CAT, CAR])
    project.run_id = add_run(project, "resnet50", dict(zip(ids, [DOG, CAT, CAR, TENCH])))
    everything = read_with(project, load_queue, run_id=project.run_id, panelist_id=None, queue_filter=QueueFilter())
    distances = sorted(e.hierarchy_distance for e in everything.shown() if e.hierarchy_distance is not None)
    low, high = distances[0], distances[-1]
    assert low < high
    queue = read_with(project, load_queue, run_id=project.run_id, panelist_id=None,
                      queue_filter=QueueFilter(min_distance=high, max_distance=low))
    assert len(queue.shown()) == len(everything.shown())  # not silently empty
    project.close()
