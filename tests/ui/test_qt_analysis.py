"""The Analysis tab on a real reviewed project: tables and plots arrive from a
worker thread; the options recompute the report."""

from __future__ import annotations

import os

import pytest
from project_data import new_project
from review_data import add_images, add_run, decide

from reviewer.app.imports import import_review
from reviewer.evaluation.slices import save_slice

pytestmark = pytest.mark.gui


@pytest.fixture
def analysed(tmp_path, shared_data):
    """The published greedy-soups review, plus a run over six images that the panel reviewed."""
    project = new_project(tmp_path / "p")
    import_review(project, shared_data / "imagenet-mistakes" / "greedy_soups_mistakes.json", model="greedy_soups")
    ids = add_images(project, [1, 2, 3, 4, 5, 6], start=40001)
    add_run(project, "model-A", dict(zip(ids, [1, 2, 3, 40, 50, 60])), probs=dict.fromkeys(ids, 0.8))
    decide(project, ids[3], 40, "correct")
    decide(project, ids[4], 50, "wrong", severity="minor", category="fine_grained")
    decide(project, ids[5], 60, "wrong", severity="major", category="spurious_correlation")
    project.write(lambda session: save_slice(session=session, name="imagenet_m", image_ids=ids[2:]))
    return project


def cells(table) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def test_tables_and_plots_load_off_the_ui_thread(qtbot, analysed, tmp_path):
    from PySide6.QtWidgets import QLabel, QTableWidget

    from reviewer.ui.dialogs.qt_analysis import QtAnalysisView

    view = QtAnalysisView(analysed, load=False)
    qtbot.addWidget(view)
    view.resize(1100, 800)
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=60_000):
        view.refresh()
        assert not view.refresh_button.isEnabled()  # the UI thread returned at once; the worker computes
    titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]
    assert titles == ["Project", "MLA", "Categories", "Error types", "Chi-square", "Confusions", "Distance", "Models", "Top-k",
                      "PatchML", "Calibration",
                      "Leaderboard", "Panel", "Sources", "Zoom", "Leakage"]
    view.tabs.setCurrentIndex(2)
    page = view.tabs.currentWidget().widget()
    categories, severities = page.findChildren(QTableWidget)
    assert cells(severities) == [["greedy_soups", "35.7% (89/249)", "64.3% (160/249)", "249"],
                                 ["model-A", "50.0% (1/2)", "50.0% (1/2)", "2"]]
    plot = page.findChild(QLabel, "shares.png")
    assert plot is not None and not plot.pixmap().isNull() and plot.pixmap().width() > 400
    view.grab().save(str(tmp_path / "analysis_categories.png"))
    if os.environ.get("REVIEWER_SCREENSHOTS"):
        view.grab().save(os.path.join(os.environ["REVIEWER_SCREENSHOTS"], "analysis_categories.png"))

    # Keeping Borderline apart recomputes the report with a third severity column.
    with qtbot.waitSignal(view.loaded, timeout=60_000):
        view.borderline_box.setChecked(True)
    severities = view.tabs.widget(2).widget().findChildren(QTableWidget)[1]
    assert cells(severities)[0] == ["greedy_soups", "35.7% (89/249)", "44.6% (111/249)", "19.7% (49/249)", "249"]
    assert view.tabs.currentIndex() == 2  # the user's tab is kept
    view.tabs.setCurrentIndex(titles.index("Leaderboard"))
    board = view.tabs.currentWidget().widget().findChildren(QTableWidget)[0]
    assert "50.0% (2/4), CI 6.8%–93.2%" in cells(board)[0]  # the score (beside it the run's precision)
    if os.environ.get("REVIEWER_SCREENSHOTS"):
        view.grab().save(os.path.join(os.environ["REVIEWER_SCREENSHOTS"], "analysis_leaderboard.png"))
    view.shutdown()


def test_the_leaderboard_slice_is_chosen_in_the_bar(qtbot, analysed):
    """A project's curated split (not only imagenet_m) can be scored from the GUI,
    as with 'reviewer report --slice'."""
    from PySide6.QtWidgets import QTableWidget

    from reviewer.ui.dialogs.qt_analysis import QtAnalysisView

    ids = [int(i) for i in analysed.engine.connect().exec_driver_sql(
        "SELECT id FROM image WHERE file_name LIKE 'ILSVRC2012_val_0004000%' ORDER BY id").scalars()]
    analysed.write(lambda session: save_slice(session=session, name="hard", image_ids=ids[5:]))  # model-A's mistake
    view = QtAnalysisView(analysed, load=False)
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.loaded, timeout=60_000):
        view.refresh()
    assert [view.slice_box.itemText(i) for i in range(view.slice_box.count())] == ["hard", "imagenet_m"]
    assert view.slice_box.currentText() == "imagenet_m"  # the paper's slice first
    with qtbot.waitSignal(view.loaded, timeout=60_000):
        view.slice_box.setCurrentIndex(0)
        view.slice_box.activated.emit(0)  # as a user's pick
    titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]
    page = view.tabs.widget(titles.index("Leaderboard")).widget()
    board = page.findChildren(QTableWidget)[0]
    headers = [board.horizontalHeaderItem(c).text() for c in range(board.columnCount())]
    assert "hard" in headers  # the slice's score column (the run's precision beside it)
    assert cells(board)[0][headers.index("hard")] == "0.0% (0/1), CI 0.0%–97.5%"
    assert view.slice_box.currentText() == "hard"  # kept after the reload
    view.shutdown()
