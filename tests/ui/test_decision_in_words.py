"""The panel's decision reads in words, as the rest of the review page says a vote
("wrong · Major · Fine-grained"), never the raw stored values ("major, fine_grained")."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument

from reviewer.app.keymap import default_keymap
from reviewer.panel.final import DecisionNote
from reviewer.panel.state import DecidedHow
from reviewer.panel.votes import VoteState
from reviewer.ui.review.qt_vote_panel import QtVotePanel

pytestmark = pytest.mark.gui


def test_the_decision_says_its_severity_and_category_in_words(qtbot):
    panel = QtVotePanel(default_keymap())
    qtbot.addWidget(panel)
    panel.resize(420, 600)
    panel.show()
    panel.show_vote(VoteState(verdict="wrong", severity="minor", category="fine_grained"), status="recorded")
    panel.show_decision(DecisionNote(verdict="wrong", severity="major", category="spurious_correlation",
                                     problematic=True, how=DecidedHow.MAJORITY, by="ann", reason=""))
    document = QTextDocument()
    document.setHtml(panel.decision.text())
    text = document.toPlainText()
    assert ("Panel's decision: wrong · Major · Spurious correlation · ground truth problematic "
            "by the majority, locked by the chair (ann)") in text
    assert "spurious_correlation" not in text and "major," not in text
