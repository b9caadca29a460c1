"""The inline note field never traps the review keys (issue 35, 1): Tab out of it, or a
click elsewhere, gives the keys back (the typed note waits, said so, and E returns to it);
Escape closes it wherever the focus is; moving on says the note was not recorded; and the
status strip says which text field has the keys while one has."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer.app import panel as acts

pytestmark = pytest.mark.gui


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(QApplication.focusWidget() or window, key, modifier)


def type_a_note(qtbot, window, text="fins like a shark"):
    press(qtbot, window, Qt.Key.Key_E)
    field = window.page.vote_panel.field
    assert QApplication.focusWidget() is field
    qtbot.keyClicks(field, text)
    return field


def test_tab_out_of_the_note_gives_the_keys_back(qtbot, open_window):
    window = open_window()
    panel = window.page.vote_panel
    type_a_note(qtbot, window)
    press(qtbot, window, Qt.Key.Key_Tab)
    assert not panel.field.hasFocus()
    assert panel.asking() == "note" and panel.field.text() == "fins like a shark"  # the note waits
    assert panel._field_label.text().startswith("Not recorded yet (E goes back to it")
    # E goes back to it, the text kept; Tab again, then Escape closes it.
    press(qtbot, window, Qt.Key.Key_E)
    assert QApplication.focusWidget() is panel.field and panel.field.text() == "fins like a shark"
    press(qtbot, window, Qt.Key.Key_Tab)
    press(qtbot, window, Qt.Key.Key_Escape)
    assert panel.asking() == ""
    row = window.bridge.state.row
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        press(qtbot, window, Qt.Key.Key_J)
    assert window.bridge.state.row == row + 1
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        press(qtbot, window, Qt.Key.Key_K)
    assert window.bridge.state.row == row


def test_a_click_on_the_image_gives_the_keys_back_and_moving_on_says_the_note_is_not_recorded(
        qtbot, open_window, review_project):
    window = open_window()
    panel, key = window.page.vote_panel, window.bridge.state.current_item()
    type_a_note(qtbot, window, "a note left behind")
    qtbot.mouseClick(window.page.image, Qt.MouseButton.LeftButton)
    assert not panel.field.hasFocus()
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        press(qtbot, window, Qt.Key.Key_J)
    assert panel.asking() == ""  # the field belonged to the mistake before
    assert "not recorded" in window.status_text.text() and "a note left behind" in window.status_text.text()
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    assert not acts.my_vote(review_project, panelist_id=window.panelist.id, item=key).note
    assert not window.bridge.state.my_vote(window.bridge.state.current_item()).note


def test_a_vote_key_after_tab_votes_and_enter_then_records_the_note(qtbot, open_window, review_project):
    window = open_window()
    key = window.bridge.state.current_item()
    field = type_a_note(qtbot, window, "tarp")
    press(qtbot, window, Qt.Key.Key_Tab)
    press(qtbot, window, Qt.Key.Key_P)  # problematic: a vote key, with no auto-advance
    qtbot.waitUntil(lambda: window.bridge.state.my_vote(key).problematic, timeout=10_000)
    press(qtbot, window, Qt.Key.Key_E)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    state = acts.my_vote(review_project, panelist_id=window.panelist.id, item=key)
    assert state.note == "tarp" and state.problematic


def test_the_status_strip_names_the_text_field_that_has_the_keys(qtbot, open_window):
    window = open_window()
    type_a_note(qtbot, window)
    assert window.keys_indicator.text().startswith("Typing in the note")
    press(qtbot, window, Qt.Key.Key_Tab)
    assert window.keys_indicator.text() == ""  # the review keys work: nothing to say
    press(qtbot, window, Qt.Key.Key_Escape)
    box = window.page.queue_panel.class_filter
    box.setFocus()
    qtbot.waitUntil(box.hasFocus, timeout=2_000)
    assert window.keys_indicator.text().startswith("Typing in the class filter")
    press(qtbot, window, Qt.Key.Key_Escape)
    assert window.keys_indicator.text() == ""
