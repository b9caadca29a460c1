"""The review page's smaller defects of issue 23's walk: an empty out-of-vocabulary
name, and the zoom probe's crops over the image."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer.app import panel as acts

pytestmark = pytest.mark.gui


def press(qtbot, window, key):
    qtbot.keyClick(QApplication.focusWidget() or window, key)


def test_an_empty_object_name_asks_again_and_escape_says_nothing_was_recorded(qtbot, open_window, review_project):
    window = open_window()
    page, key = window.page, window.session.current_key()
    for k in (Qt.Key.Key_W, Qt.Key.Key_M, Qt.Key.Key_O):
        press(qtbot, window, k)
    field = page.vote_panel.field
    assert field.isVisible()
    qtbot.keyClick(field, Qt.Key.Key_Return)  # no name typed
    # Still asking, saying why; nothing recorded as fine-grained OOV.
    assert field.isVisible() and QApplication.focusWidget() is field
    assert page.vote_panel.asking() == "oov_name"
    assert page.vote_panel._field_label.text().startswith("A name is needed")
    assert "needs the object's name" in window.status_text.text()
    qtbot.waitUntil(lambda: not window.session.pending, timeout=10_000)
    assert acts.my_vote(review_project, reviewer_id=window.reviewer.id, item=key).category is None
    # Escape cancels, and says so.
    qtbot.keyClick(field, Qt.Key.Key_Escape)
    assert not field.isVisible()
    assert window.status_text.text().startswith("Not recorded: the out-of-vocabulary category needs")
    # Asked again, a name records it.
    press(qtbot, window, Qt.Key.Key_O)
    qtbot.keyClicks(field, "carp")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.session.pending, timeout=10_000)
    state = acts.my_vote(review_project, reviewer_id=window.reviewer.id, item=key)
    assert (state.category, state.oov_name) == ("fine_grained_oov", "carp")
