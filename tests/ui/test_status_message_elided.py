"""A long message in the status strip never widens the window (issue 35, 3): its label took the
message's whole width, so a 2,000-character message made the window wider than the screen. It
is cut with "…" and the whole message is its tooltip."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.gui

LONG = "Export failed: " + "/a/very/deep/folder" * 105  # 2,010 characters


def test_a_long_message_leaves_the_minimum_width_and_is_whole_in_its_tooltip(qtbot, open_window):
    window = open_window()
    before = window.minimumSizeHint().width()
    window.status.show_message(LONG[:2000], error=True)
    label = window.status_text
    assert label.text() == LONG[:2000]
    QApplication.processEvents()  # the window laid out again with the message
    window.layout().activate()
    assert window.minimumSizeHint().width() == before
    assert window.width() <= 1280
    qtbot.waitUntil(lambda: label.toolTip() != "", timeout=5_000)
    assert LONG[:2000] in label.toolTip().replace("<br>", "")
    assert label.shown_text().endswith("…") and len(label.shown_text()) < 400


def test_the_strip_clears_what_it_showed(qtbot, open_window):
    window = open_window()
    window.status.show_message(LONG[:2000])
    window.status.clear_message()
    label = window.status_text
    assert label.text() == "" and label.plain_text() == "" and not label.is_elided()
