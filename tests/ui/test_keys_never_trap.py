"""The keyboard never traps: keys as X11 sends them on a US layout, keys after a filter
was set with the mouse, one meeting closed by its keys, Ctrl+Q closing everything,
and the key editor recording a pressed key."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QAction, QKeyEvent, QShortcut
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionSpinBox

from reviewer.app import panel as acts

pytestmark = pytest.mark.gui


def xcb_key(key: Qt.Key, text: str, modifiers=Qt.KeyboardModifier.ShiftModifier, target=None) -> None:
    """A key as Qt's xcb platform delivers it: '?' on a US layout is Shift+/, arriving
    as Key_Question with the Shift modifier and the text '?'; '+' is Shift+=."""
    target = target or QApplication.focusWidget() or QApplication.activeWindow()
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        QApplication.sendEvent(target, QKeyEvent(kind, key, modifiers, text))


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(QApplication.focusWidget() or window, key, modifier)


def test_question_mark_and_plus_as_x11_sends_them(qtbot, open_window, qtlog):
    window = open_window()
    xcb_key(Qt.Key.Key_Question, "?")
    assert window.help.isVisible()
    press(qtbot, window, Qt.Key.Key_Escape)
    assert not window.help.isVisible()
    image = window.page.image
    before = image.zoom()
    xcb_key(Qt.Key.Key_Plus, "+")
    assert image.zoom() > before and not image.is_fit()
    assert not [m for m in qtlog.records if "Ambiguous shortcut" in m.message]
    # No key is a Qt shortcut (the source of the ambiguity on X11), not even Quit's Ctrl+Q.
    bound = [(a.text(), a.shortcut().toString()) for a in window.findChildren(QAction) if not a.shortcut().isEmpty()]
    assert bound == []
    assert not window.findChildren(QShortcut)


def arrow_point(box, control=QStyle.SubControl.SC_SpinBoxUp) -> QPoint:
    option = QStyleOptionSpinBox()
    box.initStyleOption(option)
    return box.style().subControlRect(QStyle.ComplexControl.CC_SpinBox, option, control, box).center()


def test_vote_keys_after_a_spin_box_was_set_with_the_mouse(qtbot, open_window, review_project):
    window = open_window()
    panel = window.page.queue_panel
    box = panel.min_distance
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=arrow_point(box))
    assert box.value() == 0  # "any" -> 0: the arrow stepped it
    qtbot.waitUntil(lambda: not box.hasFocus(), timeout=2_000)
    qtbot.waitUntil(lambda: window.bridge.state.current_item() is not None, timeout=5_000)
    key = window.bridge.state.current_item()
    press(qtbot, window, Qt.Key.Key_2)  # a vote, not a "02" in the box
    assert box.value() == 0
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    assert acts.my_vote(review_project, panelist_id=window.panelist.id, item=key).verdict == "wrong"


@pytest.mark.parametrize("finish", [Qt.Key.Key_Escape, Qt.Key.Key_Return])
def test_enter_or_escape_hands_the_keys_back_from_every_filter_box(qtbot, open_window, finish):
    window = open_window()
    panel = window.page.queue_panel
    for box in (panel.class_filter, panel.min_distance, panel.max_distance, panel.min_confidence,
                panel.max_confidence, panel.status, panel.sort):
        box.setFocus()
        qtbot.waitUntil(box.hasFocus, timeout=2_000)
        press(qtbot, window, finish)
        assert not box.hasFocus(), type(box).__name__
        row = window.bridge.state.row
        press(qtbot, window, Qt.Key.Key_J)  # reviewing again: J moves on
        assert window.bridge.state.row == row + 1, type(box).__name__
        press(qtbot, window, Qt.Key.Key_K)


def test_one_meeting_with_its_own_keys(qtbot, open_window, review_project):
    from reviewer.ui.meeting.qt_meeting_view import QtMeetingView

    who = {name: acts.add_panelist(review_project, name).value.id for name in ("ann", "bob")}
    queue = acts.review_queue(review_project, run_id=review_project.run_id, panelist_id=who["ann"])
    for entry in queue.shown()[:3]:  # three split items for the list
        for name, verdict in (("ann", "correct"), ("bob", "wrong")):
            acts.vote(review_project, panelist_id=who[name], item=entry.item, verdict=verdict, problematic=False)
    window = open_window()
    for _ in range(2):
        press(qtbot, window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
        window.activateWindow()
    views = [w for w in QApplication.topLevelWidgets() if isinstance(w, QtMeetingView) and w.isVisible()]
    assert len(views) == 1
    view = views[0]
    assert view.width() >= 1200 or view.width() >= 0.9 * view.screen().availableGeometry().width()
    view.activateWindow()
    qtbot.waitUntil(lambda: view.list.hasFocus(), timeout=5_000)  # not the "Split on" filter
    qtbot.waitUntil(lambda: view.selected_item() is not None, timeout=10_000)
    first = view.selected_item()
    press(qtbot, view, Qt.Key.Key_J)
    qtbot.waitUntil(lambda: view.selected_item() not in (None, first), timeout=5_000)
    press(qtbot, view, Qt.Key.Key_K)
    qtbot.waitUntil(lambda: view.selected_item() == first, timeout=5_000)
    qtbot.waitUntil(view.votes.new_note.isEnabled, timeout=5_000)
    press(qtbot, view, Qt.Key.Key_E)  # the note key: into the note field; Escape back to the list
    assert view.votes.new_note.hasFocus()
    press(qtbot, view, Qt.Key.Key_Escape)
    assert view.list.hasFocus() and view.isVisible()
    press(qtbot, view, Qt.Key.Key_Escape)
    assert not view.isVisible()
    press(qtbot, window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    view = window._meeting_view
    assert view.isVisible()
    view.activateWindow()
    press(qtbot, view, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    assert not view.isVisible()


def test_the_analysis_closes_with_escape(qtbot, open_window):
    window = open_window()
    press(qtbot, window, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    view = window._analysis_view
    assert view.isVisible()
    view.activateWindow()
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert not view.isVisible()


def test_ctrl_q_in_the_meeting_closes_every_window(qtbot, open_window):
    window = open_window()
    press(qtbot, window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    press(qtbot, window, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    meeting, analysis = window._meeting_view, window._analysis_view
    meeting.activateWindow()
    qtbot.keyClick(meeting, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=5_000)
    assert not meeting.isVisible() and not analysis.isVisible()
    assert not [w for w in QApplication.topLevelWidgets() if w.isVisible()]


def test_the_key_editor_records_a_pressed_key(qtbot):
    from reviewer.app.keymap import ACTIONS, default_keymap
    from reviewer.ui.app import create_app
    from reviewer.ui.dialogs.qt_keymap_dialog import QtKeymapDialog

    create_app()
    dialog = QtKeymapDialog(default_keymap())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    row = next(i for i, a in enumerate(ACTIONS) if a.name == "verdict_wrong")
    dialog.table.setCurrentCell(row, 1)
    qtbot.mouseClick(dialog.record, Qt.MouseButton.LeftButton)
    xcb_key(Qt.Key.Key_Question, "?", target=dialog)  # Shift+/ on a US layout: recorded as "?"
    assert dialog.bindings()["verdict_wrong"] == ("2", "W", "?")
    qtbot.mouseClick(dialog.record, Qt.MouseButton.LeftButton)
    QApplication.sendEvent(dialog, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_X, Qt.KeyboardModifier.ControlModifier,
                                             "\x18"))
    assert dialog.bindings()["verdict_wrong"] == ("2", "W", "?", "Ctrl+X")
