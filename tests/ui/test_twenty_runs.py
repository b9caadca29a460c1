"""Twenty models in the window (issue 34): the run selector and the analysis's model list stay
one readable column, each entry telling its run apart, every model's whole name in its tooltip,
and the analysis draws the plots of the one model chosen rather than twenty at every refresh.

The project: 30 images with their labels, twenty complete runs of real timm model names (long,
several alike but for a size in the middle), each wrong on its own images; built once per module
and copied per test."""

from __future__ import annotations

import re
import shutil

import pytest
from project_data import new_project
from review_data import add_images, add_run

from reviewer.project import Project

pytestmark = pytest.mark.gui

MODELS = [
    "vit_large_patch14_clip_336.openai_ft_in12k_in1k", "convnext_xxlarge.clip_laion2b_soup_ft_in1k",
    "eva02_large_patch14_448.mim_m38m_ft_in22k_in1k", "beit_large_patch16_512.in22k_ft_in22k_in1k",
    "swinv2_large_window12to24_192to384.ms_in22k_ft_in1k", "deit3_huge_patch14_224.fb_in22k_ft_in1k",
    "tf_efficientnetv2_xl.in21k_ft_in1k", "caformer_b36.sail_in22k_ft_in1k_384", "regnety_1280.swag_ft_in1k",
    "vit_huge_patch14_clip_336.laion2b_ft_in12k_in1k", "maxvit_xlarge_tf_512.in21k_ft_in1k",
    "coatnet_rmlp_2_rw_384.sw_in12k_ft_in1k", "resnet50.a1_in1k", "efficientnet_b0.ra_in1k",
    "convnextv2_huge.fcmae_ft_in22k_in1k_512", "vit_base_patch16_clip_384.laion2b_ft_in12k_in1k",
    "eva_giant_patch14_560.m30m_ft_in22k_in1k", "beitv2_large_patch16_224.in1k_ft_in22k_in1k",
    "seresnextaa201d_32x8d.sw_in12k_ft_in1k_384", "vit_large_patch14_clip_224.openai_ft_in12k_in1k",
]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    root = tmp_path_factory.mktemp("twenty") / "p"
    project = new_project(root)
    originals = [(7 * i) % 1000 for i in range(30)]
    ids = add_images(project, originals)
    for number, model in enumerate(MODELS):
        # Each run wrong on every fourth image from its own offset, by a class of its own.
        top1 = {image: (label + 1 + number % 3) % 1000 if (i + number) % 4 == 0 else label
                for i, (image, label) in enumerate(zip(ids, originals))}
        add_run(project, model, top1)
    project.close()
    return root


@pytest.fixture
def twenty(template, tmp_path):
    shutil.copytree(template, tmp_path / "p")
    project = Project.open(tmp_path / "p")
    from reviewer.app import panel as acts

    acts.add_panelist(project, "ann", chair=True)
    yield project
    project.close()


def _mistakes_per_run(project: Project) -> dict[int, int]:
    from sqlalchemy import func, select

    from db.tables import Mistake

    with project.read() as session:
        return dict(session.execute(select(Mistake.run_id, func.count(Mistake.id)).group_by(Mistake.run_id)).all())


