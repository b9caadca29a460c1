"""The meeting (issue 35, 9): Escape in the discussion box leaves the box, not the whole
meeting, also with no active window (an X11 session without a window manager, where the app names
no focus widget); and the Majority column shows no severity or category where the majority's
verdict is "correct" (it showed the one "wrong" vote's severity)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.items import Item

pytestmark = pytest.mark.gui


@pytest.fixture
def meeting(qtbot, review_project):
    from reviewer.ui.app import create_app
    from reviewer.ui.meeting.qt_meeting_view import QtMeetingView

    project = review_project
    items = [Item(i.image_id, i.predicted) for i in snapshot_of(project).items]
    ann, bob, cy = (acts.add_panelist(project, n, chair=n == "ann").value.id for n in ("ann", "bob", "cy"))
    for who, fields in ((ann, dict(verdict="correct")), (bob, dict(verdict="correct")),
                        (cy, dict(verdict="wrong", severity="major", category="fine_grained"))):
        acts.vote(project, panelist_id=who, item=items[0], **fields)
    create_app()
    # cy's view: cy rated the item (wrong, major), so the Majority column may show its severity row
    view = QtMeetingView(project, acts.join_panel(project, "cy").value)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    with qtbot.waitSignal(view.item_shown, timeout=20_000):
        view.show()
    return project, (ann, bob, cy), items, view


def test_escape_in_the_discussion_box_leaves_the_box_with_no_active_window(qtbot, meeting):
    project, _, items, view = meeting
    qtbot.waitUntil(view.votes.new_note.isEnabled, timeout=5_000)
    view.votes.new_note.setFocus()
    other = QPushButton("another window, then gone")
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is other, timeout=5_000)
    other.hide()  # now no window is active, as under X11 without a window manager
    qtbot.waitUntil(lambda: QApplication.focusWidget() is None, timeout=5_000)
    qtbot.keyClick(view.votes.new_note, Qt.Key.Key_Escape)
    assert view.isVisible() and view.focusWidget() is view.list  # back to the list, the view open


def test_the_majority_column_shows_no_rating_beside_a_correct_majority(qtbot, meeting):
    project, (ann, bob, cy), items, view = meeting
    panel = acts.meeting_item(project, snapshot=view._state.snapshot, item=items[0], viewer_id=cy)
    assert panel.majority.verdict == "correct" and panel.majority.severity is None
    assert "severity" not in panel.majority.counts
    table = view.votes.table
    rows = {table.verticalHeaderItem(r).text().lstrip("⚠ "): r for r in range(table.rowCount())}
    majority = table.columnCount() - 1
    assert table.item(rows["Verdict"], majority).text() == "correct"
    assert table.item(rows["Severity"], majority).text() == ""
    assert table.item(rows["Category"], majority).text() == ""


def test_escape_in_a_show_all_dialog_closes_the_dialog_not_the_meeting(qtbot, meeting):
    """The whole of a long note opens in a dialog of the meeting's; Escape there is the dialog's."""
    from PySide6.QtWidgets import QPlainTextEdit

    project, (ann, bob, cy), items, view = meeting
    long = " ".join(f"word{k}" for k in range(2000))
    acts.note(project, panelist_id=bob, item=items[0], text=long)
    qtbot.waitUntil(lambda: "show all" in view.votes.notes.toPlainText(), timeout=10_000)
    link = view.votes.notes.toHtml().split('href="', 1)[1].split('"', 1)[0]
    from PySide6.QtCore import QUrl

    view.votes.notes.anchorClicked.emit(QUrl(link))
    dialog = view.votes._note_texts.dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5_000)
    box = dialog.findChild(QPlainTextEdit)
    assert box.toPlainText() == long
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5_000)
    qtbot.wait(100)
    assert view.isVisible()
