"""Smaller things of issue 35, 9, each on its part alone: the queue's filter boxes stay
where they are when the counts above them need another line (a mouse landed on the wrong
box), and the start screen's name box opens the selected project on Return and drops a
refusal about the name it had before."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.ui.app import create_app

pytestmark = pytest.mark.gui


def test_the_filter_boxes_stay_put_when_the_counts_wrap(qtbot):
    from reviewer.ui.review.qt_queue_panel import QtQueuePanel

    create_app()
    panel = QtQueuePanel()
    qtbot.addWidget(panel)
    panel.resize(280, 700)  # the narrowest queue
    panel.show()
    qtbot.waitExposed(panel)
    panel.counts.setText("No run")
    qtbot.waitUntil(lambda: panel.class_filter.isVisible(), timeout=2_000)
    panel.layout().activate()
    where = {box: box.mapTo(panel, box.rect().topLeft()).y() for box in (panel.status, panel.class_filter, panel.sort)}
    long = "12,345 mistakes: 1,234 decided · 567 disputed · 10,544 open; 2,345 voted by me"
    panel.counts.setText(long)
    panel.layout().activate()
    assert {box: box.mapTo(panel, box.rect().topLeft()).y() for box in where} == where
    assert long in panel.counts.toolTip()


def test_return_in_the_name_opens_the_selected_project_and_a_stale_refusal_goes(qtbot, tmp_path):
    from reviewer.ui.dialogs.qt_start_screen import QtStartScreen

    create_app()
    screen = QtStartScreen()
    qtbot.addWidget(screen)
    screen.set_recent([str(tmp_path / "first"), str(tmp_path / "second")])
    screen.recent.setCurrentRow(1)
    screen.set_name("bob")
    screen.show()
    qtbot.waitExposed(screen)
    screen.show_error("bob is not on this panel")
    qtbot.keyClicks(screen.name, "by")  # another name: the refusal was about the one before
    assert screen.error.isHidden()
    with qtbot.waitSignal(screen.open_project, timeout=2_000) as opened:
        qtbot.keyClick(screen.name, Qt.Key.Key_Return)
    assert opened.args == [str(tmp_path / "second")]


def test_the_status_bar_drops_a_refusal_about_the_name_typed_before(qtbot):
    from reviewer.app.preferences import Preferences
    from reviewer.ui.qt_main_window import QtMainWindow

    create_app()
    window = QtMainWindow(preferences=Preferences(panelist_name="Dan"))
    qtbot.addWidget(window)
    window.show_message("Dan is not on this panel, and the chair has closed it", error=True)
    window.start.name.setText("bob")
    assert window.status_text.text() == ""
