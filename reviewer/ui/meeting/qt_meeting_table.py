"""The meeting's table of split items as a Qt item model."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from reviewer.panel.meeting import MeetingRow
from reviewer.ui.meeting.qt_agreement_panel import FIELD_TITLES
from reviewer.ui.plain import plain_tip
from reviewer.ui.theme import KIND_COLOURS

LIST_COLUMNS = ("Image → predicted", "Split on", "Decision")


class MeetingTableModel(QAbstractTableModel):
    """A thin adapter over the rows of `load_meeting`: cells are made when painted,
    so a list of thousands of items costs the UI thread nothing to show."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[MeetingRow] = []

    def set_rows(self, rows: list[MeetingRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(LIST_COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return LIST_COLUMNS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        row = self.rows[index.row()]
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if column == 0:
                # The extension says nothing here; the width goes to the name (the tooltip has it all).
                if role == Qt.ItemDataRole.ToolTipRole:
                    return plain_tip(f"{row.file_name}\n→ {row.predicted_name} ({row.item.predicted})")
                return f"{row.file_name.rsplit('.', 1)[0]}\n→ {row.predicted_name} ({row.item.predicted})"
            if column == 1:
                return "\n".join(FIELD_TITLES[f].lower() for f in row.split_fields) or "–"
            # The decision's verdict only (the method is in the tooltip): the file name needs the width. A
            # dispute left (e.g. the verdict decided, the severity split) is shown, as the header counts it.
            if role == Qt.ItemDataRole.ToolTipRole:
                words = [row.decision or "no decision yet", row.dispute.words() if row.dispute else ""]
                return plain_tip(" · ".join(w for w in words if w))
            shown = row.decision.split(" (")[0]
            if row.dispute:  # the column is narrow: a decided verdict with a split rating is "wrong ≠"
                return f"{shown} ≠" if shown else "≠ disputed"
            return shown or "–"
        if role == Qt.ItemDataRole.ForegroundRole and column == 2 and row.decision:
            colour = KIND_COLOURS.get(row.decision.split(" ")[0])
            return QBrush(QColor(colour)) if colour else None
        return None
