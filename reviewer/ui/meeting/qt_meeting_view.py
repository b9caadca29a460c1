"""The meeting: the images without a unanimous vote, for the panel's meeting.

    list of split items | image and its facts | votes side by side, my vote,
    (filter: field, or      (the review window's   discussion, history, chair's
     a pair of panelists)    widgets)              lock/override | agreement tab

Every database call runs on a worker thread (`reviewer.ui.workers`): a reader for the list and
the item, one for the agreement statistics (the bootstrap takes seconds), one for the image
facts, and a single writer so acts reach the database in the order they were made. It follows
the project's `ProjectWatcher` (the main window's): its own acts, the review page's and anyone
else's arrive as change records, and the list, the shown item and the agreement are read again,
so the view follows the meeting.

A tree of parts, each taking what it needs in its constructor and owning its state, wired in
`_connect_signals`: `meeting_list.MeetingList` (the split items, their filters, the row chosen),
`qt_meeting_item.QtMeetingItem` (the item chosen: headline, image, facts, and its panel read),
`qt_meeting_votes.QtMeetingVotes` (the votes side by side and what the panelist asks for),
`meeting_acts.MeetingActs` (what those asks record), `meeting_agreement.MeetingAgreement` (the
Agreement tab's statistics) and `_meeting_layout` (where the widgets go). What stays here:
the status line, the keys, the dialogs the acts ask, and following the project's changes.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QApplication, QInputDialog, QLabel, QMessageBox, QTabWidget, QWidget

from reviewer.app.keymap import Keymap, default_keymap
from reviewer.items import Item
from reviewer.project import Project
from reviewer.redact import scrub
from reviewer.ui.image_loader import ImageLoader
from reviewer.ui.keys import KeyDispatcher, is_text_input
from reviewer.ui.meeting._meeting_layout import column_sizes, lay_out_columns, lay_out_top
from reviewer.ui.meeting.meeting_acts import MeetingActs
from reviewer.ui.meeting.meeting_agreement import MeetingAgreement
from reviewer.ui.meeting.meeting_list import MeetingList, now_text
from reviewer.ui.meeting.qt_agreement_panel import QtAgreementPanel
from reviewer.ui.meeting.qt_meeting_item import QtMeetingItem
from reviewer.ui.meeting.qt_meeting_votes import QtMeetingVotes
from reviewer.ui.ops import OpRunner
from reviewer.ui.theme import ERROR, style_muted, style_widgets
from reviewer.ui.watcher import ProjectWatcher


def _part_attribute(part: str, name: str) -> property:
    """A part's attribute, read through the meeting by the name its users know (read-only)."""
    return property(lambda view: getattr(getattr(view, part), name))


