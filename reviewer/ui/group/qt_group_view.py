"""The group view: the images without a unanimous vote, for the panel's meeting.

    list of split items | image and its facts | votes side by side, my vote,
    (filter: field, or      (the review window's   discussion, history, chair's
     a pair of panelists)    widgets)              lock/override | agreement tab

Every database call runs on a worker thread (`reviewer.ui.workers`): a
reader for the list and the item, one for the agreement statistics (the
bootstrap takes seconds), one for the image facts, and a single writer so
acts reach the database in the order they were made. It follows the
project's `ProjectWatcher` (the main window's): its own acts, the review
page's and anyone else's arrive as change records, and the list, the shown
item and the agreement are read again, so the view follows the meeting.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from reviewer.app import panel as acts
from reviewer.app.keymap import Keymap, default_keymap
from reviewer.app.mistake_detail import DetailSource, MistakeDetail
from reviewer.items import Item
from reviewer.panel.group import GroupRow, GroupState
from reviewer.panel.snapshot import FIELDS
from reviewer.project import Project
from reviewer.redact import scrub
from reviewer.ui.group.qt_agreement_panel import FIELD_TITLES, QtAgreementPanel
from reviewer.ui.group.qt_group_list import GroupListModel
from reviewer.ui.group.qt_group_votes import QtGroupVotes
from reviewer.ui.image_loader import Decoded, ImageLoader
from reviewer.ui.keys import KeyDispatcher
from reviewer.ui.ops import OpRunner
from reviewer.ui.plain import text_label
from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.review.qt_detail_panel import QtDetailPanel
from reviewer.ui.review.qt_neighbours import QtNeighbours
from reviewer.ui.theme import ERROR, MUTED, style_headline, style_muted, style_widgets
from reviewer.ui.watcher import ProjectWatcher


class QtGroupView(QWidget):
    loaded = Signal()  # the list is on screen
    item_shown = Signal(object)  # Item: its votes are on screen
    stats_shown = Signal()
    action_done = Signal(str)  # an act was recorded (message)
    action_failed = Signal(str)

    resamples = 1000

    def __init__(self, project: Project, panelist, keymap: Keymap | None = None, *,
                 watcher: ProjectWatcher | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.project, self.panelist = project, panelist
        self.keymap = keymap or default_keymap()
        # The project's one refresh path (the main window's), or this view's own.
        self.watcher = watcher or ProjectWatcher(project, self)
        self.watcher.changed.connect(self._changed)
        self.setWindowTitle(f"Group view: {project.name}")
        self._field: str | None = None
        self._pair: tuple[int, int] | None = None
        self._state: GroupState | None = None
        self._row: GroupRow | None = None
        self._detail: MistakeDetail | None = None
        self._source: DetailSource | None = None
        self._source_stale = False  # labels were imported: the next detail reads them again
        self._shut = False
        self._stats_running = self._stats_dirty = False
        # Reads of the list and the shown item, the agreement's bootstrap (seconds on a large
        # project) and the facts each on their own lane, so none waits for another.
        self.runner = OpRunner(self.watcher, name="group", lanes={"read": 1, "stats": 1, "facts": 1}, parent=self)
        self.loader = ImageLoader(parent=self)
        self.loader.loaded.connect(self._image_loaded)

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
        self.status = QLabel()  # rich: an error in its colour; every stored string through escape
        style_muted(self.status)
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addSpacing(12)
        top.addWidget(QLabel("Split on"))
        top.addWidget(self.field_filter)
        top.addWidget(self.pair_label)
        top.addWidget(self.clear_pair)
        # The chair's way when unanimity is not final (reviewer.panel.final): hidden otherwise.
        self.lock_unanimous = QPushButton()
        self.lock_unanimous.setVisible(False)
        self.lock_unanimous.clicked.connect(self._lock_unanimous)
        top.addWidget(self.lock_unanimous)
        top.addStretch(1)
        top.addWidget(self.status)

        self.model = GroupListModel(self)
        self.list = QTableView()
        self.list.setModel(self.model)
        self.list.verticalHeader().hide()
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setWordWrap(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.list.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Fixed)
        metrics = self.list.fontMetrics()
        header.resizeSection(1, metrics.horizontalAdvance("problematic") + 12)
        header.resizeSection(2, metrics.horizontalAdvance("reopened") + 12)
        # Fixed two-line rows: no per-row measuring, however long the list.
        rows = self.list.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(2 * metrics.lineSpacing() + 8)
        self.list.selectionModel().currentRowChanged.connect(lambda current, _: self._row_selected(current.row()))

        self.headline = QLabel()
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.headline.setWordWrap(True)
        self.headline.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.image = QtImageView()
        self.facts = QtDetailPanel()
        centre = QSplitter(Qt.Orientation.Vertical)
        image_box = QWidget()
        image_layout = QVBoxLayout(image_box)
        image_layout.setContentsMargins(4, 4, 4, 0)
        image_layout.addWidget(self.headline)
        image_layout.addWidget(self.image, 1)
        self.neighbours = QtNeighbours(self.loader, self.loader)  # the nearest training images (issue 26)
        image_layout.addWidget(self.neighbours)
        centre.addWidget(image_box)
        centre.addWidget(self.facts)
        centre.setSizes([440, 300])

        self.votes = QtGroupVotes()
        self.votes.vote_requested.connect(self._cast)
        self.votes.note_requested.connect(self._note)
        self.votes.lock_requested.connect(self._lock)
        self.votes.override_requested.connect(self._override)
        self.votes.reopen_requested.connect(self._reopen)
        self._advance = None  # the item just locked: the view moves on to the next open dispute
        self.agreement = QtAgreementPanel()
        self.agreement.pair_chosen.connect(self.set_pair_filter)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.votes, "Votes")
        self.tabs.addTab(self.agreement, "Agreement")

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        for widget in (self.list, centre, self.tabs):
            self.splitter.addWidget(widget)
        self.splitter.setStretchFactor(1, 1)
        self.list.setMinimumWidth(330)
        self.tabs.setMinimumWidth(440)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)

        self._refit = QTimer(self, singleShot=True, interval=150, timeout=self._show_image)
        self.image.resized.connect(self._refit.start)
        style_widgets(self)
        self.keys = KeyDispatcher(self, self._key_pressed, release_focus=self._release_focus)
        self.list.setFocus(Qt.FocusReason.OtherFocusReason)  # J/K and the arrows move in the list at once
        self._show_filter()
        self.reload()
        self.reload_stats()

    # -- keys -------------------------------------------------------------------------------
    def set_keymap(self, keymap: Keymap) -> None:
        self.keymap = keymap

    def _key_pressed(self, key: str) -> bool:
        name = self.keymap.action_for(key)
        if name in ("next", "previous"):
            row = self.list.currentIndex().row() + (1 if name == "next" else -1)
            if 0 <= row < self.model.rowCount():
                self.list.selectRow(row)
            return True
        if name == "lock_decision":
            if self.votes.lock.isEnabled():
                self._lock()
            else:
                self.status.setText("Only the chair locks the panel's decision.")
            return True
        if name == "edit_note":
            if not self.votes.new_note.isEnabled():
                return True  # no item shown yet
            self.votes.tabs.setCurrentIndex(0)
            self.votes.new_note.setFocus(Qt.FocusReason.ShortcutFocusReason)
            return True
        if name == "close_window":
            self.close()
            return True
        return False

    def _release_focus(self, widget: QWidget, key: str) -> bool:
        """Escape in a text field or a filter of the view: back to the list (Enter stays the
        field's; Escape in the list closes the view)."""
        if key != "Esc" or widget is None or widget is self.list:
            return False
        self.list.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        width = event.size().width()
        # The votes pane gets 38%: at 1280 px its columns (one per panelist) then hold a
        # category name or a note's longest word without breaking it.
        self.splitter.setSizes([max(330, int(width * 0.28)), width, max(440, int(width * 0.38))])

    # -- loading -------------------------------------------------------------------------
    @property
    def rows(self) -> list[GroupRow]:
        return self._state.rows if self._state else []

    def reload(self) -> None:
        self.runner.read(acts.group_state, self.project, viewer_id=self.panelist.id, field=self._field,
                            pair=self._pair, on_done=self._group_loaded, on_error=self._failed)

    def reload_stats(self) -> None:
        """Recompute the agreement; while a computation runs, one more is queued at most
        (the bootstrap takes seconds on a large project, and acts come faster)."""
        if self._stats_running:
            self._stats_dirty = True
            return
        self._stats_running, self._stats_dirty = True, False
        self.agreement.set_busy()
        self.runner.read(acts.agreement, self.project, resamples=self.resamples, lane="stats",
                         on_done=self._stats_loaded, on_error=self._stats_failed)

    def _stats_failed(self, error: BaseException) -> None:
        self._stats_running = False
        self._failed(error)

    def _group_loaded(self, state: GroupState) -> None:
        self._state = state
        keep = self._row.item if self._row else None
        self.list.selectionModel().blockSignals(True)
        self.model.set_rows(state.rows)
        self.list.selectionModel().blockSignals(False)
        self._show_filter()
        waiting = state.unanimous_to_lock
        self.lock_unanimous.setText(f"Lock all unanimous ({waiting})")
        self.lock_unanimous.setVisible(bool(waiting))
        self.lock_unanimous.setEnabled(self.panelist.is_chair)
        chosen = next((r for r, row in enumerate(state.rows) if row.item == keep), 0 if state.rows else -1)
        if self._advance is not None and self._advance == keep and chosen >= 0:  # on to the next open dispute
            self._advance = None
            order = list(range(chosen + 1, len(state.rows))) + list(range(0, chosen))  # on, then from the top
            still_open = [r for r in order if not state.rows[r].decision or state.rows[r].decision == "reopened"]
            chosen = still_open[0] if still_open else chosen
        if chosen >= 0:
            self.list.selectionModel().blockSignals(True)
            self.list.selectRow(chosen)
            self.list.selectionModel().blockSignals(False)
            self._row_selected(chosen, force=True)
        else:
            self._row = None
            self.votes.show_panel(None, chair=False)
            self.headline.setText("")
            self.facts.clear()
            self.image.show_message("Nothing to discuss", "Every image voted by the whole panel is unanimous "
                                    "here." if self._pair is None else "These two panelists agree everywhere.")
        self.status.setText(f"updated {_now()}")
        self.loaded.emit()

    def _stats_loaded(self, summary) -> None:
        self._stats_running = False
        self.agreement.set_report(summary.report, summary.matrices, resamples=summary.resamples,
                                  reliability=summary.reliability)
        self.stats_shown.emit()
        if self._stats_dirty:
            self.reload_stats()

    def _failed(self, error: BaseException) -> None:
        self.status.setText(f'<span style="color:{ERROR}">{escape(scrub(str(error)))}</span>')
        self.action_failed.emit(scrub(str(error)))

    # -- the current item ------------------------------------------------------------------
    def _row_selected(self, index: int, *, force: bool = False) -> None:
        if not self._state or not 0 <= index < len(self._state.rows):
            return
        row = self._state.rows[index]
        if not force and self._row is not None and row.item == self._row.item:
            return
        new_item = self._row is None or row.item != self._row.item
        self._row = row
        self.headline.setText(f'<b>{escape(row.predicted_name)}</b> <span style="color:{MUTED}">predicted for '
                              f'{escape(row.file_name)} · phase {", ".join(map(str, row.phases)) or "–"}</span>')
        self.runner.read(acts.group_item, self.project, snapshot=self._state.snapshot, item=row.item,
                            viewer_id=self.panelist.id, on_done=self._panel_loaded, on_error=self._failed)
        if new_item:
            self._detail = None
            self.facts.clear()
            self.neighbours.show_facts(None)
            self.image.show_message("Loading…")
            if row.run_id is not None:
                self.runner.read(self._load_detail, row, lane="facts", on_done=self._detail_loaded,
                                   on_error=lambda e, r=row: self._detail_failed(r, e))

    def _load_detail(self, row: GroupRow) -> MistakeDetail:
        if self._source is None or self._source_stale:  # built on the facts thread: it reads the labels once
            self._source_stale = False
            self._source = DetailSource(self.project)
        return self._source.detail(run_id=row.run_id, image_id=row.item.image_id, predicted=row.item.predicted)

    def _panel_loaded(self, panel) -> None:
        if self._row is None or panel.item != self._row.item:
            return
        chair = any(p.id == self.panelist.id and p.is_chair for p in self._state.snapshot.panelists)
        row = self._row
        self.votes.show_panel(panel, chair=chair,
                              item_text=f"{row.file_name}: predicted {row.predicted_name} (class {row.item.predicted})")
        self.item_shown.emit(panel.item)

    def _detail_loaded(self, detail: MistakeDetail) -> None:
        if self._row is None or (detail.image_id, detail.predicted.index) != tuple(
                (self._row.item.image_id, self._row.item.predicted)):
            return
        self._detail = detail
        self.facts.show_detail(detail)
        self.neighbours.show_facts(detail.neighbours)
        self._show_image()

    def _detail_failed(self, row: GroupRow, error: BaseException) -> None:
        if self._row is row:
            self.image.show_message("No facts for this mistake", str(error))

    def _show_image(self) -> None:
        detail = self._detail
        if detail is None:
            return
        if not detail.image_exists:
            self.image.show_message("No image file", str(detail.image_path or detail.file_name))
            return
        decoded = self.loader.request(self.image.fit_key(detail.image_path), priority=2)
        if decoded is not None:
            self._image_loaded(decoded)

    def _image_loaded(self, decoded: Decoded) -> None:
        detail = self._detail
        if detail is None or detail.image_path is None or decoded.key.path != str(detail.image_path):
            return
        if decoded.image is None:
            self.image.show_message("Cannot read this image", decoded.error)
        else:
            self.image.show_image(decoded.image, decoded.original_size)

    # -- filters -------------------------------------------------------------------------
    def set_field_filter(self, field: str | None) -> None:
        self.field_filter.setCurrentIndex(max(0, self.field_filter.findData(field)))

    def _field_changed(self) -> None:
        self._field = self.field_filter.currentData()
        if self._pair is not None and self._field is None:
            self._pair = None
        self.reload()

    def set_pair_filter(self, field: str | None, first: int | None = None, second: int | None = None) -> None:
        """List the items where panelists `first` and `second` disagree on `field` (None: no pair)."""
        self._pair = (first, second) if field is not None else None
        self.field_filter.blockSignals(True)
        self.set_field_filter(field)  # None: back to every split image
        self.field_filter.blockSignals(False)
        self._field = self.field_filter.currentData()
        self.tabs.setCurrentWidget(self.votes)
        self.reload()

    def _show_filter(self) -> None:
        count = len(self.rows)
        if self._pair is None:
            self.title.setText(f"{count} image{'s' if count != 1 else ''} without unanimity")
            self.pair_label.setText("")
        else:
            names = {p.id: p.name for p in self._state.snapshot.panelists} if self._state else {}
            a, b = (names.get(i, str(i)) for i in self._pair)
            hidden = self._state.hidden if self._state else 0
            self.title.setText(f"{count} image{'s' if count != 1 else ''} where {a} and {b} disagree")
            self.pair_label.setText(f"(and {hidden} you have not voted yet)" if hidden else "")
        self.clear_pair.setVisible(self._pair is not None)

    # -- acts ------------------------------------------------------------------------------
    def _act(self, fn, message: str, **kwargs) -> None:
        """Run an app act; its change record reaches this view, the review page and the
        progress (the runner publishes it) before the message shows."""
        def done(_result) -> None:
            self.status.setText(message)
            self.action_done.emit(message)

        self.runner.act(fn, self.project, on_done=done, on_error=self._failed, **kwargs)

    def _cast(self, fields: dict) -> None:
        if self._row is not None:
            self._act(acts.vote, "your vote is recorded", panelist_id=self.panelist.id, item=self._row.item,
                      **fields)

    def _note(self, text: str) -> None:
        # Enter posted the note: the keys go back to the list (J/K, L to lock), as they do
        # after a note on the review page; the next E comes back to the box.
        self.list.setFocus(Qt.FocusReason.OtherFocusReason)
        if self._row is not None:
            self._act(acts.note, "note added", panelist_id=self.panelist.id, item=self._row.item, text=text)

    def _lock(self) -> None:
        """Show the chair what the lock would record (majority; 'unclear' on a tie; problematic
        by majority; an override it would replace) and lock on yes, or let the chair choose."""
        if self._row is not None:
            item = self._row.item
            self.runner.read(acts.lock_preview, self.project, chair_id=self.panelist.id, item=item,
                                on_done=lambda preview, i=item: self._lock_previewed(i, preview),
                                on_error=self._failed)

    def confirm_lock(self, preview) -> str:
        """'lock', 'choose' (the override dialog) or 'cancel': the chair's answer."""
        box = QMessageBox(self)
        box.setWindowTitle("Lock the panel's decision?")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(preview.text + (f"\n\n{preview.replaces}" if preview.replaces else ""))
        lock = box.addButton("Replace the override" if preview.replaces else "Lock", QMessageBox.ButtonRole.AcceptRole)
        choose = box.addButton("Choose instead…", QMessageBox.ButtonRole.ActionRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(lock)
        box.exec()
        return "lock" if box.clickedButton() is lock else "choose" if box.clickedButton() is choose else "cancel"

    def _lock_previewed(self, item, preview) -> None:
        if self._row is None or self._row.item != item:
            return
        answer = self.confirm_lock(preview)
        if answer == "lock":
            self._advance = item
            self._act(acts.lock, "decision locked", chair_id=self.panelist.id, item=item,
                      force=bool(preview.replaces))
        elif answer == "choose":
            self.votes._override()

    def _lock_unanimous(self) -> None:
        self._act(acts.lock_all, "unanimous decisions locked", chair_id=self.panelist.id, unanimous_only=True)

    def ask_reason(self, title: str, prompt: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, prompt)
        return text.strip() if ok and text.strip() else None

    def _reopen(self) -> None:
        if self._row is None:
            return
        reason = self.ask_reason("Reopen the item", "Why the panel votes it again (kept in its history):")
        if reason is None:
            self.status.setText("Not reopened: a reopening needs a reason.")
            return
        self._act(acts.reopen_item, "reopened: the panel votes it again", panelist_id=self.panelist.id,
                  item=self._row.item, reason=reason)

    def _override(self, decision: dict) -> None:
        if self._row is not None:
            self._act(acts.override, "decision overridden", chair_id=self.panelist.id, item=self._row.item,
                      **decision)

    def _changed(self, changes) -> None:
        """A change record (an act here, in the review window, or anyone's): the list, the
        shown item and the agreement are read again when votes, decisions or notes changed."""
        if changes.votes or changes.decisions or changes.notes or changes.panel or changes.runs or changes.labels:
            self.reload()
        if changes.votes or changes.decisions or changes.panel:
            self.reload_stats()
        if changes.labels:
            self._source_stale = True
        if (changes.decisions or changes.labels) and self._row is not None and self._row.run_id is not None:
            # A decision changes how the shown image's top-5 and other runs' top-1 read.
            self.runner.read(self._load_detail, self._row, lane="facts", on_done=self._detail_loaded,
                               on_error=lambda e, r=self._row: self._detail_failed(r, e))

    def selected_item(self) -> Item | None:
        return self._row.item if self._row else None

    def shutdown(self) -> None:
        if self._shut:
            return  # closed, then shut down with the main window
        self._shut = True
        self.watcher.changed.disconnect(self._changed)
        self.runner.shutdown(writes_msecs=30_000)
        self.loader.shutdown()

    def closeEvent(self, event) -> None:  # noqa: N802
        self.shutdown()
        super().closeEvent(event)


def _now() -> str:
    from datetime import datetime

    return datetime.now().strftime("%H:%M:%S")
