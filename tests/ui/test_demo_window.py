"""`reviewer demo` in the window: first launch builds and runs, second reuses."""

from __future__ import annotations

import pytest

from reviewer.app.demo import demo_root
from reviewer.app.preferences import load_preferences
from reviewer.ui.app import create_app
from reviewer.ui.dialogs.qt_run_dialog import QtRunDialog
from reviewer.ui.qt_main_window import QtMainWindow

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def launch(qtbot) -> QtMainWindow:
    create_app()
    window = QtMainWindow(preferences=load_preferences())
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    return window


def test_demo_runs_the_model_and_opens_at_the_first_mistake(qtbot, few_demo_images):
    window = launch(qtbot)  # a fresh machine: no name remembered yet
    with qtbot.waitSignal(window.page.mistake_shown, timeout=180_000):
        window.open_demo()
    assert window.project.root == demo_root()
    assert window.bridge.state.row == 0 and len(window.bridge.state.queue) == 4
    assert window.page.queue_panel.counts.text() == "4 mistakes: 0 decided · 0 disputed · 4 open; 0 voted by me"
    assert window.panelist.name  # the system user, until they say otherwise
    assert window.page.image.has_image()
    window.close()
    assert str(demo_root()) in load_preferences().recent_projects

    second = launch(qtbot)
    with qtbot.waitSignal(second.page.mistake_shown, timeout=60_000):
        second.open_demo()
    assert second.findChildren(QtRunDialog) == []  # the run is reused, not repeated
    assert len(second.bridge.state.queue) == 4
    second.close()
