"""The Analysis tab: the report's tables and plots for the open project.

`QtAnalysisView(project)` is self-contained: the main window adds it as a tab.
The report is computed, and its plots drawn to PNG files in a private
temporary folder, by a worker thread (`reviewer.analysis`, headless); the UI
thread only builds widgets from the finished sections. One sub-tab per
section, as in the Markdown/HTML report, so the GUI and the files say the same.
The leaderboard is scored on the slice chosen in the bar (as `reviewer report
--slice`): imagenet_m when the project has it, else its first slice.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
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
from reviewer.ui.plain import text_label
from reviewer.ui.theme import MUTED, WARNING
from reviewer.ui.workers import Worker

DEFAULT_SLICE = "imagenet_m"
# The plots in the window's dark colours (reviewer.ui.theme), not white rectangles.
PLOT_STYLE = PlotStyle(background="#202124", text="#e6e6e6", muted=MUTED, grid="#3c4046")


def compute_sections(project: Project, folder: str, keep_borderline: bool, yates: bool,
                     slice_name: str | None = None, collapsed: bool = False,
                     provisional: bool = False) -> tuple[list, list[str], str]:
    """Worker-thread task: (the report's sections, the project's slice names, the
    slice scored), plots written into `folder` in the window's colours. `slice_name`
    None: imagenet_m if the project has it, else its first slice."""
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
    return report_sections(report, Path(folder), style=PLOT_STYLE), names, slice_name


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
        self.status = text_label()
        bar = QHBoxLayout()
        for widget in (self.refresh_button, self.borderline_box, self.yates_box, self.collapsed_box,
                       self.provisional_box, QLabel("Leaderboard slice:"), self.slice_box):
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
                            on_done=lambda result: self._show(result, folder), on_error=self._fail)

    def _show(self, result: tuple, folder: tempfile.TemporaryDirectory) -> None:
        self._pending -= 1
        if folder is not self._folders[-1]:
            return  # a newer refresh is on its way; this result is stale
        sections, names, slice_name = result
        self._fill_slices(names, slice_name)
        current = self.tabs.currentIndex()
        self.tabs.clear()
        for section in sections:
            self.tabs.addTab(self._section_page(section, Path(folder.name)), section.short)
        self.tabs.setCurrentIndex(max(current, 0))
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
        for caption, frame in section.tables:
            if caption:
                layout.addWidget(QLabel(f"<b>{caption}</b>"))
            layout.addWidget(self._table(frame))
        for name in section.images:
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
    def _table(frame: pd.DataFrame) -> QTableWidget:
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
