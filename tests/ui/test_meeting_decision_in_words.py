"""The meeting says a decision in words, as the review page does ('wrong · Major ·
Non-prototypical'), not the stored values ('major, non_prototypical'). The votes pane alone."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtGui import QTextDocument

from reviewer.items import Item
from reviewer.panel.meeting import ItemPanel
from reviewer.terms import Category, Severity
from reviewer.ui.meeting.qt_meeting_votes import QtMeetingVotes

pytestmark = pytest.mark.gui


def test_the_meetings_decision_line_is_in_words(qtbot):
    decision = SimpleNamespace(method="majority", verdict="wrong", severity="major", category="non_prototypical",
                               oov_name=None, problematic=True, reason="verdict: wrong 2, correct 1")
    pane = QtMeetingVotes()
    qtbot.addWidget(pane)
    pane.show_panel(ItemPanel(item=Item(7, 42), columns=[], viewer_fields=frozenset({"verdict"}),
                              unanimity={}, majority=None, decision=decision, notes=[], history=[]), chair=False)
    document = QTextDocument()
    document.setHtml(pane.decision.text())
    text = document.toPlainText()
    assert f"wrong · {Severity('major').caption} · {Category('non_prototypical').caption} · ground truth " \
           "problematic" in text
    assert "non_prototypical" not in text and "major," not in text
