"""The main window's Analysis view (View menu, Ctrl+Shift+A) and File > Export…,
on the real review project; the export runs on the window's worker thread."""

from __future__ import annotations

import json
import os

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QTableWidget

pytestmark = pytest.mark.gui


def cells(table) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def menu_action(window, menu_title: str, text: str):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == menu_title)
    return next(a for a in menu.actions() if a.text().split("\t")[0] == text)


def test_analysis_opens_with_ctrl_shift_a_and_shows_the_runs(qtbot, open_window, review_project, tmp_path):
    window = open_window()
    # The menu shows the key (the window's key dispatcher runs it, reviewer.ui.keys).
    assert menu_action(window, "&View", "Analysis (report tables and plots)").text().endswith("\tCtrl+Shift+A")
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_A,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    view = window._analysis_view
    assert view is not None and view.isVisible() and view.isWindow()
    assert view.project is window.project
    with qtbot.waitSignal(view.loaded, timeout=60_000):
        pass
    titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]
    assert "MLA" in titles and "Leaderboard" in titles
    # The project's one run (resnet50, 8 mistakes over 8 images) is in the accuracy table.
    view.tabs.setCurrentIndex(titles.index("MLA"))
    rows = [row for table in view.tabs.currentWidget().widget().findChildren(QTableWidget) for row in cells(table)]
    assert any("resnet50" in " ".join(row) for row in rows), rows
    # The same key again raises the open view instead of opening a second one.
    window.activateWindow()
    window.trigger("analysis_view")
    assert window._analysis_view is view

    view.tabs.setCurrentIndex(titles.index("MLA"))
    window.grab().save(str(tmp_path / "window.png"))
    view.grab().save(str(tmp_path / "analysis.png"))
    if os.environ.get("REVIEWER_SCREENSHOTS"):
        window.grab().save(os.path.join(os.environ["REVIEWER_SCREENSHOTS"], "window_with_analysis.png"))
        view.grab().save(os.path.join(os.environ["REVIEWER_SCREENSHOTS"], "analysis_from_window.png"))
    window.close()  # closing the project closes its analysis window
    assert not view.isVisible()


def test_export_writes_a_versioned_folder_off_the_ui_thread(qtbot, open_window, review_project, tmp_path,
                                                            monkeypatch):
    window = open_window()
    out = tmp_path / "exports"
    out.mkdir()
    asked = []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: asked.append(a) or str(out)))
    export = menu_action(window, "&File", "Export…")
    with qtbot.waitSignal(window.exported, timeout=60_000) as done:
        export.trigger()
        assert not export.isEnabled()  # the worker writes; the UI thread returned at once
    folder = out / "export-0001"
    assert done.args == [str(folder)]
    assert asked[0][2] == str(window.project.root)  # the folder picker starts beside the project
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["export_version"] == 1
    assert (folder / "multilabel_annotations.json").is_file() and "labels.csv" in manifest["outputs"]
    assert str(folder) in window.status_text.text()
    # What `reviewer export` prints first (issue 35): the panel's decisions, and what was left out.
    assert window.status_text.text().startswith(f"Exported to {folder}: 0 decisions of the panel")
    assert export.isEnabled()
    # A second export makes the next version, leaving the first as it was.
    with qtbot.waitSignal(window.exported, timeout=60_000) as again:
        export.trigger()
    assert again.args == [str(out / "export-0002")]


def test_export_into_a_file_says_why_and_writes_nothing(qtbot, open_window, tmp_path, monkeypatch):
    window = open_window()
    not_a_folder = tmp_path / "labels.json"
    not_a_folder.write_text("{}")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(not_a_folder)))
    with qtbot.waitSignal(window.export_failed, timeout=60_000) as failed:
        window.export_project()
    assert "is a file" in failed.args[0]
    assert "Export failed" in window.status_text.text() and str(not_a_folder) in window.status_text.text()
    assert not_a_folder.read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir() if "export" in p.name) == []


def test_export_cancelled_in_the_folder_dialog_does_nothing(qtbot, open_window, tmp_path, monkeypatch):
    window = open_window()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: ""))
    window.export_project()
    assert window.export_action.isEnabled() and "Export" not in window.status_text.text()