def test_the_run_selector_lists_twenty_runs_each_apart_and_whole_in_its_tooltip(qtbot, twenty, window_on,
                                                                              choose_in_combo):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QFontMetrics

    from reviewer.panel.scope import SCOPE_QUEUE
    from reviewer.ui.qt_run_selector import MODEL_WIDTH

    window = window_on(twenty)
    combo = window.run_combo
    entries = {combo.itemData(i): (combo.itemText(i), combo.itemData(i, Qt.ItemDataRole.ToolTipRole))
               for i in range(combo.count()) if combo.itemData(i) is not None}
    assert list(entries)[0] == SCOPE_QUEUE  # the panel's scope first
    runs = {run_id: entries[run_id] for run_id in entries if run_id != SCOPE_QUEUE}
    assert sorted(runs) == list(range(1, 21))
    metrics = QFontMetrics(combo.font())
    stored = _mistakes_per_run(twenty)
    for run_id, (text, tip) in runs.items():
        model = MODELS[run_id - 1]
        assert text.startswith(f"#{run_id} ")
        assert MODELS[run_id - 1] in tip  # the whole name, whatever the entry shows of it
        shown = text[len(f"#{run_id} "):].split(" · ")[0]
        assert metrics.horizontalAdvance(shown) <= MODEL_WIDTH + 2
        if shown != model:  # cut in the middle: both ends kept
            assert "…" in shown and model.startswith(shown.split("…")[0]) and model.endswith(shown.split("…")[1])
        assert int(re.search(r"· (\d+) mistakes?", text).group(1)) == stored[run_id]
    assert len({text for text, _ in runs.values()}) == 20  # no two entries read alike
    # Two models alike but for their size in the middle read apart by their run ids.
    assert runs[1][0] != runs[20][0]
    # The list opens on every entry at once, and the toolbar still fits a 1280-pixel window.
    assert combo.maxVisibleItems() >= combo.count()
    assert window.toolbar.sizeHint().width() <= 1280
    # A run chosen in the list opens, and its entry shows in the toolbar.
    with qtbot.waitSignal(window.run_opened, timeout=10_000) as opened:
        choose_in_combo(combo, combo.findData(7))
    assert opened.args == [7] and combo.currentData() == 7
    qtbot.waitUntil(lambda: window.bridge.state.queue is not None and window.bridge.state.queue.run_id == 7)


def test_the_analysis_model_list_picks_one_of_twenty_and_draws_its_plot_only(qtbot, twenty, choose_in_combo):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLabel, QTableWidget

    from reviewer.ui.dialogs.qt_analysis import QtAnalysisView

    view = QtAnalysisView(twenty, load=False)
    qtbot.addWidget(view)
    view.resize(1200, 860)
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=120_000):
        view.refresh()
    box = view.model_box
    assert box.itemText(0) == "All models" and box.count() == 21
    tips = [box.itemData(i, Qt.ItemDataRole.ToolTipRole) for i in range(1, box.count())]
    assert all(any(model in tip for tip in tips) for model in MODELS)
    tab = next(i for i in range(view.tabs.count()) if view.tabs.tabText(i) == "Calibration")
    view.tabs.setCurrentIndex(tab)
    page = view.tabs.currentWidget().widget()
    # Twenty reliability diagrams are not drawn at each refresh: the line says how to see one.
    assert not [label for label in page.findChildren(QLabel) if label.objectName().startswith("reliability_run")]
    assert "choose a model" in page.findChild(QLabel, "per_run_plots").text()

    # Run #12's diagram is drawn once it is chosen; its row of the table is the one marked.
    with qtbot.waitSignal(view.loaded, timeout=120_000):
        choose_in_combo(box, box.findData(12))
    view.tabs.setCurrentIndex(tab)
    page = view.tabs.currentWidget().widget()
    plots = [label for label in page.findChildren(QLabel) if label.objectName().startswith("reliability_run")]
    assert [p.objectName() for p in plots] == ["reliability_run12.png"] and not plots[0].pixmap().isNull()
    table = page.findChildren(QTableWidget)[0]
    marked = {index.row() for index in table.selectionModel().selectedRows()}
    assert [table.item(row, 0).text() for row in marked] == ["12"]

    # The table of model pairs keeps the chosen model's pairs: 19, not 190.
    models = next(i for i in range(view.tabs.count()) if view.tabs.tabText(i) == "Models")
    view.tabs.setCurrentIndex(models)
    overlap = view.tabs.currentWidget().widget().findChildren(QTableWidget)[0]
    pairs = [(overlap.item(r, 0).text(), overlap.item(r, 1).text()) for r in range(overlap.rowCount())]
    assert len(pairs) == 19 and all(MODELS[11] in pair for pair in pairs)
    view.shutdown()
