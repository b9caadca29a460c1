"""The suggested category and severity beside the vote: its two buttons outlined, none checked,
nothing cast or stored, the reasons in one line; hidden until my verdict when I see the evidence
only after voting (the suggestion is made of it)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from sqlalchemy import func, select

from db.tables import Vote

pytestmark = pytest.mark.gui


def shows_the_reasons(panel, reasons: str) -> bool:
    """The suggestion line shows the reasons, whole or (where its three lines are too narrow)
    their start cut at a word with "…"; its tooltip has them whole."""
    from PySide6.QtGui import QTextDocument

    document = QTextDocument()
    document.setHtml(panel.suggestion.text())
    shown = document.toPlainText().split(" — ", 1)[1]
    whole_or_cut = shown == reasons or (shown.endswith("…") and reasons.startswith(shown[:-1]))
    return whole_or_cut and reasons in panel.suggestion.toolTip()


def votes_stored(project) -> int:
    with project.read() as session:
        return session.execute(select(func.count()).select_from(Vote)).scalar_one()


def test_the_suggestion_is_outlined_not_voted(qtbot, open_window, review_project):
    window = open_window()
    page, panel = window.page, window.page.vote_panel
    key = page.review.current_item()
    found = page.review.detail(key).suggestion
    suggested = {f"category_{found.category}", f"severity_{found.severity}"}
    qtbot.waitUntil(lambda: panel.suggested() == suggested, timeout=20_000)
    assert not any(button.isChecked() for button in panel.buttons.values())
    text = panel.suggestion.text()
    assert "Suggested, not voted" in text and shows_the_reasons(panel, found.reasons)
    assert page.review.my_vote(key).empty and votes_stored(review_project) == 0

    # My verdict is my key press; the category and severity stay mine to give.
    qtbot.keyClick(page, Qt.Key.Key_2)  # wrong
    qtbot.waitUntil(lambda: page.review.vote_status(key) == "recorded", timeout=20_000)
    assert panel.buttons["verdict_wrong"].isChecked()
    assert not any(panel.buttons[name].isChecked() for name in suggested)
    assert panel.suggested() == suggested
    vote = page.review.my_vote(key)
    assert (vote.verdict, vote.severity, vote.category) == ("wrong", None, None)


def test_hidden_until_my_verdict_when_evidence_waits_for_it(qtbot, open_window, review_project):
    window = open_window()
    page, panel = window.page, window.page.vote_panel
    key = page.review.current_item()
    found = page.review.detail(key).suggestion
    window.set_evidence_before_vote(False)
    assert panel.suggested() == set()
    assert "Suggestion hidden until you give your verdict" in panel.suggestion.text()
    qtbot.keyClick(page, Qt.Key.Key_2)
    qtbot.waitUntil(lambda: panel.suggested() == {f"category_{found.category}", f"severity_{found.severity}"},
                    timeout=20_000)
    assert shows_the_reasons(panel, found.reasons)
    window.set_evidence_before_vote(True)


def test_a_long_reason_ends_in_an_ellipsis_within_its_lines_and_the_tooltip_has_it_whole(qtbot):
    """The suggestion has a fixed place (three lines): a reason longer than that is cut at a word
    with "…", never mid-line without a mark, and laid out again when the panel's width changes."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QTextDocument

    from reviewer.app.keymap import default_keymap
    from reviewer.ui.review.qt_vote_panel import SUGGESTION_LINES, QtVotePanel

    panel = QtVotePanel(default_keymap())
    qtbot.addWidget(panel)
    panel.resize(380, 600)
    panel.show()
    reasons = "; ".join(f"reason number {k} with several words in it" for k in range(12))
    panel.show_suggestion("fine_grained", "major", reasons)

    def shown_text() -> str:
        document = QTextDocument()
        document.setHtml(panel.suggestion.text())
        return document.toPlainText()

    text = shown_text()
    assert text.endswith("…") and text.startswith("Suggested, not voted: Fine-grained · Major — reason number 0")
    label = panel.suggestion
    lines = label.fontMetrics().boundingRect(QRect(0, 0, label.contentsRect().width(), 100_000),
                                            Qt.TextFlag.TextWordWrap, text).height() // label.fontMetrics().lineSpacing()
    assert lines <= SUGGESTION_LINES
    assert reasons in panel.suggestion.toolTip()
    panel.resize(1400, 600)
    qtbot.waitUntil(lambda: shown_text() != text, timeout=5_000)
    assert len(shown_text()) > len(text)  # wider: more of the reasons
    panel.show_suggestion("fine_grained", "major", "WordNet distance 4")
    assert shown_text().endswith("WordNet distance 4")  # short: whole, no mark
