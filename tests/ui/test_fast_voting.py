"""Keys pressed faster than the votes are written: the window reads back what it must
once, after the last write of an item, and still shows everything right; the queue
repaints only the row whose state changed."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QColor

from reviewer.app import panel as acts
from reviewer.errors import UserError
from reviewer.terms import Verdict
from reviewer.ui.theme import KIND_COLOURS

pytestmark = pytest.mark.gui


def press(qtbot, window, key):
    from PySide6.QtWidgets import QApplication

    qtbot.keyClick(QApplication.focusWidget() or window, key)


def count_calls(monkeypatch, name: str) -> list:
    """Record every call of reviewer.app.panel.<name> (the window calls it on its workers)."""
    calls, real = [], getattr(acts, name)

    def counted(*args, **kwargs):
        calls.append(kwargs.get("item") or kwargs.get("items"))
        return real(*args, **kwargs)

    monkeypatch.setattr(acts, name, counted)
    return calls


def first_mistake(project):
    return acts.review_queue(project, run_id=project.run_id, panelist_id=None).shown()[0].item


def settle(qtbot, window) -> None:
    """Wait until every task the window gave its reader and writer has come back (and so
    any read a callback asks for has been asked and answered), then paint what is due.
    Waits on the workers, not on a time: a loaded machine only makes it take longer."""
    from PySide6.QtWidgets import QApplication

    bridge = window.bridge
    qtbot.waitUntil(lambda: not bridge.reader.busy() and not bridge.writer.busy(), timeout=10_000)
    QApplication.processEvents()


def hold_writer(window) -> threading.Event:
    """Keep the window's vote writer busy until the event is set: the keys pressed
    meanwhile all wait in its queue, as when a panelist types faster than it writes."""
    release = threading.Event()
    window.bridge.writer.submit(release.wait, 10)
    return release


def test_three_quick_keys_read_the_item_back_once_and_show_all(qtbot, open_window, review_project, monkeypatch):
    """bob voted wrong; ann presses wrong, major, fine-grained before any is written: each key
    is one vote row, the others' votes and the item's queue state are read once (after the
    last write), and the window shows bob's vote and the panel's state of the item."""
    bob = acts.add_panelist(review_project, "bob").value.id
    key = first_mistake(review_project)
    # Before the window opens: no poll reports it (and reads the item) while the keys are tested.
    acts.vote(review_project, panelist_id=bob, item=key, verdict="wrong", severity="major", category="fine_grained")
    window = open_window()
    window.prefs.auto_advance = window.page.auto_advance = "off"
    assert window.bridge.state.current_item() == key
    others_reads, state_reads = count_calls(monkeypatch, "others"), count_calls(monkeypatch, "item_states")
    release = hold_writer(window)
    for k in (Qt.Key.Key_W, Qt.Key.Key_M, Qt.Key.Key_F):
        press(qtbot, window, k)
    assert window.bridge.state.pending[key] == 3
    release.set()
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    qtbot.waitUntil(lambda: bool(state_reads), timeout=10_000)
    settle(qtbot, window)  # any further read would have been asked by now (none should be)
    assert [items for items in state_reads if key in items] == [[key]]
    assert others_reads.count(key) == 1
    entry = window.bridge.state.queue.entry(key)
    assert entry.my_verdict == Verdict.WRONG
    # Both voted wrong: the panel's state of the item was read after the last write.
    assert entry.stands_wrong
    assert [v.panelist_id for v in window.bridge.state.others[key]] == [bob]
    assert "bob" in window.page.vote_panel.others.text()
    mine = acts.my_vote(review_project, panelist_id=window.panelist.id, item=key)
    assert (mine.verdict, mine.severity, mine.category) == ("wrong", "major", "fine_grained")


def test_a_failed_last_write_still_reads_the_item_back(qtbot, open_window, review_project, monkeypatch):
    """wrong is written, major fails: the earlier write's read-back waited for this one, so the
    failure reads the item's state and the others' votes itself."""
    bob = acts.add_panelist(review_project, "bob").value.id
    key = first_mistake(review_project)
    acts.vote(review_project, panelist_id=bob, item=key, verdict="wrong")
    window = open_window()
    window.prefs.auto_advance = window.page.auto_advance = "off"
    assert window.bridge.state.current_item() == key
    real_vote = acts.vote

    def vote(project, **fields):
        if fields.get("severity"):
            raise UserError("the disk is full (test)")
        return real_vote(project, **fields)

    monkeypatch.setattr(acts, "vote", vote)
    state_reads = count_calls(monkeypatch, "item_states")
    release = hold_writer(window)
    press(qtbot, window, Qt.Key.Key_W)
    press(qtbot, window, Qt.Key.Key_M)
    release.set()
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    assert "not recorded" in window.bridge.state.vote_failure(key)
    # The failure asks the reader (two threads: answers in any order) for the item's state,
    # the others' votes and the vote the database holds; each is waited for, not assumed.
    qtbot.waitUntil(lambda: any(key in items for items in state_reads), timeout=10_000)
    qtbot.waitUntil(lambda: bool(window.bridge.state.others.get(key)), timeout=10_000)
    qtbot.waitUntil(lambda: window.bridge.state.queue.entry(key).stands_wrong, timeout=10_000)
    # What the database holds: until its read-back lands the window shows no vote of ours.
    qtbot.waitUntil(lambda: window.bridge.state.my_vote(key).verdict == Verdict.WRONG, timeout=10_000)
    settle(qtbot, window)
    assert window.bridge.state.my_vote(key).verdict == Verdict.WRONG and "not recorded" in window.bridge.state.vote_failure(key)


class PaintedRects(QObject):
    def __init__(self, widget):
        super().__init__()
        self.rects: list[QRect] = []
        widget.installEventFilter(self)

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.rects.append(event.rect())
        return False


def test_a_vote_repaints_its_queue_row_and_only_that_row(qtbot, open_window):
    """The dot of the voted row turns the verdict's colour; the rest of the list is not
    painted again (it used to be, for every vote: the whole list per key press)."""
    window = open_window()
    window.prefs.auto_advance = window.page.auto_advance = "off"
    view = window.page.queue_panel.view
    settle(qtbot, window)  # the first paints are done
    row_rect = view.visualRect(view.model().index(window.bridge.state.row))
    painted = PaintedRects(view.viewport())
    press(qtbot, window, Qt.Key.Key_1)  # correct
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    qtbot.waitUntil(lambda: bool(painted.rects), timeout=10_000)
    settle(qtbot, window)  # every repaint the vote asked for is done
    assert all(row_rect.contains(rect) for rect in painted.rects), (row_rect, painted.rects)
    image = view.viewport().grab().toImage()
    dpr = image.devicePixelRatio()
    # The delegate draws the 10 px verdict dot at (8, 8) inside the row's rectangle.
    dot = image.pixelColor(int((row_rect.x() + 13) * dpr), int((row_rect.y() + 13) * dpr))
    assert dot == QColor(KIND_COLOURS[Verdict.CORRECT]), dot.name()
