"""The window says when a Distance range is given upside down (issue 35, 9): 5 to 2 is read as
2 to 5 and the queue panel says so, where the queue used to empty without a word."""

from __future__ import annotations


def test_an_upside_down_distance_range_is_said_and_the_queue_not_emptied(qtbot, open_window):
    window = open_window()
    panel, shown = window.page.queue_panel, len(window.bridge.state.queue)
    panel.max_distance.setValue(2)
    panel.min_distance.setValue(5)
    panel.finish_editing()
    qtbot.waitUntil(lambda: not panel.class_hint.isHidden(), timeout=10_000)
    assert panel.class_hint.text() == "Distance 5 to 2 read as 2 to 5"
    qtbot.waitUntil(lambda: window.bridge.state.queue.filter.min_distance == 2, timeout=10_000)
    assert 0 < len(window.bridge.state.queue) <= shown
