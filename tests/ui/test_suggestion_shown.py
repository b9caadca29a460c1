"""The suggested category and severity beside the vote: its two buttons outlined, none checked,
nothing cast or stored, the reasons in one line; hidden until my verdict when I see the evidence
only after voting (the suggestion is made of it)."""

from __future__ import annotations

from html import escape

import pytest
from PySide6.QtCore import Qt
from sqlalchemy import func, select

from db.tables import Vote

pytestmark = pytest.mark.gui


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
    assert "Suggested, not voted" in text and escape(found.reasons) in text
    assert page.review.my_vote(key).empty and votes_stored(review_project) == 0

    # My verdict is my key press; the category and severity stay mine to give.
    qtbot.keyClick(page, Qt.Key.Key_2)  # wrong
    qtbot.waitUntil(lambda: page.review.status.get(key) == "recorded", timeout=20_000)
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
    assert escape(found.reasons) in panel.suggestion.text()
    window.set_evidence_before_vote(True)
