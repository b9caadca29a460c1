"""The run a window opens on."""

from reviewer.app.runs import default_run

RUNS = [(5, "b", "running", 10), (4, "a", "complete", 10), (2, "a", "complete", 10), (1, "c", "failed", 3)]  # newest first


def test_the_run_the_panelist_had_open_last():
    assert default_run(RUNS, 2) == 2
    assert default_run(RUNS, 5) == 5  # even unfinished: it is what they were looking at


def test_else_the_newest_complete_run_else_the_newest_run():
    assert default_run(RUNS, 99) == 4  # remembered run deleted since
    assert default_run(RUNS, None) == 4
    assert default_run([(7, "x", "running", 1), (6, "x", "failed", 1)], None) == 7
    assert default_run([], 3) is None
