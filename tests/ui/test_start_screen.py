"""The start screen: the panelist's name, recent projects, a new project."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt

from reviewer.app.preferences import Preferences, load_preferences
from reviewer.ui.app import create_app
from reviewer.ui.dialogs.qt_new_project_dialog import QtNewProjectDialog
from reviewer.ui.qt_main_window import QtMainWindow

pytestmark = pytest.mark.gui


def test_name_is_required_and_remembered_and_recent_project_opens_with_enter(qtbot, review_project, monkeypatch):
    monkeypatch.setattr("reviewer.ui.qt_main_window.default_name", lambda: "")  # the OS gives no login name
    create_app()
    window = QtMainWindow(preferences=Preferences(recent_projects=[str(review_project.root), "/no/such/project"]))
    qtbot.addWidget(window)
    window.show()
    start = window.start
    assert not start.demo_button.isEnabled() and start.name_hint.isVisible()
    assert start.recent.count() == 1  # a folder that is no longer a project is not offered
    qtbot.keyClicks(start.name, "Ada")
    assert start.demo_button.isEnabled()
    start.recent.setFocus()
    with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
        qtbot.keyClick(start.recent, Qt.Key.Key_Return)
    assert window.panelist.name == "Ada" and "Reviewing as Ada" in window.panelist_label.text()
    window.close()
    assert load_preferences().panelist_name == "Ada"


def test_new_project_from_an_image_folder_and_a_label_file(qtbot, tmp_path, shared_data):
    create_app()
    images = tmp_path / "images"
    images.mkdir()
    for name in ("n01440764_tench.JPEG", "n01443537_goldfish.JPEG"):
        shutil.copy(shared_data / "imagenet-samples" / name, images / name)
    dialog = QtNewProjectDialog()
    qtbot.addWidget(dialog)
    dialog.root.setText(str(tmp_path / "new"))
    dialog.create()
    assert "image folder or at least one label file" in dialog.message.text()
    dialog.images.setText(str(images))
    bad = tmp_path / "labels.txt"
    bad.write_text("n01440764_tench.JPEG not_a_class\n")
    dialog.labels.addItem(str(bad))
    dialog.create()
    qtbot.waitUntil(lambda: dialog.create_button.isEnabled(), timeout=20_000)
    assert "labels.txt" in dialog.message.text() and "line 1" in dialog.message.text()
    assert not (tmp_path / "new" / "project.json").exists()  # nothing half-made
    dialog.labels.clear()
    with qtbot.waitSignal(dialog.accepted, timeout=20_000):
        dialog.create()
    assert dialog.created_root == str(tmp_path / "new")
    assert (tmp_path / "new" / "project.json").exists()


def test_gui_on_a_project_opens_under_the_os_login_name(qtbot, review_project, monkeypatch):
    monkeypatch.setattr("reviewer.ui.qt_main_window.default_name", lambda: "ada")
    create_app()
    window = QtMainWindow(preferences=Preferences())
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
        window.open_project(str(review_project.root))  # `reviewer gui PROJECT` on a fresh machine
    assert window.panelist.name == "ada"
    assert window.panelist_label.text() == "Reviewing as ada"
    assert "SQLite project: anyone who can write" in window.panelist_label.toolTip()
    window.close()


def test_gui_on_a_project_asks_the_name_first_then_opens_it(qtbot, review_project, monkeypatch):
    monkeypatch.setattr("reviewer.ui.qt_main_window.default_name", lambda: "")  # the OS gives no login name
    create_app()
    window = QtMainWindow(preferences=Preferences())
    qtbot.addWidget(window)
    window.show()
    window.open_project(str(review_project.root))  # `reviewer gui PROJECT` on a fresh machine
    assert window.stack.currentWidget() is window.start
    assert "Enter your name first" in window.status_text.text()
    qtbot.keyClicks(window.start.name, "Bo")
    window.start.recent.setFocus()
    with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
        qtbot.keyClick(window.start.recent, Qt.Key.Key_Return)
    assert window.project.root == review_project.root
    window.close()


def test_a_damaged_project_says_why_and_how_to_recover_in_full(qtbot, review_project, tmp_path):
    """A project.db whose first page is overwritten: the start screen shows the whole message,
    recovery command included and selectable (the status bar cut it off mid-command)."""
    import shutil

    damaged = tmp_path / "damaged"
    shutil.copytree(review_project.root, damaged)
    db = damaged / "project.db"
    for journal in damaged.glob("project.db-*"):  # the write-ahead log's pages would stand in for it
        journal.unlink()
    data = bytearray(db.read_bytes())
    data[:4096] = b"\xa5" * 4096
    db.write_bytes(bytes(data))
    create_app()
    window = QtMainWindow(preferences=Preferences(panelist_name="ann"))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    window.open_project(str(damaged))
    qtbot.waitUntil(lambda: window.start.error.isVisible(), timeout=20_000)
    text = window.start.error.text()
    assert window.stack.currentWidget() is window.start
    assert str(db) in text or "project.db" in text
    assert "sqlite3 project.db .recover | sqlite3 recovered.db" in text, text  # the recovery command, whole
    assert window.start.error.wordWrap() and window.start.error.textInteractionFlags() & \
        Qt.TextInteractionFlag.TextSelectableByMouse
    # The whole of it is on screen: the label is as tall as its wrapped text needs.
    assert window.start.error.height() >= window.start.error.heightForWidth(window.start.error.width())
    with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
        window.open_project(str(review_project.root))
    assert not window.start.error.isVisible() and window.start.error.text() == ""
    window.close()
