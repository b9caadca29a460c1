"""The review page keeps its size from one mistake to the next: a large panel's votes
scroll in their own box instead of growing the column (and, with no window manager to
refuse, the window: seen in a real X11 window, 800 px tall growing to 965 px)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from reviewer.app import panel as acts

pytestmark = pytest.mark.gui


def test_twenty_other_votes_scroll_and_the_window_keeps_its_height(qtbot, open_window, review_project):
    item = acts.review_queue(review_project, run_id=review_project.run_id, panelist_id=None).shown()[0].item
    for n in range(20):
        panelist = acts.add_panelist(review_project, f"panelist {n:02d}").value.id
        acts.vote(review_project, panelist_id=panelist, item=item, verdict="wrong", note=f"note {n}")
    window = open_window()
    window.prefs.auto_advance = window.page.auto_advance = "off"
    height = window.height()
    panel = window.page.vote_panel
    assert window.bridge.state.current_item() == item
    window.page.trigger("verdict_wrong")  # blind review lifts: twenty votes with notes to show
    qtbot.waitUntil(lambda: "panelist 19" in panel.others.text(), timeout=10_000)
    for _ in range(5):
        QApplication.processEvents()
    assert window.height() == height
    assert panel.others_box.height() < panel.others.height()  # the votes scroll in their box
    assert panel.others_box.verticalScrollBar().maximum() > 0


def test_the_vote_panel_keeps_its_height_through_the_queue(qtbot, open_window):
    """Suggestions of different lengths (and none) do not change the vote panel's height:
    the facts below it are not moved, laid out and painted again at every key."""
    window = open_window()
    state, panel = window.bridge.state, window.page.vote_panel
    heights, texts = set(), set()
    for _ in range(len(state.queue)):
        qtbot.waitUntil(lambda: state.detail(state.current_item()) is not None, timeout=10_000)
        QApplication.processEvents()
        heights.add(panel.height())
        texts.add(panel.suggestion.text())
        if not state.next():
            break
    assert len(texts) > 1  # the suggestions differ from one mistake to the next
    assert len(heights) == 1
