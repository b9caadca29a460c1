"""What the review page must keep while a key costs less (issue 30): each change that cut
the UI thread's work per key has its behaviour pinned here."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.gui


def press(qtbot, window, key):
    qtbot.keyClick(QApplication.focusWidget() or window, key)


def settle(qtbot, window) -> None:
    runner = window.bridge.runner
    qtbot.waitUntil(lambda: not runner.busy() and not window.bridge.state.pending, timeout=10_000)
    QApplication.processEvents()


class Paints(QObject):
    def __init__(self, *widgets):
        super().__init__()
        self.count = {widget: 0 for widget in widgets}
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.count[watched] += 1
        return False


def test_the_next_mistake_is_painted_at_once_without_painting_what_did_not_change(qtbot, open_window):
    """The key paints the new mistake before the queued background results (the page is
    painted when `mistake_shown` fires), and a vote button whose state did not change is not
    painted again (the panes used to be repainted whole at every key)."""
    window = open_window()
    window.prefs.auto_advance = window.page.auto_advance = "on"
    page = window.page
    settle(qtbot, window)
    unchanged = page.vote_panel.buttons["toggle_problematic"]  # unchecked before and after
    state = window.bridge.state
    before = state.current_item()
    coming = state.queue[state.row + 1].item
    # The next mistake's facts and image read ahead (the image loader decodes on its own worker).
    qtbot.waitUntil(lambda: state.detail(coming) is not None and state.detail(coming).image_exists
                    and page.loader.cached(page.image.fit_key(state.detail(coming).image_path)) is not None,
                    timeout=10_000)
    paints = Paints(unchanged, page.image)
    press(qtbot, window, Qt.Key.Key_1)  # correct: on to the next mistake (its facts and image read ahead)
    # Within the key press, before any queued event ran: the new mistake is on screen and painted.
    assert window.bridge.state.current_item() != before
    assert paints.count[page.image] >= 1
    settle(qtbot, window)
    assert paints.count[unchanged] == 0


def test_the_facts_document_follows_the_mistake_and_is_kept_for_going_back(qtbot, open_window):
    """One document per shown text: the facts of each mistake, the first one's document
    shown again (its layout kept) when the panelist goes back to it."""
    window = open_window()
    page, state = window.page, window.bridge.state
    settle(qtbot, window)
    first_doc = page.details.view.document()
    first_text = first_doc.toPlainText()
    assert "ORIGINAL LABEL" not in first_text and "Original label" in first_text
    assert "GROUND TRUTH" in first_text and "DEFINITIONS" in first_text
    detail = state.detail(state.current_item())
    assert detail.predicted.definition[:30] in first_text
    with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
        state.next()
    second = state.detail(state.current_item())
    assert page.details.view.document() is not first_doc
    assert second.predicted.definition[:30] in page.details.view.document().toPlainText()
    with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
        state.previous()
    assert page.details.view.document() is first_doc


def test_example_strips_show_the_new_mistakes_images_only(qtbot, open_window, review_project):
    """The strips' items are filled again for each mistake rather than made anew: a strip
    shows exactly the new class's images (no thumbnail or file left from the previous one)."""
    window = open_window()
    page, state = window.page, window.bridge.state
    settle(qtbot, window)
    rows = (page.exemplars.predicted, page.exemplars.label)

    def shown(row):
        return [row.strip.list.item(i).data(Qt.ItemDataRole.UserRole).file_name
                for i in range(row.strip.list.count()) if not row.strip.list.item(i).isHidden()]

    seen = []
    for _ in range(len(state.queue) - 1):
        detail = state.detail(state.current_item())
        qtbot.waitUntil(lambda d=detail: shown(rows[0]) == [e.file_name for e in d.predicted_exemplars
                                                            if e.path is not None][:8], timeout=10_000)
        label = [e.file_name for e in detail.label_exemplars if e.path is not None][:8] if detail.label_class else []
        assert shown(rows[1]) == label
        for row in rows:
            hidden = [row.strip.list.item(i) for i in range(row.strip.list.count()) if row.strip.list.item(i).isHidden()]
            assert all(item.isHidden() for item in hidden)
            assert row.strip.list.isVisible() == bool(shown(row))
        seen.append(tuple(shown(rows[0])))
        with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
            state.next()
    assert len(set(seen)) > 1  # the mistakes' classes differ: the strips changed with them


def test_moving_on_reads_no_decision_beyond_the_facts_and_a_lock_elsewhere_still_shows(
        qtbot, open_window, review_project, monkeypatch):
    """A mistake shown from the facts read ahead asks the database nothing more for its
    decision (a read per key on the reader thread, which competes with the window for the
    interpreter); a decision made meanwhile comes with its change record, which reads the
    facts again, and the page shows it."""
    from reviewer.app import panel as acts

    window = open_window()
    page, state = window.page, window.bridge.state
    settle(qtbot, window)
    asked = []
    real = acts.decision_of
    monkeypatch.setattr(acts, "decision_of", lambda *a, **k: asked.append(k.get("item")) or real(*a, **k))
    for _ in range(3):
        with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
            state.next()
    settle(qtbot, window)
    assert asked == []
    shown = state.current_item()
    chair = acts.add_panelist(review_project, "chair", chair=True).value.id
    done = acts.override(review_project, chair_id=chair, item=shown, verdict="unclear", reason="seen elsewhere")
    window.bridge.watcher.publish(done.changes)  # as the poll reports another window's act
    qtbot.waitUntil(lambda: "unclear" in page.vote_panel.decision.text(), timeout=10_000)


class LayoutRequests(QObject):
    def __init__(self, widget):
        super().__init__()
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def test_a_vote_clears_a_note_in_the_status_bar_and_otherwise_leaves_it_alone(qtbot, open_window):
    """A vote ends a note shown in the status bar; with none shown, a vote does not lay the
    status bar (and with it the window) out again, as clearing an empty label did at every key."""
    window = open_window()
    window.prefs.auto_advance = window.page.auto_advance = "off"
    settle(qtbot, window)
    window.show_message("Zoom probe: done")
    press(qtbot, window, Qt.Key.Key_1)
    assert window.status_text.text() == ""
    settle(qtbot, window)
    layouts = LayoutRequests(window.statusBar())
    press(qtbot, window, Qt.Key.Key_3)
    settle(qtbot, window)
    assert layouts.count == 0
    window.show_message("the disk is full", error=True)
    press(qtbot, window, Qt.Key.Key_1)
    assert window.status_text.text() == "the disk is full"  # an error stays until read
