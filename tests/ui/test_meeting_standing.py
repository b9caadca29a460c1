"""The meeting shows the domain's standing (issue 35, 2): its header counts
decided and disputed as the queue and panel-status do, a row whose verdict is decided but whose
severity is split says "≠ disputed" (in phase 2, in its tooltip), and after a lock the view
moves on to the next row the domain calls open, not to one whose decision's words look open."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.items import Item

pytestmark = pytest.mark.gui


def test_the_meeting_counts_and_steps_by_the_domains_standing(qtbot, review_project, monkeypatch):
    from reviewer.ui.app import create_app
    from reviewer.ui.meeting.qt_meeting_view import QtMeetingView

    project = review_project
    items = [Item(i.image_id, i.predicted) for i in snapshot_of(project).items]
    ann, bob, cy = (acts.add_panelist(project, n, chair=n == "ann").value.id for n in ("ann", "bob", "cy"))
    for who, verdict in ((ann, "wrong"), (bob, "wrong"), (cy, "correct")):
        for k in (0, 1, 2):  # 2:1 on each
            acts.vote(project, panelist_id=who, item=items[k], verdict=verdict)
    acts.lock(project, chair_id=ann, item=items[1])  # decided: wrong by the majority, rated by nobody yet
    acts.lock(project, chair_id=ann, item=items[2])  # wrong by the majority, then the severity splits
    for who, severity in ((ann, "major"), (bob, "minor"), (cy, "major")):
        acts.vote(project, panelist_id=who, item=items[2], severity=severity, category="fine_grained")

    create_app()
    monkeypatch.setattr(QtMeetingView, "resamples", 50)
    monkeypatch.setattr(QtMeetingView, "confirm_lock", lambda self, preview: "lock")
    view = QtMeetingView(project, acts.join_panel(project, "ann").value)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    with qtbot.waitSignal(view.item_shown, timeout=20_000):
        view.show()
    assert view.title.text() == "3 images without unanimity: 1 decided · 2 disputed"
    row = [r.item for r in view.rows].index(items[2])
    cell = view.model.index(row, 2)
    assert view.model.data(cell) == "wrong ≠"  # decided wrong, disputed (the tooltip says where)
    assert "disputed in phase 2: severity" in view.model.data(cell, Qt.ItemDataRole.ToolTipRole)
    # The chair locks the first: the view moves on past the decided one to the one disputed in phase 2
    # (its decision reads "wrong (majority)", which the view once took for settled).
    assert view.selected_item() == items[0]
    with qtbot.waitSignal(view.action_done, timeout=10_000):
        qtbot.mouseClick(view.votes.lock, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.selected_item() == items[2], timeout=10_000)
    qtbot.waitUntil(lambda: view.title.text() == "3 images without unanimity: 2 decided · 1 disputed",
                    timeout=10_000)
