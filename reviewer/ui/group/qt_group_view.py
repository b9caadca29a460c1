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

Its parts, each one responsibility and a mixin of `QtGroupView`: `group_view_list`
(the list of split items, its filters and the agreement), `group_view_item` (the
shown item: its votes, facts and image), `group_view_acts` (what the votes pane's
controls record) and `_group_view_layout` (where the widgets go). What stays here:
the widgets and their wiring, the keys, and following the project's changes.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QPushButton, QTabWidget, QWidget

from reviewer.app.keymap import Keymap, default_keymap
from reviewer.app.mistake_detail import DetailSource, MistakeDetail
from reviewer.panel.group import GroupRow, GroupState
from reviewer.panel.snapshot import FIELDS
from reviewer.project import Project
from reviewer.redact import scrub
from reviewer.ui.group._group_view_layout import (
    column_sizes,
    create_headline,
    create_list,
    lay_out_centre,
    lay_out_columns,
    lay_out_top,
)
from reviewer.ui.group.group_view_acts import GroupViewActs
from reviewer.ui.group.group_view_item import GroupViewItem
from reviewer.ui.group.group_view_list import GroupViewList
from reviewer.ui.group.qt_agreement_panel import FIELD_TITLES, QtAgreementPanel
from reviewer.ui.group.qt_group_list import GroupListModel
from reviewer.ui.group.qt_group_votes import QtGroupVotes
from reviewer.ui.image_loader import ImageLoader
from reviewer.ui.keys import KeyDispatcher, is_text_input
from reviewer.ui.ops import OpRunner
from reviewer.ui.plain import text_label
from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.review.qt_detail_panel import QtDetailPanel
from reviewer.ui.review.qt_neighbours import QtNeighbours
from reviewer.ui.theme import ERROR, style_headline, style_muted, style_widgets
from reviewer.ui.watcher import ProjectWatcher


class QtGroupView(GroupViewList, GroupViewItem, GroupViewActs, QWidget):
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
        # The chair's way when unanimity is not final (reviewer.panel.final): hidden otherwise.
        self.lock_unanimous = QPushButton()
        self.lock_unanimous.setVisible(False)
        self.lock_unanimous.clicked.connect(self._lock_unanimous)
        top = lay_out_top(title=self.title, field_filter=self.field_filter, pair_label=self.pair_label,
                          clear_pair=self.clear_pair, lock_unanimous=self.lock_unanimous, status=self.status)

        self.model = GroupListModel(self)
        self.list = create_list(self.model)
        self.list.selectionModel().currentRowChanged.connect(lambda current, _: self._row_selected(current.row()))

        self.headline = create_headline()
        self.image = QtImageView()
        self.facts = QtDetailPanel()
        self.neighbours = QtNeighbours(self.loader, self.loader)  # the nearest training images (issue 26)
        centre = lay_out_centre(headline=self.headline, image=self.image, neighbours=self.neighbours,
                                facts=self.facts)

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

        self.splitter = lay_out_columns(self, top=top, items=self.list, centre=centre, tabs=self.tabs)

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
        if (QApplication.focusWidget() is None and is_text_input(self.focusWidget())
                and not key.startswith(("Ctrl+", "Alt+", "Meta+"))):
            return False  # no active window names a focus (X11 without a window manager): the view's text field has it
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
        # The view's own focus child when the app names none: with no active window (an X11 session
        # without a window manager) Escape in the discussion box reached the view with no focus named,
        # and closed it.
        widget = widget if widget is not None else self.focusWidget()
        if key != "Esc" or widget is None or widget is self.list:
            return False
        self.list.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.splitter.setSizes(column_sizes(event.size().width()))

    # -- following the project -------------------------------------------------------------
    def _failed(self, error: BaseException) -> None:
        self.status.setText(f'<span style="color:{ERROR}">{escape(scrub(str(error)))}</span>')
        self.action_failed.emit(scrub(str(error)))

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
