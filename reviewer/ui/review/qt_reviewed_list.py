"""The reviewed mistakes of a project without a run, read-only: a project made from label
files and published reviews has no image files, so no model can run over it, but its
reviews' judged mistakes are worth reading (`reviewer.app.reviewed`).

A table of the reviewed mistakes (model, image, predicted class, the review's category and
severity, whether the image has a file) beside the selected one's facts: its image, or a
placeholder saying there is no file, and the record `reviewer show` prints (labels,
WordNet, every published review's word on the image, the panel's votes and notes).
Nothing here votes: the panel votes on the mistakes of a run, on the review page.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from reviewer.app.reviewed import ReviewedList, ReviewedRow, reviewed_record
from reviewer.classes.vocabulary import load_classes
from reviewer.project import Project
from reviewer.ui.image_loader import decode, fit_key
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.theme import style_headline, style_muted
from reviewer.ui.workers import Worker

COLUMNS = ("Review", "Image", "Predicted", "Category", "Severity", "File")


class ReviewedTableModel(QAbstractTableModel):
    """A thin adapter over the rows of a `ReviewedList`."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: tuple[ReviewedRow, ...] = ()

    def set_rows(self, rows: tuple[ReviewedRow, ...]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(row, column)
        if role == Qt.ItemDataRole.ToolTipRole:  # the whole text where a narrow column elides it
            if column == 0:
                return ("as the published review judged it" if row.source == "imported"
                        else "as the panel's final decision says")
            return self.cell(row, column)
        return None

    @staticmethod
    def cell(row: ReviewedRow, column: int) -> str:
        if column == 0:
            return row.model + ("" if row.source == "imported" else " · panel")
        if column == 1:
            return row.file_name
        if column == 2:
            return f"{load_classes().names[row.item.predicted]} ({row.item.predicted})"
        if column == 3:
            return row.category or "–"
        if column == 4:
            return row.severity or "–"
        return "yes" if row.has_file else "no file"


class QtReviewedList(QWidget):
    """The reviewed mistakes and the selected one's facts; `show_list` fills it."""

    record_shown = Signal(str)  # the file name whose facts are shown

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self.viewer: str | None = None
        self.listed: ReviewedList | None = None
        self.worker = Worker(threads=1, name="reviewed", parent=self)
        self._asked = 0  # the last facts asked for: an older answer is dropped

        self.title = text_label("Published reviews")
        style_headline(self.title)
        self.summary = text_label()
        self.summary.setWordWrap(True)
        style_muted(self.summary)
        self.model_filter = QComboBox()
        self.model_filter.setToolTip("Show the reviewed mistakes of one model's review, or of all")
        self.model_filter.currentIndexChanged.connect(self._filter_models)

        self.model = ReviewedTableModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterKeyColumn(0)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for name in ("Predicted", "Category"):  # they share what the others leave
            header.setSectionResizeMode(COLUMNS.index(name), QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        self.table.setSortingEnabled(True)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _old: self._row_chosen(current))

        self.image = QtImageView()
        self.image.setMinimumHeight(140)
        self.facts = QPlainTextEdit()
        self.facts.setReadOnly(True)
        self.facts.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.facts.setFont(mono)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.model_filter)
        left_layout.addLayout(head)
        left_layout.addWidget(self.summary)
        left_layout.addWidget(self.table, 1)
        self.right = right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.image)
        right.addWidget(self.facts)
        right.setStretchFactor(0, 1)
        right.setStretchFactor(1, 2)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([620, 400])  # the table's five columns before the facts' lines
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addWidget(split)

    def show_list(self, project: Project, listed: ReviewedList, *, viewer: str | None, note: str = "") -> None:
        """List `listed`'s rows of `project`; `note` says what the project lacks (no run,
        no image files) and what can be done about it."""
        self.project, self.viewer, self.listed = project, viewer, listed
        self.summary.setText(f"{listed.describe()}. Read-only: the panel votes on the mistakes of a model's run."
                             + (f" {note}" if note else ""))
        self.summary.setToolTip(plain_tip(self.summary.text()))
        self.model_filter.blockSignals(True)
        self.model_filter.clear()
        self.model_filter.addItem(f"All reviews ({len(listed.rows)})", "")
        for model, count in listed.by_model().items():
            self.model_filter.addItem(f"{model} ({count})", model)
        self.model_filter.blockSignals(False)
        self.proxy.setFilterFixedString("")
        self.model.set_rows(listed.rows)
        # Where no image has a file (a project of label files) the column would say so on every row.
        files = any(row.has_file for row in listed.rows)
        self.table.setColumnHidden(COLUMNS.index("File"), not files)
        # Without files the image's place only says so: the facts take the room.
        self.right.setStretchFactor(0, 2 if files else 1)
        self.right.setStretchFactor(1, 3)
        total = max(self.right.height(), 600)
        self.right.setSizes([total * 2 // 5, total * 3 // 5] if files else [total // 4, total * 3 // 4])
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the reviews' own order
        if listed.rows:
            self.table.selectRow(0)
            self.table.setFocus()

    def clear(self) -> None:
        self.project, self.listed = None, None
        self._asked += 1
        self.model.set_rows(())
        self.facts.clear()
        self.image.show_message("")

    def shown_rows(self) -> list[ReviewedRow]:
        """The rows as listed now (filter and sort applied)."""
        return [self.model.rows[self.proxy.mapToSource(self.proxy.index(i, 0)).row()]
                for i in range(self.proxy.rowCount())]

    def current_row(self) -> ReviewedRow | None:
        index = self.table.currentIndex()
        return None if not index.isValid() else self.model.rows[self.proxy.mapToSource(index).row()]

    def _filter_models(self) -> None:
        model = self.model_filter.currentData() or ""
        # The Review column reads "model" or "model · panel": match the name as a whole.
        self.proxy.setFilterRegularExpression(f"^{re.escape(model)}( · panel)?$" if model else "")
        if self.proxy.rowCount():
            self.table.selectRow(0)

    def _row_chosen(self, index: QModelIndex) -> None:
        row = self.current_row() if index.isValid() else None
        if row is None or self.project is None:
            return
        self._asked += 1
        asked = self._asked
        self.facts.setPlainText(f"{row.file_name}: reading …")
        if not row.has_file:
            self.image.show_message("No image file", f"{row.file_name} came from a label file or a review "
                                                     "('reviewer import-images' adds the files)")
        bounds = self.image.fit_bounds() if row.has_file else None  # read on this thread, used on the worker
        self.worker.submit(self._read, self.project, row, self.viewer, bounds, self.image.enlarge_small,
                           on_done=lambda result: self._record_read(asked, result),
                           on_error=lambda error: self._record_read(asked, (f"Cannot read {row.file_name}: {error}",
                                                                            None, None)))

    @staticmethod
    def _read(project: Project, row: ReviewedRow, viewer: str | None, bounds, enlarge: bool):
        text, path = reviewed_record(project, row, viewer=viewer)
        return text, path, decode(fit_key(path, bounds, enlarge=enlarge)) if path and bounds is not None else None

    def _record_read(self, asked: int, result) -> None:
        if asked != self._asked:
            return  # another row was chosen since
        text, path, decoded = result
        self.facts.setPlainText(text)
        if decoded is not None and decoded.image is not None:
            self.image.show_image(decoded.image, decoded.original_size)
        elif path:
            self.image.show_message("Cannot read the image", decoded.error if decoded is not None else path)
        row = self.current_row()
        self.record_shown.emit(row.file_name if row is not None else "")

    def shutdown(self) -> None:
        self.worker.shutdown()
