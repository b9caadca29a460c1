"""The Analysis tab: the report's tables and plots for the open project.

`QtAnalysisView(project)` is self-contained: the main window adds it as a tab.
The report is computed, and its plots drawn to PNG files in a private
temporary folder, by a worker thread (`reviewer.analysis`, headless); the UI
thread only builds widgets from the finished sections. One sub-tab per
section, as in the Markdown/HTML report, so the GUI and the files say the same.
The leaderboard is scored on the slice chosen in the bar (as `reviewer report
--slice`): imagenet_m when the project has it, else its first slice.

Twenty models stay readable: the bar's Model list (each run's id and model, cut in the
middle where long, the whole name in its tooltip) picks one. Its row is marked in the
tables of one row per run (the leaderboard stays whole: it is a ranking), the tables of
model pairs keep the chosen model's pairs (190 pairs at 20 runs), and the plots of one run
(the reliability diagrams) are the chosen model's: with more than `PLOTS_AT_ONCE` runs only
its plot is drawn, not twenty at every refresh.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from reviewer.analysis.plots import PlotStyle
from reviewer.project import Project
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.theme import MUTED, WARNING, style_muted
from reviewer.ui.workers import Worker

DEFAULT_SLICE = "imagenet_m"
# The plots in the window's dark colours (reviewer.ui.theme), not white rectangles.
PLOT_STYLE = PlotStyle(background="#202124", text="#e6e6e6", muted=MUTED, grid="#3c4046")
# Up to this many runs every run's own plots are drawn; beyond, the chosen model's only.
PLOTS_AT_ONCE = 4
MODEL_WIDTH = 260  # pixels of a model's name in the Model list before it is cut in the middle
PAIR_COLUMNS = ("model A", "model B")  # a table of model pairs: the chosen model's pairs are kept


def compute_sections(project: Project, folder: str, keep_borderline: bool, yates: bool,
                     slice_name: str | None = None, collapsed: bool = False,
                     provisional: bool = False, model_run: int | None = None
                     ) -> tuple[list, list[str], str, list[tuple[int, str]]]:
    """Worker-thread task: (the report's sections, the project's slice names, the
    slice scored, the runs as (id, model)), plots written into `folder` in the window's
    colours. `slice_name` None: imagenet_m if the project has it, else its first slice.
    `model_run`: the run whose own plots are drawn when there are more than PLOTS_AT_ONCE."""
    from reviewer.analysis.report import ReportOptions
    from reviewer.analysis.sections import report_sections
    from reviewer.app.report import build_report
    from reviewer.app.runs import slices

    names = list(slices(project))
    if slice_name is None:
        slice_name = DEFAULT_SLICE if DEFAULT_SLICE in names or not names else names[0]
    report = build_report(project, ReportOptions(keep_borderline=keep_borderline, yates=yates,
                                                 slice_name=slice_name, collapsed_mappings=collapsed,
                                                 provisional=provisional))
    runs = [(run.id, run.model) for run in report.summary.runs]
    plot_runs = None if len(runs) <= PLOTS_AT_ONCE else tuple(r for r in (model_run,) if r is not None)
    return report_sections(report, Path(folder), style=PLOT_STYLE, plot_runs=plot_runs), names, slice_name, runs


class QtAnalysisView(QWidget):
    """Tables and plots of the analysis report, loaded off the UI thread."""

    loaded = Signal()  # the tabs show a freshly computed report
    failed = Signal(str)  # the report could not be computed; the message is shown too

    def __init__(self, project: Project, parent: QWidget | None = None, *, load: bool = True):
        super().__init__(parent)
        self.project = project
        self._worker = Worker(threads=1, name="analysis", parent=self)
        self._folders: list[tempfile.TemporaryDirectory] = []
        self._pending = 0

        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("Recompute the report from the project as it stands now")
        self.borderline_box = QCheckBox("Keep Borderline apart")
        self.borderline_box.setToolTip("Count Borderline severity on its own instead of as Minor (the paper's way)")
        self.yates_box = QCheckBox("Yates correction")
        self.yates_box.setToolTip("Yates' continuity correction on 2 x 2 chi-square tables")
        self.collapsed_box = QCheckBox("Collapsed mappings")
        self.collapsed_box.setToolTip("Score MLA with the paper's Appendix C collapsed class mappings (the reference "
                                      "evaluation applies none: the v3 labels already hold them)")
        self.provisional_box = QCheckBox("Provisional")
        self.provisional_box.setToolTip("Also count the items the chair has not locked, by the majority of their "
                                        "current votes, in tables marked provisional")
        self.slice_box = QComboBox()
        self.slice_box.setToolTip("The image slice the leaderboard scores every run on")
        self.slice_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.slice_box.setMinimumContentsLength(len("no slice yet"))  # the placeholder fits too
        self.slice_box.setEnabled(False)  # filled with the project's slices by the first load
        self.model_box = QComboBox()  # "All models", then each run (its id and model)
        self.model_box.setToolTip("The model whose rows the tables mark, whose pairs they keep, and whose own "
                                  "plots are shown")
        # As wide as a cut name (the list opens wider): twenty long names do not widen the bar.
        self.model_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_box.setMinimumContentsLength(30)
        self.model_box.view().setMinimumWidth(MODEL_WIDTH + 80)
        self.model_box.addItem("All models", None)
        self.model_box.setEnabled(False)  # filled with the runs by the first load
        self.runs: list[tuple[int, str]] = []
        self._sections: list = []
        self.status = text_label()
        bar = QHBoxLayout()
        for widget in (self.refresh_button, self.borderline_box, self.yates_box, self.collapsed_box,
                       self.provisional_box, QLabel("Leaderboard slice:"), self.slice_box, QLabel("Model:"),
                       self.model_box):
            bar.addWidget(widget)
        bar.addWidget(self.status, 1)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.tabs, 1)

        self.refresh_button.clicked.connect(self.refresh)
        self.borderline_box.toggled.connect(self.refresh)
        self.yates_box.toggled.connect(self.refresh)
        self.collapsed_box.toggled.connect(self.refresh)
        self.provisional_box.toggled.connect(self.refresh)
        self.slice_box.activated.connect(self.refresh)  # a user's choice only, not the refill after a load
        self.model_box.activated.connect(self._model_chosen)
        if load:
            self.refresh()

    # -- loading -------------------------------------------------------------
    def refresh(self) -> None:
        """Recompute the report in the background; the tabs update when it is done."""
        folder = tempfile.TemporaryDirectory(prefix="reviewer-analysis-")
        self._folders.append(folder)
        self._pending += 1
        self.refresh_button.setEnabled(False)
        self.status.setText("Computing the report…")
        self._worker.submit(compute_sections, self.project, folder.name, self.borderline_box.isChecked(),
                            self.yates_box.isChecked(), self.slice_box.currentText() or None,
                            self.collapsed_box.isChecked(), self.provisional_box.isChecked(),
                            self.chosen_run(), on_done=lambda result: self._show(result, folder),
                            on_error=self._fail)

    def _show(self, result: tuple, folder: tempfile.TemporaryDirectory) -> None:
        self._pending -= 1
        if folder is not self._folders[-1]:
            return  # a newer refresh is on its way; this result is stale
        sections, names, slice_name, runs = result
        self._fill_slices(names, slice_name)
        self._fill_models(runs)
        self._sections = sections
        self._build_tabs()
        for old in self._folders[:-1]:  # their pixmaps are loaded; the files can go
            old.cleanup()
        self._folders = self._folders[-1:]
        self._done(f"{len(sections)} sections")
        self.loaded.emit()

    def _fill_slices(self, names: list[str], current: str) -> None:
        """The project's slices (new ones appear after a split is saved), `current` chosen."""
        self.slice_box.blockSignals(True)
        self.slice_box.clear()
        self.slice_box.addItems(names)
        self.slice_box.setCurrentIndex(max(self.slice_box.findText(current), 0))
        self.slice_box.setEnabled(bool(names))
        if not names:
            self.slice_box.setPlaceholderText("no slice yet")
        self.slice_box.blockSignals(False)

    # -- the model chosen ----------------------------------------------------
    def chosen_run(self) -> int | None:
        return self.model_box.currentData()

    def chosen_model(self) -> str | None:
        run_id = self.chosen_run()
        return next((model for r, model in self.runs if r == run_id), None) if run_id is not None else None

    def _fill_models(self, runs: list[tuple[int, str]]) -> None:
        """Each run as '#id model' (a long name cut in the middle, whole in the tooltip); the
        chosen one stays chosen."""
        if runs == self.runs:
            return
        chosen, self.runs = self.chosen_run(), runs
        metrics = QFontMetrics(self.model_box.font())
        self.model_box.blockSignals(True)
        self.model_box.clear()
        self.model_box.addItem("All models", None)
        for run_id, model in runs:
            self.model_box.addItem(f"#{run_id} {metrics.elidedText(model, Qt.TextElideMode.ElideMiddle, MODEL_WIDTH)}",
                                   run_id)
            self.model_box.setItemData(self.model_box.count() - 1, plain_tip(f"Run #{run_id}: {model}"),
                                       Qt.ItemDataRole.ToolTipRole)
        self.model_box.setMaxVisibleItems(min(max(self.model_box.count(), 10), 25))
        self.model_box.setCurrentIndex(max(self.model_box.findData(chosen), 0))
        self.model_box.setEnabled(bool(runs))
        self.model_box.blockSignals(False)

    def _model_chosen(self) -> None:
        """The tables follow at once; a run whose own plots were not drawn is drawn (a refresh)."""
        self._build_tabs()
        run_id = self.chosen_run()
        if run_id is not None and any(run_id in s.runs_not_drawn for s in self._sections):
            self.refresh()

    def _build_tabs(self) -> None:
        if not self._folders:
            return
        current = self.tabs.currentIndex()
        self.tabs.clear()
        for section in self._sections:
            self.tabs.addTab(self._section_page(section, Path(self._folders[-1].name)), section.short)
        self.tabs.setCurrentIndex(max(current, 0))

    def _fail(self, error: BaseException) -> None:
        self._pending -= 1
        self._done("")
        self.status.setText(f"Could not compute the report: {error}")
        self.failed.emit(str(error))

    def _done(self, text: str) -> None:
        if not self._pending:
            self.refresh_button.setEnabled(True)
            self.status.setText(text)

    # -- widgets ---------------------------------------------------------------
    def _section_page(self, section, folder: Path) -> QScrollArea:
        page = QWidget()
        layout = QVBoxLayout(page)
        title = QLabel(f"<h3>{section.title}</h3>")
        layout.addWidget(title)
        for warning in section.warnings:
            note = text_label(f"⚠ {warning}")
            note.setObjectName("warning")
            note.setWordWrap(True)
            note.setStyleSheet(f"color: {WARNING}")
            layout.addWidget(note)
        if section.text:
            text = text_label(section.text)
            text.setWordWrap(True)
            layout.addWidget(text)
        if section.empty:  # why the tab has no table or plot, where they would be
            empty = text_label(section.empty)
            empty.setObjectName("empty")
            empty.setWordWrap(True)
            empty.setStyleSheet("font-size: 15px; font-weight: bold; padding: 24px 0")
            layout.addWidget(empty)
        run_id, model = self.chosen_run(), self.chosen_model()
        for caption, frame in section.tables:
            if caption:
                layout.addWidget(QLabel(f"<b>{caption}</b>"))
            if model is not None and all(column in frame.columns for column in PAIR_COLUMNS):
                frame = frame[(frame[PAIR_COLUMNS[0]] == model) | (frame[PAIR_COLUMNS[1]] == model)]
            layout.addWidget(self._table(frame, marked=self._run_rows(frame, run_id, model)))
        images = [name for name in section.images
                  if run_id is None or section.image_runs.get(name, run_id) == run_id]
        if section.runs_not_drawn and (run_id is None or run_id in section.runs_not_drawn):
            runs = len(section.runs_not_drawn) + len(set(section.image_runs.values()))
            note = text_label(f"Each of the {runs} runs has a plot of its own here: choose a model in the bar above "
                              "to see it." if run_id is None else f"Drawing run #{run_id}'s plot…")
            note.setObjectName("per_run_plots")
            style_muted(note)
            layout.addWidget(note)
        for name in images:
            image = QLabel()
            image.setObjectName(name)
            image.setPixmap(QPixmap(str(folder / name)))
            image.setAlignment(Qt.AlignmentFlag.AlignLeft)
            layout.addWidget(image)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(page)
        return scroll

    @staticmethod
    def _run_rows(frame: pd.DataFrame, run_id: int | None, model: str | None) -> list[int]:
        """The rows of the chosen run in a table of one row per run (by its run column, else its model)."""
        if run_id is None:
            return []
        if "run" in frame.columns:
            return [i for i, value in enumerate(frame["run"]) if value == str(run_id)]
        if "model" in frame.columns:
            return [i for i, value in enumerate(frame["model"]) if value == model]
        return []

    @staticmethod
    def _table(frame: pd.DataFrame, *, marked: list[int] = ()) -> QTableWidget:
        table = QTableWidget(len(frame), len(frame.columns))
        table.setHorizontalHeaderLabels([str(c) for c in frame.columns])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for r, row in enumerate(frame.itertuples(index=False)):
            for c, value in enumerate(row):
                table.setItem(r, c, QTableWidgetItem(str(value)))
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # As tall as its rows (up to 600 px): the page scrolls, not each table.
        table.resizeRowsToContents()
        height = (table.horizontalHeader().sizeHint().height() + sum(table.rowHeight(r) for r in range(len(frame)))
                  + 2 * table.frameWidth() + 2)
        table.setFixedHeight(min(height, 600))
        if marked:  # the chosen model's row, selected and in view
            table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
            for row in marked:
                table.selectRow(row)
            table.scrollToItem(table.item(marked[0], 0))
        return table

    def shutdown(self) -> None:
        """Wait for a running computation and drop its result (call before closing)."""
        self._worker.shutdown()
        for folder in self._folders:
            folder.cleanup()
        self._folders = []

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self.shutdown()
        super().closeEvent(event)
