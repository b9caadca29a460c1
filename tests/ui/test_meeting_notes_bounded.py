"""The meeting never prints a note unbounded (issue 36): the discussion's notes, a vote's note
in the votes table, the chair's reason and the history's lines are cut by
`reviewer.app.panel.shown_text` (saying how much is left out), as the review page cuts them, and
the whole opens in a dialog ("show all"; a double-click on a vote's note). A vote's note may hold
131,072 characters. The votes pane is shown alone, on a panel built by hand."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QPlainTextEdit

from reviewer.items import Item
from reviewer.panel.discussion import HistoryEntry
from reviewer.panel.meeting import ItemPanel, PanelColumn
from reviewer.panel.votes import SeenVote
from reviewer.ui.long_text import PAGE_CHARS
from reviewer.ui.meeting.qt_meeting_votes import QtMeetingVotes

pytestmark = pytest.mark.gui

LONG = "".join(f"word{k} " for k in range(9000)).strip()  # 80,000 characters or so
WHEN = datetime(2026, 11, 28, 12, 0)
CUT = f"[cut: {len(LONG) - PAGE_CHARS:,} more characters]"


def vote(panelist_id: int, note: str | None, *, hidden=frozenset()) -> SeenVote:
    return SeenVote(vote_id=panelist_id, panelist_id=panelist_id, verdict="wrong", problematic=False,
                    severity=None, category=None, oov_name=None, note=note, created_at=WHEN, hidden=hidden)


def long_panel() -> ItemPanel:
    decision = SimpleNamespace(method="override", verdict="wrong", severity=None, category=None, oov_name=None,
                               problematic=False, reason=LONG)
    columns = [PanelColumn(1, "ann", True, True, vote(1, "short")),
               PanelColumn(2, "bob", False, False, vote(2, LONG)),
               PanelColumn(3, "cat", False, False, vote(3, LONG, hidden=frozenset({"note"})))]
    return ItemPanel(item=Item(7, 42), columns=columns, viewer_fields=frozenset({"verdict"}),
                     unanimity={"verdict": True}, majority=None, decision=decision,
                     notes=[("bob", LONG, WHEN), ("cat", "a short one", WHEN)],
                     history=[HistoryEntry(WHEN, "ann", "override", LONG)])


@pytest.fixture
def votes(qtbot):
    pane = QtMeetingVotes()
    qtbot.addWidget(pane)
    pane.resize(520, 700)
    pane.show()
    pane.show_panel(long_panel(), chair=True)
    return pane


def test_discussion_notes_are_cut_and_shown_whole_on_demand(qtbot, votes):
    text = votes.notes.toPlainText()
    assert len(text) < 3 * PAGE_CHARS and CUT in text and "show all" in text and "a short one" in text
    assert votes._note_texts.html("a short one", title="x") == "a short one"  # a short note is whole
    link = votes.notes.toHtml().split('href="', 1)[1].split('"', 1)[0]
    votes.notes.anchorClicked.emit(QUrl(link))  # a click on the link
    dialog = votes._note_texts.dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5_000)
    assert dialog.findChild(QPlainTextEdit).toPlainText() == LONG
    dialog.close()


def test_the_chairs_reason_and_the_history_are_cut_and_linked(qtbot, votes):
    decision = votes.decision.text()
    assert CUT in decision and 'href="show-all:' in decision and len(decision) < 3 * PAGE_CHARS + 600
    votes.decision.linkActivated.emit(decision.split('href="', 1)[1].split('"', 1)[0])
    qtbot.waitUntil(lambda: votes._decision_texts.dialog is not None and votes._decision_texts.dialog.isVisible(),
                    timeout=5_000)
    assert votes._decision_texts.dialog.findChild(QPlainTextEdit).toPlainText() == LONG
    votes._decision_texts.dialog.close()
    history = votes.history.toPlainText()
    assert CUT in history and len(history) < 3 * PAGE_CHARS


def test_a_vote_note_in_the_table_is_cut_and_opens_whole_on_a_double_click(qtbot, votes):
    table, row = votes.table, 5  # ROWS: the note's row
    assert table.verticalHeaderItem(row).text() == "Note"
    assert table.item(row, 0).text() == "short"
    cell = table.item(row, 1).text()
    assert CUT in cell and cell.endswith("(double-click: show all)") and len(cell) < PAGE_CHARS + 100
    assert len(table.item(row, 1).toolTip()) < 2_500  # the tooltip bounded as `reviewer show` bounds it
    assert table.item(row, 2).text() == "hidden until you vote" and table.item(row, 2).toolTip() == ""
    table.cellDoubleClicked.emit(row, 2)  # a hidden note opens nothing
    table.cellDoubleClicked.emit(row, 0)  # nor does one shown whole
    assert votes.whole_note is None
    table.cellDoubleClicked.emit(row, 1)
    qtbot.waitUntil(lambda: votes.whole_note is not None and votes.whole_note.isVisible(), timeout=5_000)
    assert votes.whole_note.findChild(QPlainTextEdit).toPlainText() == LONG
    votes.whole_note.close()


def test_my_own_long_note_is_kept_whole_in_the_editor(votes):
    panel = long_panel()
    note = (LONG + LONG)[:100_000]  # past Qt's 32,767 of a line edit, within a vote's 131,072
    mine = PanelColumn(1, "ann", True, True, vote(1, note))
    votes.show_panel(ItemPanel(**{**panel.__dict__, "columns": [mine, *panel.columns[1:]]}), chair=True)
    assert votes.my_note.text() == note  # saved again as it was, not cut
