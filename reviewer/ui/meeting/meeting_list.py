"""The meeting's list: the items the panel is split on, read on the meeting's worker, filtered
by a field or by a pair of panelists, and the row chosen in it.

A part of the meeting (`QtMeetingView`) that owns what it lists: the list as last read (`state`),
the field and the pair it is filtered by, the row chosen (`selected`) and, after the chair's
lock, the item to move on from. It takes the project, the panelist and the meeting's `OpRunner`
in its constructor and builds its own widgets: the table (`list`), the top bar's title and
filters, and the chair's "Lock all unanimous (N)" button, whose click it passes on. It says what
happened by its signals, which the meeting wires: `row_chosen` (a row to show, with the panel's
snapshot it was read with), `emptied` (nothing to show: why), `loaded`, `pair_changed`,
`lock_unanimous_requested` and `failed`.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QPushButton

from reviewer.app import panel as acts
from reviewer.items import Item
from reviewer.panel.meeting import MeetingRow, MeetingState
from reviewer.panel.snapshot import FIELDS
from reviewer.panel.standing import describe_counts
from reviewer.ui.meeting._meeting_layout import create_list
from reviewer.ui.meeting.qt_agreement_panel import FIELD_TITLES
from reviewer.ui.meeting.qt_meeting_table import MeetingTableModel
from reviewer.ui.plain import text_label
from reviewer.ui.theme import style_headline, style_muted


class MeetingList(QObject):
    """The split items of `project` as `panelist` may see them, one of them chosen."""

    row_chosen = Signal(object, object)  # MeetingRow, its PanelSnapshot: show it (read its panel again)
    emptied = Signal(str, str)  # nothing listed: a title and why
    loaded = Signal(object)  # MeetingState: the list is on screen
    pair_changed = Signal()  # a pair filter set or cleared
    lock_unanimous_requested = Signal()
    failed = Signal(object)  # BaseException

    def __init__(self, project, panelist, runner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project, self._panelist, self._runner = project, panelist, runner
        self.state: MeetingState | None = None  # the list as last read
        self.selected: MeetingRow | None = None
        self.field: str | None = None
        self.pair: tuple[int, int] | None = None
        self._advance: Item | None = None  # the item just locked: on to the next open dispute

        self.title = text_label()
        style_headline(self.title, point_size=14)
        self.field_filter = QComboBox()
        self.field_filter.addItem("Every field", None)
        for name in FIELDS:
            self.field_filter.addItem(FIELD_TITLES[name], name)
        self.field_filter.currentIndexChanged.connect(self._field_changed)
        self.pair_label = text_label()
        style_muted(self.pair_label)
        self.clear_pair = QPushButton("Show all split images")
        self.clear_pair.clicked.connect(lambda: self.set_pair_filter(None))
        # The chair's way when unanimity is not final (reviewer.panel.final): hidden otherwise.
        self.lock_unanimous = QPushButton()
        self.lock_unanimous.setVisible(False)
        self.lock_unanimous.clicked.connect(self.lock_unanimous_requested)
        self.model = MeetingTableModel(self)
        self.list = create_list(self.model)
        self.list.selectionModel().currentRowChanged.connect(lambda current, _: self._select(current.row()))
        self._show_filter()

    @property
    def rows(self) -> list[MeetingRow]:
        return self.state.rows if self.state else []

    # -- reading -----------------------------------------------------------------------------
    def reload(self) -> None:
        self._runner.read(acts.meeting_state, self._project, viewer_id=self._panelist.id, field=self.field,
                          pair=self.pair, on_done=self._loaded, on_error=self.failed.emit)

    def advance_after(self, item: Item) -> None:
        """`item` is being locked: once the list is read again, move on to the next open dispute."""
        self._advance = item

    def _loaded(self, state: MeetingState) -> None:
        self.state = state
        keep = self.selected.item if self.selected else None
        self.list.selectionModel().blockSignals(True)
        self.model.set_rows(state.rows)
        self.list.selectionModel().blockSignals(False)
        self._show_filter()
        waiting = state.unanimous_to_lock
        self.lock_unanimous.setText(f"Lock all unanimous ({waiting})")
        self.lock_unanimous.setVisible(bool(waiting))
        self.lock_unanimous.setEnabled(self._panelist.is_chair)
        chosen = next((r for r, row in enumerate(state.rows) if row.item == keep), 0 if state.rows else -1)
        if self._advance is not None and self._advance == keep and chosen >= 0:  # on to the next open dispute
            self._advance = None
            order = list(range(chosen + 1, len(state.rows))) + list(range(0, chosen))  # on, then from the top
            still_open = [r for r in order if state.rows[r].open]  # the domain's flag (reviewer.panel.standing)
            chosen = still_open[0] if still_open else chosen
        if chosen >= 0:
            self.list.selectionModel().blockSignals(True)
            self.list.selectRow(chosen)
            self.list.selectionModel().blockSignals(False)
            self._select(chosen, force=True)
        else:
            self.selected = None
            self.emptied.emit("Nothing to discuss", "Every image voted by the whole panel is unanimous here."
                              if self.pair is None else "These two panelists agree everywhere.")
        self.loaded.emit(state)

    def _select(self, index: int, *, force: bool = False) -> None:
        """The row at `index` chosen; `force`: shown again though it is the one shown (read again)."""
        if not self.state or not 0 <= index < len(self.state.rows):
            return
        row = self.state.rows[index]
        if not force and self.selected is not None and row.item == self.selected.item:
            return
        self.selected = row
        self.row_chosen.emit(row, self.state.snapshot)

    def step(self, by: int) -> None:
        """Choose the row `by` rows below the chosen one (above, negative), if there is one."""
        row = self.list.currentIndex().row() + by
        if 0 <= row < self.model.rowCount():
            self.list.selectRow(row)

    # -- filters -----------------------------------------------------------------------------
    def set_field_filter(self, field: str | None) -> None:
        self.field_filter.setCurrentIndex(max(0, self.field_filter.findData(field)))

    def _field_changed(self) -> None:
        self.field = self.field_filter.currentData()
        if self.pair is not None and self.field is None:
            self.pair = None
        self.reload()

    def set_pair_filter(self, field: str | None, first: int | None = None, second: int | None = None) -> None:
        """List the items where panelists `first` and `second` disagree on `field` (None: no pair)."""
        self.pair = (first, second) if field is not None else None
        self.field_filter.blockSignals(True)
        self.set_field_filter(field)  # None: back to every split image
        self.field_filter.blockSignals(False)
        self.field = self.field_filter.currentData()
        self.pair_changed.emit()
        self.reload()

    def _show_filter(self) -> None:
        count = len(self.rows)
        if self.pair is None:
            standing = describe_counts(self.state.counts(), open_if_none=False) if self.state and count else ""
            self.title.setText(f"{count} image{'s' if count != 1 else ''} without unanimity"
                               + (f": {standing}" if standing else ""))
            self.pair_label.setText("")
        else:
            names = {p.id: p.name for p in self.state.snapshot.panelists} if self.state else {}
            a, b = (names.get(i, str(i)) for i in self.pair)
            hidden = self.state.hidden if self.state else 0
            self.title.setText(f"{count} image{'s' if count != 1 else ''} where {a} and {b} disagree")
            self.pair_label.setText(f"(and {hidden} you have not voted yet)" if hidden else "")
        self.clear_pair.setVisible(self.pair is not None)


def now_text() -> str:
    return datetime.now().strftime("%H:%M:%S")