class QtMeetingView(QWidget):
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
        self.setWindowTitle(f"Meeting: {project.name}")
        self._shut = False
        # Reads of the list and the shown item, the agreement's bootstrap (seconds on a large
        # project) and the facts each on their own lane, so none waits for another.
        self.runner = OpRunner(self.watcher, name="meeting", lanes={"read": 1, "stats": 1, "facts": 1}, parent=self)
        self.loader = ImageLoader(parent=self)

        self.status = QLabel()  # rich: an error in its colour; every stored string through escape
        style_muted(self.status)
        self.meeting_list = MeetingList(project, panelist, self.runner, self)
        self.item_pane = QtMeetingItem(project, panelist, self.runner, self.loader)
        self.votes = QtMeetingVotes()
        self.acts = MeetingActs(project, panelist, self.runner, parent=self,
                                confirm_lock=lambda preview: self.confirm_lock(preview),
                                ask_reason=lambda title, prompt: self.ask_reason(title, prompt))
        self.agreement = QtAgreementPanel()
        self.agreement_stats = MeetingAgreement(project, self.runner, self.agreement, resamples=self.resamples,
                                                parent=self)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.votes, "Votes")
        self.tabs.addTab(self.agreement, "Agreement")
        listed = self.meeting_list
        top = lay_out_top(title=listed.title, field_filter=listed.field_filter, pair_label=listed.pair_label,
                          clear_pair=listed.clear_pair, lock_unanimous=listed.lock_unanimous, status=self.status)
        self.splitter = lay_out_columns(self, top=top, items=listed.list, centre=self.item_pane, tabs=self.tabs)
        style_widgets(self)
        self.keys = KeyDispatcher(self, self._key_pressed, release_focus=self._release_focus)
        self._connect_signals()
        self.list.setFocus(Qt.FocusReason.OtherFocusReason)  # J/K and the arrows move in the list at once
        self.reload()
        self.reload_stats()

    def _connect_signals(self) -> None:
        """The parts, wired to each other and to the status line in one place."""
        self.watcher.changed.connect(self._changed)
        listed, item, votes, acts = self.meeting_list, self.item_pane, self.votes, self.acts
        listed.row_chosen.connect(item.show_row)
        listed.row_chosen.connect(lambda row, _snapshot: acts.set_item(row.item))
        listed.emptied.connect(self._emptied)
        listed.loaded.connect(self._listed)
        listed.pair_changed.connect(lambda: self.tabs.setCurrentWidget(votes))
        listed.lock_unanimous_requested.connect(acts.lock_unanimous)
        listed.failed.connect(self._failed)
        item.panel_loaded.connect(lambda panel, chair, text: votes.show_panel(panel, chair=chair, item_text=text))
        item.item_shown.connect(self.item_shown)
        item.failed.connect(self._failed)
        votes.vote_requested.connect(acts.vote)
        votes.note_requested.connect(self._note)
        votes.lock_requested.connect(acts.lock)
        votes.override_requested.connect(acts.override)
        votes.reopen_requested.connect(acts.reopen)
        acts.locking.connect(listed.advance_after)
        acts.choose_override.connect(votes.ask_override)
        acts.done.connect(self._done)
        acts.said.connect(self.status.setText)
        acts.failed.connect(self._failed)
        self.agreement.pair_chosen.connect(self.set_pair_filter)
        self.agreement_stats.shown.connect(self.stats_shown)
        self.agreement_stats.failed.connect(self._failed)

    # -- what the meeting's users read (its parts' state, by the names they know) ----------------
    list = _part_attribute("meeting_list", "list")
    model = _part_attribute("meeting_list", "model")
    rows = _part_attribute("meeting_list", "rows")
    title = _part_attribute("meeting_list", "title")
    field_filter = _part_attribute("meeting_list", "field_filter")
    pair_label = _part_attribute("meeting_list", "pair_label")
    clear_pair = _part_attribute("meeting_list", "clear_pair")
    lock_unanimous = _part_attribute("meeting_list", "lock_unanimous")
    _state = _part_attribute("meeting_list", "state")
    headline = _part_attribute("item_pane", "headline")
    image = _part_attribute("item_pane", "image")
    facts = _part_attribute("item_pane", "facts")
    neighbours = _part_attribute("item_pane", "neighbours")

    def selected_item(self) -> Item | None:
        return self.item_pane.selected_item()

    def reload(self) -> None:
        self.meeting_list.reload()

    def reload_stats(self) -> None:
        self.agreement_stats.reload()

    def set_field_filter(self, field: str | None) -> None:
        self.meeting_list.set_field_filter(field)

    def set_pair_filter(self, field: str | None, first: int | None = None, second: int | None = None) -> None:
        """List the items where panelists `first` and `second` disagree on `field` (None: no pair)."""
        self.meeting_list.set_pair_filter(field, first, second)

    # -- what the parts said -------------------------------------------------------------------
    def _listed(self, _state) -> None:
        self.status.setText(f"updated {now_text()}")
        self.loaded.emit()

    def _emptied(self, title: str, text: str) -> None:
        self.acts.set_item(None)
        self.votes.show_panel(None, chair=False)
        self.item_pane.clear(title, text)

    def _note(self, text: str) -> None:
        # Enter posted the note: the keys go back to the list (J/K, L to lock), as they do
        # after a note on the review page; the next E comes back to the box.
        self.list.setFocus(Qt.FocusReason.OtherFocusReason)
        self.acts.note(text)

    def _done(self, message: str) -> None:
        self.status.setText(message)
        self.action_done.emit(message)

    def _failed(self, error: BaseException) -> None:
        self.status.setText(f'<span style="color:{ERROR}">{escape(scrub(str(error)))}</span>')
        self.action_failed.emit(scrub(str(error)))

    # -- the questions the acts ask ------------------------------------------------------------
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

    def ask_reason(self, title: str, prompt: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, prompt)
        return text.strip() if ok and text.strip() else None

    # -- keys -------------------------------------------------------------------------------
    def set_keymap(self, keymap: Keymap) -> None:
        self.keymap = keymap

    def _key_pressed(self, key: str) -> bool:
        if (QApplication.focusWidget() is None and is_text_input(self.focusWidget())
                and not key.startswith(("Ctrl+", "Alt+", "Meta+"))):
            return False  # no active window names a focus (X11 without a window manager): the view's text field has it
        name = self.keymap.action_for(key)
        if name in ("next", "previous"):
            self.meeting_list.step(1 if name == "next" else -1)
            return True
        if name == "lock_decision":
            if self.votes.lock.isEnabled():
                self.acts.lock()
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
    def _changed(self, changes) -> None:
        """A change record (an act here, in the review window, or anyone's): the list, the
        shown item and the agreement are read again when votes, decisions or notes changed."""
        if changes.votes or changes.decisions or changes.notes or changes.panel or changes.runs or changes.labels:
            self.reload()
        if changes.votes or changes.decisions or changes.panel:
            self.reload_stats()
        if changes.labels:
            self.item_pane.labels_changed()
        if changes.decisions or changes.labels:
            self.item_pane.read_facts()  # a decision changes how the shown image's top-5 and other runs' top-1 read

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
