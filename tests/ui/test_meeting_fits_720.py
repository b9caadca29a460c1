"""The meeting fits a 1280x720 screen (issue 35, 3): its minimum height was 853 px in a real X11
window, past the screen, with a panel of three, long notes and the chair's long reason. The
votes pane and the Agreement tab now scroll as one where the window is short; the image column
sets the minimum."""

from __future__ import annotations

import pytest
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.items import Item

pytestmark = pytest.mark.gui

LONG = " ".join(f"word{k}" for k in range(2000))  # a 13,000-character note, within a discussion note's bound
SCREEN_ROOM = 700  # 720 px less a panel or a title bar


def test_the_meeting_fits_a_720_pixel_screen(qtbot, review_project, monkeypatch):
    from reviewer.ui.app import create_app
    from reviewer.ui.meeting.qt_meeting_view import QtMeetingView

    project = review_project
    items = [Item(i.image_id, i.predicted) for i in snapshot_of(project).items][:3]
    ann, bob, cat = (acts.add_panelist(project, n, chair=n == "ann").value.id for n in ("ann", "bob", "cat"))
    for item in items:
        acts.vote(project, panelist_id=ann, item=item, verdict="wrong", severity="major", category="fine_grained",
                  note="the tail is forked")
        acts.vote(project, panelist_id=bob, item=item, verdict="correct", note=LONG)
        acts.vote(project, panelist_id=cat, item=item, verdict="wrong", severity="minor",
                  category="non_prototypical", note="a kite, seen from below")
        acts.note(project, panelist_id=ann, item=item, text=LONG)
        acts.note(project, panelist_id=bob, item=item, text="I still say it is right")
    acts.override(project, chair_id=ann, item=items[1], verdict="wrong", severity="major",
                  category="fine_grained", reason=LONG)
    create_app()
    monkeypatch.setattr(QtMeetingView, "resamples", 20)
    view = QtMeetingView(project, acts.join_panel(project, "ann").value)
    qtbot.addWidget(view)
    view.resize(1280, 660)
    with qtbot.waitSignal(view.item_shown, timeout=20_000):
        view.show()
    qtbot.waitUntil(lambda: view.votes.table.rowCount() and view.votes.table.columnCount() == 4, timeout=5_000)
    assert view.minimumSizeHint().height() <= SCREEN_ROOM
    with qtbot.waitSignal(view.item_shown, timeout=20_000):
        view.list.selectRow(1)  # the overridden item: the chair's long reason under the votes
    assert "show all" in view.votes.decision.text()
    assert view.minimumSizeHint().height() <= SCREEN_ROOM
    qtbot.waitUntil(lambda: view.agreement.stats.columnCount() > 0, timeout=30_000)
    view.tabs.setCurrentWidget(view.agreement)
    assert view.minimumSizeHint().height() <= SCREEN_ROOM
    # Short as the window is, the panelist's own vote and the discussion are reached by scrolling the pane.
    view.tabs.setCurrentWidget(view.votes)
    view.resize(1280, SCREEN_ROOM - 40)
    qtbot.waitUntil(lambda: view.height() <= SCREEN_ROOM, timeout=5_000)
    view.votes.scroll.ensureWidgetVisible(view.votes.new_note)
    corner = view.votes.new_note.mapTo(view.votes.scroll.viewport(), view.votes.new_note.rect().bottomLeft())
    assert 0 <= corner.y() <= view.votes.scroll.viewport().height()
