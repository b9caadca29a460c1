"""The window opened on the review project (tests/conftest.py: `review_project`)."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture
def open_window(qtbot, review_project):
    """open_window(**preferences) -> the main window opened on the review
    project as panelist "ann", shown at 1280x800, its first mistake on screen."""
    from reviewer.app import panel as acts
    from reviewer.app.preferences import Preferences
    from reviewer.ui.app import create_app
    from reviewer.ui.qt_main_window import QtMainWindow

    create_app()
    windows = []

    def make(**prefs):
        name = prefs.pop("panelist_name", "ann")
        # The panelist is on the panel (a new name would be asked before joining: reviewer.panel.membership).
        acts.join_panel(review_project, name, join=True)
        window = QtMainWindow(preferences=Preferences(panelist_name=name, **prefs))
        qtbot.addWidget(window)
        window.resize(1280, 800)
        window.show()
        window.activateWindow()
        qtbot.waitExposed(window)
        with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
            window.open_project(str(review_project.root))
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()


# Four images the bundled model gets wrong and two it gets right (assets/demo/manifest.json).
FEW_DEMO_IMAGES = ["n01494475_hammerhead.JPEG", "n01534433_junco.JPEG", "n01608432_kite.JPEG",
                   "n01616318_vulture.JPEG", "n01443537_goldfish.JPEG", "n01560419_bulbul.JPEG"]


@pytest.fixture
def few_demo_images(tmp_path, monkeypatch):
    """The demo made of six of its shipped images (a run of the real model takes seconds)."""
    import reviewer.app.demo
    from reviewer.paths import asset

    folder = tmp_path / "demo_images"
    folder.mkdir()
    for name in FEW_DEMO_IMAGES:
        shutil.copy(asset("demo", "images", name), folder / name)
    monkeypatch.setattr(reviewer.app.demo, "demo_images", lambda: folder)
    return folder


def pytest_collection_modifyitems(items):
    """Every test here drives Qt: `-m "not gui"` leaves them all out."""
    for item in items:
        if "tests/ui/" in item.nodeid.replace("\\", "/") or item.nodeid.startswith("ui/"):
            item.add_marker(pytest.mark.gui)


@pytest.fixture
def window_on(qtbot):
    """window_on(project, panelist="ann") -> the main window opened on `project` (its
    panelist on the panel already), shown at 1280x800, its first mistake on screen, with the
    panel's scope read (the run selector's counts, the lines about the scope)."""
    from reviewer.app.preferences import load_preferences
    from reviewer.ui.app import create_app
    from reviewer.ui.qt_main_window import QtMainWindow

    create_app()
    windows = []

    def make(project, panelist: str = "ann"):
        prefs = load_preferences()  # what an earlier window of the test remembered (the last queue)
        prefs.panelist_name = panelist
        window = QtMainWindow(preferences=prefs)
        qtbot.addWidget(window)
        window.resize(1280, 800)
        window.show()
        qtbot.waitExposed(window)
        with qtbot.waitSignals([window.page.mistake_shown, window.scope_read], timeout=30_000):
            window.open_project(str(project.root))
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()


@pytest.fixture
def choose_in_combo(qtbot):
    """choose_in_combo(combo, index): pick an entry as a user does, opening the list and
    clicking the entry (which emits `activated`, as a setCurrentIndex does not)."""
    from PySide6.QtCore import Qt

    def choose(combo, index: int) -> None:
        combo.showPopup()
        view = combo.view()
        qtbot.waitUntil(view.isVisible)
        model_index = view.model().index(index, combo.modelColumn(), view.rootIndex())
        view.scrollTo(model_index)
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(model_index).center())

    return choose
