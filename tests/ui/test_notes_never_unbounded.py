"""The review page never prints a note unbounded (issue 36): one's own note, another's vote
note, a discussion note and the chair's reason are cut by `reviewer.panel.discussion.shown_text`
(saying how much is left out), and a "show all" link opens the whole text in a dialog. A vote's
note may hold 131,072 characters: the label laid them all out."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QPlainTextEdit
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.app.keymap import default_keymap
from reviewer.items import Item
from reviewer.panel.final import DecisionNote
from reviewer.panel.state import DecidedHow
from reviewer.panel.votes import SeenVote, VoteState
from reviewer.ui.long_text import PAGE_CHARS as SHOWN_MAX_CHARS  # a few lines of the column
from reviewer.ui.review.qt_notes import QtNotesPanel
from reviewer.ui.review.qt_vote_panel import QtVotePanel

pytestmark = pytest.mark.gui

LONG = "".join(f"word{k} " for k in range(9000)).strip()  # 60,000 characters or so


def plain(html: str) -> str:
    document = QTextDocument()
    document.setHtml(html)
    return document.toPlainText()


def whole_text_of(qtbot, label, texts) -> str:
    """Follow the label's "show all" link as a click does; the dialog's text."""
    assert 'href="show-all:' in label.text()
    link = label.text().split('href="', 1)[1].split('"', 1)[0]
    label.linkActivated.emit(link)
    dialog = texts.dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5_000)
    text = dialog.findChild(QPlainTextEdit).toPlainText()
    dialog.close()
    return text


@pytest.fixture
def panel(qtbot):
    panel = QtVotePanel(default_keymap())
    qtbot.addWidget(panel)
    panel.resize(400, 700)
    panel.show()
    return panel


def test_ones_own_note_is_cut_and_shown_whole_on_demand(qtbot, panel):
    panel.show_vote(VoteState(verdict="wrong", note=LONG), status="recorded")
    text = plain(panel.note.text())
    assert len(text) < SHOWN_MAX_CHARS + 200
    assert f"[cut: {len(LONG) - SHOWN_MAX_CHARS:,} more characters]" in text and "show all" in text
    assert whole_text_of(qtbot, panel.note, panel._note_texts) == LONG


def test_anothers_vote_note_is_cut_and_shown_whole_on_demand(qtbot, panel):
    vote = SeenVote(vote_id=1, panelist_id=2, verdict="wrong", problematic=False, severity=None, category=None,
                    oov_name=None, note=LONG, created_at=None)
    panel.show_others([vote], {2: "cat"}, blind=False)
    text = plain(panel.others.text())
    assert len(text) < SHOWN_MAX_CHARS + 200 and "more characters]" in text
    assert whole_text_of(qtbot, panel.others, panel._others_texts) == LONG


def test_the_chairs_reason_is_cut_and_shown_whole_on_demand(qtbot, panel):
    panel.show_vote(VoteState(verdict="correct"), status="recorded")
    panel.show_decision(DecisionNote(verdict="wrong", severity=None, category=None, problematic=False,
                                     how=DecidedHow.OVERRIDE, by="ann", reason=LONG))
    text = plain(panel.decision.text())
    assert text.startswith("Panel's decision: wrong by the chair's override (ann): word0 word1")
    assert len(text) < SHOWN_MAX_CHARS + 300 and "more characters]" in text
    assert whole_text_of(qtbot, panel.decision, panel._decision_texts) == LONG


def test_a_discussion_note_is_cut_and_shown_whole_on_demand(qtbot, review_project):
    ann = acts.add_panelist(review_project, "ann", chair=True).value
    first = snapshot_of(review_project).items[0]
    item = Item(first.image_id, first.predicted)
    note = LONG[:19_000]  # a discussion note holds 20,000 characters at most
    acts.note(review_project, panelist_id=ann.id, item=item, text=note)
    notes = QtNotesPanel()
    qtbot.addWidget(notes)
    notes.resize(400, 600)
    notes.set_source(review_project, ann.id, blind=False)
    with qtbot.waitSignal(notes.notes_shown, timeout=10_000):
        notes.show_item(item)
    text = plain(notes.text())
    assert len(text) < SHOWN_MAX_CHARS + 200 and f"[cut: {len(note) - SHOWN_MAX_CHARS:,} more characters]" in text
    assert whole_text_of(qtbot, notes.body, notes._texts) == note
    notes.shutdown()
