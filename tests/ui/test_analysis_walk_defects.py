"""The analysis window's Models and Distance tabs say what they count and why they are
empty (issue 23's walk)."""

from __future__ import annotations

import pytest
from project_data import new_project
from review_data import add_images, add_run, decide

pytestmark = pytest.mark.gui


def loaded_view(qtbot, project):
    from reviewer.ui.dialogs.qt_analysis import QtAnalysisView

    view = QtAnalysisView(project, load=False)
    qtbot.addWidget(view)
    view.resize(1100, 800)
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=60_000):
        view.refresh()
    return view


def tab(view, title: str):
    index = next(i for i in range(view.tabs.count()) if view.tabs.tabText(i) == title)
    view.tabs.setCurrentIndex(index)
    return view.tabs.currentWidget().widget()


def test_models_tab_judged_correct_is_not_unclear_and_distance_says_why_it_is_blank(qtbot, tmp_path):
    from PySide6.QtWidgets import QLabel, QTableWidget

    project = new_project(tmp_path / "p")
    ids = add_images(project, [1, 2, 3])
    add_run(project, "model-A", dict(zip(ids, [40, 50, 60])), probs=dict.fromkeys(ids, 0.8))
    decide(project, ids[0], 40, "unclear")
    decide(project, ids[1], 50, "unclear")
    view = loaded_view(qtbot, project)
    distance = tab(view, "Distance")
    message = distance.findChild(QLabel, "empty")
    assert message is not None and message.isVisible()
    assert message.text().startswith("Nothing to plot yet: no mistake is decided wrong")
    models = tab(view, "Models")
    table = models.findChildren(QTableWidget)[-1]
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    row = dict(zip(headers, (table.item(0, c).text() for c in range(table.columnCount()))))
    assert row["judged correct"] == "0.0% (0/2)"  # no item is correct (it said 100.0 %, counting unclear)
    assert row["judged unclear"] == "100.0% (2/2)"
    view.shutdown()
