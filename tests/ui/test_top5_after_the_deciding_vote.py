"""The window that casts the deciding vote shows the decision in the top-5 statuses too
(issue 35, 5): a unanimous panel decides with its last vote, whose change record names
votes, not a decision, and the prediction stayed "unreviewed" beside "Panel's decision:
wrong … unanimously", even after moving away and back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer.app import panel as acts

pytestmark = pytest.mark.gui


def press(qtbot, window, key):
    qtbot.keyClick(QApplication.focusWidget() or window, key)


def top1(window, key):
    return next(r for r in window.page.details.topk._rows if r.cls.index == key.predicted)


def test_the_deciding_vote_shows_in_the_top5(qtbot, open_window, review_project):
    who = {name: acts.add_panelist(review_project, name, chair=name == "ann").value.id for name in ("ann", "bob", "cat")}
    window = open_window(panelist_name="bob")
    key = window.bridge.state.current_item()
    for name in ("ann", "cat"):
        acts.vote(review_project, panelist_id=who[name], item=key, verdict="wrong", severity="major",
                  category="fine_grained", problematic=False)
    qtbot.waitUntil(lambda: window.page.details._detail is not None, timeout=10_000)
    assert not top1(window, key).decided
    for k in (Qt.Key.Key_W, Qt.Key.Key_M, Qt.Key.Key_F):  # the third vote: the panel is unanimous
        press(qtbot, window, k)
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    assert acts.decision_of(review_project, item=key) is not None
    assert window.bridge.state.current_item() != key  # the complete vote moved on
    # The queue's row reads the decision while the next mistake is shown; then back to it.
    qtbot.waitUntil(lambda: window.bridge.state.queue.entry(key).decision is not None, timeout=10_000)
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        press(qtbot, window, Qt.Key.Key_K)
    qtbot.waitUntil(lambda: "unanimously" in window.page.vote_panel.decision.text(), timeout=10_000)
    qtbot.waitUntil(lambda: top1(window, key).decided and top1(window, key).label_kind == "wrong", timeout=10_000)
    # Away and back: still the decision's, not the facts read before it.
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        press(qtbot, window, Qt.Key.Key_J)
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        press(qtbot, window, Qt.Key.Key_K)
    qtbot.waitUntil(lambda: top1(window, key).decided and top1(window, key).label_kind == "wrong", timeout=10_000)
