"""The Analysis tab: the report's tables and plots for the open project.

`QtAnalysisView(project)` is self-contained: the main window adds it as a tab.
The report is computed, and its plots drawn to PNG files in a private
temporary folder, by a worker thread (`reviewer.analysis`, headless); the UI
thread only builds widgets from the finished sections. One sub-tab per
section, as in the Markdown/HTML report, so the GUI and the files say the same.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QScrollArea, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from reviewer.project import Project
from reviewer.ui.workers import Worker


def compute_sections(project: Project, folder: str, keep_borderline: bool, yates: bool) -> list:
    """Worker-thread task: the report's sections, plots written into `folder`."""
    from reviewer.analysis.render import report_sections
    from reviewer.analysis.report import ReportOptions, build_report

    report = build_report(project, ReportOptions(keep_borderline=keep_borderline, yates=yates))
    return report_sections(report, Path(folder))


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
        self.status = QLabel()
        bar = QHBoxLayout()
        for widget in (self.refresh_button, self.borderline_box, self.yates_box):
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
                            self.yates_box.isChecked(), on_done=lambda sections: self._show(sections, folder),
                            on_error=self._fail)

    def _show(self, sections: list, folder: tempfile.TemporaryDirectory) -> None:
        self._pending -= 1
        if folder is not self._folders[-1]:
            return  # a newer refresh is on its way; this result is stale
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
        if section.text:
            text = QLabel(section.text)
            text.setWordWrap(True)
            layout.addWidget(text)
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
