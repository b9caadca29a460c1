"""The review page: queue | image, header and exemplars | your vote and the facts.

It shows what the `ReviewBridge` holds and turns actions (keys or buttons,
by name from the keymap) into calls of the review's state. `mistake_shown` fires once the
current mistake's facts and its image (or the placeholder) are on screen;
the latency benchmark waits for it.

A tree of parts, each taking what it needs in its constructor and owning its state;
`_connect_signals` wires them in one place: `review_page_image.ReviewPageImage` (the image
view's state: which decoded image it waits for, the decoding ahead),
`review_page_votes.ReviewPageVotes` (the vote panel's display of the shown item's votes
and decision, and the keys that vote), `review_page_actions.ReviewPageActions` (a key or
button's action by name, given the acts it triggers), the panes (`qt_*`) and
`standing_check.StandingCheck`; `_review_page_layout` places the widgets. What stays here:
the shown item (its header, its facts, the queue list following it) and when it is on
screen.
"""

from __future__ import annotations

import time
from html import escape

from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QWidget

from reviewer.app.keymap import Keymap
from reviewer.app.mistake_detail import Exemplar, MistakeDetail
from reviewer.classes.vocabulary import load_classes
from reviewer.items import Item
from reviewer.panel.scope import SCOPE_QUEUE
from reviewer.review.queue_entry import QueueEntry
from reviewer.review.state import ReviewState
from reviewer.terms import Phase
from reviewer.ui.image_loader import ImageLoader
from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.review._review_page_layout import column_sizes, create_header, lay_out_columns
from reviewer.ui.review.qt_detail_panel import QtDetailPanel
from reviewer.ui.review.qt_exemplars import QtExemplars, preview_exemplar
from reviewer.ui.review.qt_neighbours import QtNeighbours
from reviewer.ui.review.qt_notes import QtNotesPanel
from reviewer.ui.review.qt_override_notice import QtOverrideNotice
from reviewer.ui.review.qt_queue_panel import QtQueuePanel
from reviewer.ui.review.qt_vote_panel import QtVotePanel
from reviewer.ui.review.qt_zoom import QtZoomPanel
from reviewer.ui.review.review_bridge import ReviewBridge
from reviewer.ui.review.review_page_actions import ReviewPageActions, view_acts
from reviewer.ui.review.review_page_image import ReviewPageImage
from reviewer.ui.review.review_page_votes import ReviewPageVotes
from reviewer.ui.review.standing_check import StandingCheck, outside_run_reason
from reviewer.ui.theme import MUTED, WARNING

# On a short window the image and the thumbnail strips below it give way together, each by as
# many pixels (a layout's share of what is missing), down to their minimums: the image to this
# height, the strips to their smallest thumbnails. With the zoom probe, the example images and
# the nearest training images the page then fits a 1280x720 screen. Past their preferred sizes
# the image alone grows.
IMAGE_MIN_HEIGHT = 150
IMAGE_PREFERRED_HEIGHT = 300


class QtReviewPage(QWidget):
    mistake_shown = Signal(object)  # the item shown
    status_message = Signal(str, bool)
    voted = Signal()  # a key or button changed the panelist's vote

    def __init__(self, keymap: Keymap, *, auto_advance: str = "complete", parent: QWidget | None = None):
        super().__init__(parent)
        self.bridge: ReviewBridge | None = None  # the Qt side: signals, threads
        self.review: ReviewState | None = None  # the state it shows (the bridge's)
        self.loader = ImageLoader(parent=self)
        # Thumbnails decode on their own thread, so they never delay the main image.
        self.thumbnails = ImageLoader(threads=1, cache_size=400, parent=self)
        self._shown: dict[str, bool] = {}  # which of the shown item's facts and image are on screen
        self._syncing = False
        self.painted_at = 0.0  # perf_counter() when the last mistake was painted in full

        self.queue_panel = QtQueuePanel()
        self.headline, self.subheadline = create_header()
        self.image = QtImageView(preferred=QSize(480, IMAGE_PREFERRED_HEIGHT))
        self.image.setMinimumHeight(IMAGE_MIN_HEIGHT)
        self.shown_image = ReviewPageImage(self.image, self.loader, parent=self)
        self.zoom = QtZoomPanel()  # the zoom probe's strip; its crops drawn over the image
        self.exemplars = QtExemplars(self.thumbnails)
        self.neighbours = QtNeighbours(self.thumbnails, self.loader)  # the nearest training images (issue 26)
        self.vote_panel = QtVotePanel(keymap)
        self.details = QtDetailPanel()
        self.votes = ReviewPageVotes(self.vote_panel, self.details, auto_advance=auto_advance, parent=self)
        self.page_actions = ReviewPageActions(view_acts(self.image, self.zoom), vote=self.votes.trigger)
        self.notes = QtNotesPanel()  # the panel's notes on the shown mistake (hidden when it has none)
        # The chair's override of one of my votes, told as it happens (issue 35, 4), above the vote.
        self.override_notice = QtOverrideNotice()
        # Whether votes on the shown item count (a run outside the panel's scope, a stale queue).
        self.standing = StandingCheck(self)
        self._scope_view = self._scope_status = None  # as the window last read them (set_scope)

        self.splitter, self._centre, self._right = lay_out_columns(
            self, queue=self.queue_panel,
            centre_widgets=[(self.headline, 0), (self.subheadline, 0), (self.image, 0), (self.zoom, 0),
                            (self.exemplars, 0), (self.neighbours, 0)],
            right_widgets=[(self.override_notice, 0), (self.vote_panel, 0), (self.notes, 0), (self.details, 1)])
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._connect_signals()

    def _connect_signals(self) -> None:
        """The parts, wired to each other and to the page in one place."""
        self.queue_panel.view.selectionModel().currentChanged.connect(self._list_moved)
        self.queue_panel.editing_done.connect(lambda: self.setFocus(Qt.FocusReason.OtherFocusReason))
        self.shown_image.shown.connect(lambda: self._mark_shown("image"))
        self.zoom.overlay_changed.connect(self.image.set_overlay)
        self.zoom.message.connect(self.status_message)
        self.exemplars.activated.connect(self._preview_exemplar)
        self.vote_panel.action_triggered.connect(self.trigger)
        self.vote_panel.text_left.connect(lambda: self.setFocus(Qt.FocusReason.TabFocusReason))
        self.votes.text_closed.connect(lambda: self.setFocus())
        self.votes.voted.connect(self.voted)
        self.votes.message.connect(self.status_message)
        self.override_notice.go_to.connect(self.go_to_item)
        self.override_notice.told.connect(lambda text: self.status_message.emit(text, False))
        self.standing.known.connect(self._standing_known)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        width = event.size().width()
        self.splitter.setSizes(column_sizes(width))

    # -- the preferences the window sets --------------------------------------------
    @property
    def auto_advance(self) -> str:
        """After a vote: "complete" (once the vote is complete), "verdict" or "off"."""
        return self.votes.auto_advance

    @auto_advance.setter
    def auto_advance(self, value: str) -> None:
        self.votes.auto_advance = value

    @property
    def evidence_before_vote(self) -> bool:
        """The preference: the published evidence shown before one's verdict."""
        return self.votes.evidence_before_vote

    @evidence_before_vote.setter
    def evidence_before_vote(self, shown: bool) -> None:
        self.votes.evidence_before_vote = shown

    def set_evidence_before_vote(self, shown: bool) -> None:
        self.votes.set_evidence_before_vote(shown)

    def trigger(self, name: str) -> bool:
        """Carry out a keymap action (a key, a menu or a button); False when it does not apply here."""
        return self.page_actions.trigger(name)

    def _show_others(self, item) -> None:  # the main window's, as the rules in force change
        self.votes.show_others(item)

    # -- the review ---------------------------------------------------------------
    def set_bridge(self, bridge: ReviewBridge | None) -> None:
        """Show this review (None: none; the previous one is disconnected)."""
        if self.bridge is not None:
            for signal in (self.bridge.queue_loaded, self.bridge.current_changed, self.bridge.detail_ready,
                           self.bridge.vote_changed, self.bridge.others_changed, self.bridge.message,
                           self.bridge.states_changed):
                signal.disconnect()
            self.queue_panel.filter_changed.disconnect()
            self.bridge.watcher.changed.disconnect(self._project_changed)
        self.bridge = bridge
        self.review = bridge.state if bridge is not None else None
        self.votes.set_bridge(bridge)
        self.page_actions.set_review(self.review)
        self.shown_image.set_review(self.review)
        self.queue_panel.model.set_queue(None)
        self.notes.set_source(bridge.project if bridge else None, bridge.panelist.id if bridge else None,
                              blind=(lambda: bridge.state.blind) if bridge else True,
                              watcher=bridge.watcher if bridge else None)
        self.standing.set_project(bridge.project if bridge else None)
        self.override_notice.set_source(bridge.project if bridge else None, bridge.panelist.id if bridge else None,
                                        bridge.panelist.name if bridge else "",
                                        watcher=bridge.watcher if bridge else None, describe=self._describe_item)
        self._scope_view = self._scope_status = None
        self.queue_panel.scope_notes.show_scope(None, None, None)
        if bridge is None:
            return
        bridge.queue_loaded.connect(self._queue_loaded)
        bridge.current_changed.connect(self._current_changed)
        bridge.detail_ready.connect(self._detail_ready)
        bridge.vote_changed.connect(self._vote_changed)
        bridge.others_changed.connect(self.votes.others_changed)
        bridge.states_changed.connect(self._states_changed)
        bridge.message.connect(self.status_message)
        self.queue_panel.filter_changed.connect(self.review.set_filter)
        bridge.watcher.changed.connect(self._project_changed)

    def set_keymap(self, keymap: Keymap) -> None:
        self.vote_panel.set_keymap(keymap)

    def _queue_loaded(self) -> None:
        self.queue_panel.model.set_queue(self.review.queue)
        self._update_counts()
        self.standing.queue_read(self.review.run_id)
        self.queue_panel.scope_notes.show_scope(self.review.run_id, self._scope_view, self._scope_status)
        self.override_notice.describe_again()  # an override told before the queue names its item's file

    def _vote_changed(self, item) -> None:
        """One's own vote on `item` changed: its row and the counts, then the vote panel."""
        self.queue_panel.model.pending = set(self.review.pending)  # the items whose vote is SAVING
        self.queue_panel.refresh_items((item,))
        self._update_counts()
        self.votes.vote_changed(item)

    def _update_counts(self) -> None:
        queue = self.review.queue if self.bridge else None
        self.queue_panel.counts.setText(queue.counts().describe() if queue is not None else "No run")
        self.queue_panel.progress.set_progress(
            queue.progress if queue is not None else [], self.bridge.panelist.id if self.bridge else None,
            of="of the panel's scope" if queue is not None and queue.run_id == SCOPE_QUEUE else "of the run's mistakes")

    # -- the panel's scope ------------------------------------------------------------
    def set_scope(self, view, status) -> None:
        """The panel's scope (`reviewer.app.scope.ScopeView`) and status (`app.panel_status`) as
        the window read them: the lines above the queue, and whether votes on the shown item count."""
        self._scope_view, self._scope_status = view, status
        self.standing.set_scope(view)
        run_id = self.review.run_id if self.review is not None else None
        self.queue_panel.scope_notes.show_scope(run_id, view, status)
        self._show_standing(self.review.current() if self.review is not None else None)

    def _project_changed(self, changes) -> None:
        self.standing.changed(changes)
        if changes.labels or changes.panel or changes.runs:
            self._show_standing(self.review.current() if self.review is not None else None)

    def _show_standing(self, entry: QueueEntry | None) -> None:
        """The vote panel closed, saying why, where votes on the shown item would count nowhere."""
        reason = self.standing.reason(entry.item) if entry is not None else ("", "")
        if reason is None:  # being asked: a run outside the scope takes no votes meanwhile
            reason = outside_run_reason(self.review.run_id) if self.standing.outside_run() else ("", "")
        self.vote_panel.set_closed(*reason)

    def _standing_known(self, item, reason: tuple[str, str]) -> None:
        if self.review is not None and item == self.review.current_item():
            self.vote_panel.set_closed(*reason)

    def _describe_item(self, item: Item) -> str:
        """An item in words: its file and predicted class (its file where the queue lists it)."""
        entry = self.review.queue.entry(item) if self.review is not None and self.review.queue is not None else None
        where = entry.file_name if entry is not None else f"image #{item.image_id}"
        return f"{where} (predicted {load_classes().names[item.predicted]})"

    def go_to_item(self, item: Item) -> None:
        """Show `item` (from the override notice); where the queue's filter hides it, say so."""
        if self.review is None or self.review.queue is None:
            return
        row = self.review.queue.row_of(Item(*item))
        if row is None:
            listed = self.review.queue.entry(Item(*item)) is not None
            self.status_message.emit(f"{self._describe_item(Item(*item))} is "
                                     + ("hidden by the queue's filter (Show: All lists it)" if listed else
                                        "not in this queue (another run's mistake: choose its run)"), True)
            return
        self.review.go_to(row)
        self.setFocus(Qt.FocusReason.OtherFocusReason)  # the review keys work on it at once

    def _list_moved(self, current, _previous) -> None:
        if not self._syncing and current.isValid() and self.bridge is not None:
            self.review.go_to(current.row())

    # -- showing ---------------------------------------------------------------------
    def _current_changed(self, entry: QueueEntry | None) -> None:
        self._shown = {}
        self.votes.drop_text_field()
        self._set_panes_visible(entry is not None)
        self._show_notes(entry)
        if entry is None:
            self.headline.setText("No mistakes match this filter" if self.review.queue else "")
            self.subheadline.setText("")
            self.image.show_message("Nothing to review here", "Change the filter on the left, or run a model.")
            self.details.clear()
            return
        # The list follows once the mistake itself is painted (see _mark_shown).
        QTimer.singleShot(0, self._sync_list)
        names = load_classes().names
        label = names[entry.original_label] if entry.original_label is not None else "unknown"
        self.headline.setText(f'<span style="color:{MUTED}">predicted</span> {escape(names[entry.predicted])} '
                              f'<span style="color:{MUTED}">{entry.probability:.1%} · label</span> {escape(label)}')
        self._show_flags(entry)
        self.votes.show_vote(entry.item)
        self.votes.show_others(entry.item)
        self._show_standing(entry)
        detail = self.review.detail(entry.item)
        if detail is not None:
            self._show_detail(detail)
        else:
            self.details.clear()
            self.shown_image.show_loading()

    def _show_flags(self, entry: QueueEntry) -> None:
        """The line under the headline: where the mistake is, and where the panel stands on it."""
        flags = [f"{self.review.row + 1} of {len(self.review.queue)}", escape(entry.file_name),
                 "novel" if entry.novel else "previously reviewed"]
        if entry.hierarchy_distance is not None:
            flags.append(f"WordNet distance {entry.hierarchy_distance}")
        if self.review.run_id == SCOPE_QUEUE:  # one item however many runs made it: whose top-5 is shown
            flags.append(f"top-5 of run #{entry.run_id}")
        if Phase.RATING in entry.to_do:
            # Second, after the position: a long file name must not push it out of sight.
            flags.insert(1, f'<span style="color:{WARNING}">phase 2: rate severity and category</span>')
        elif entry.decision is not None:
            flags.append(f"decided: {escape(entry.decision.caption())}")
        if entry.state.dispute is not None:
            flags.append(f'<span style="color:{WARNING}">disputed: the group decides</span>')
        detail = self.review.detail(entry.item)
        if detail is not None and detail.problematic:
            flags.append(f'<span style="color:{WARNING}">ground truth problematic</span>')
        self.subheadline.setText(" · ".join(flags))

    def _states_changed(self, items) -> None:
        """The panel's state of some items changed (anyone's vote, a lock): their rows,
        the counts, and the shown mistake's line and rating keys follow."""
        self.queue_panel.refresh_items(items)
        self._update_counts()
        self.votes.drop_stale_facts(items)
        entry = self.review.current()
        if entry is not None and entry.item in items:
            self._show_flags(entry)
            self.votes.show_vote(entry.item)
            self._show_notes(entry)

    def _show_notes(self, entry: QueueEntry | None) -> None:
        """The notes are read only for an item the queue knows to have some (most have
        none: no read at every key of a fast panelist); a new note re-reads its item's state."""
        item = entry.item if entry is not None and entry.state.notes else None
        if item != self.notes.item:
            self.notes.show_item(item)

    def _set_panes_visible(self, visible: bool) -> None:
        """The vote, the facts and the exemplars only while a mistake is shown."""
        for pane in (self.vote_panel, self.details, self.exemplars, self.neighbours):
            if pane.isVisible() != visible:
                pane.setVisible(visible)

    def show_empty(self, message: str, detail: str) -> None:
        """No mistake to show (no run yet): a message where the image goes."""
        self._set_panes_visible(False)
        self.headline.setText("")
        self.subheadline.setText("")
        self.image.show_message(message, detail)

    def _sync_list(self) -> None:
        """Select and show the current mistake's row in the queue list."""
        row = self.review.row if self.bridge else None
        if row is None or self.queue_panel.view.currentIndex().row() == row:
            return
        self._syncing = True
        index = self.queue_panel.model.index(row)
        view = self.queue_panel.view
        view.setCurrentIndex(index)
        if not view.viewport().rect().contains(view.visualRect(index)):
            # Off screen: page so that it is the second row from the top (the one before it in
            # view), rather than scroll one row per move, which repaints every row each time.
            view.scrollTo(self.queue_panel.model.index(max(row - 1, 0)), QAbstractItemView.ScrollHint.PositionAtTop)
        self._syncing = False

    def _detail_ready(self, detail: MistakeDetail) -> None:
        item = (detail.image_id, detail.predicted.index)
        self.votes.facts_read(item)  # the facts just read carry the decision as it stands
        if item == self.review.current_item():
            self._show_detail(detail)
        elif detail.image_exists:  # prefetch the image of a coming mistake, the nearest first
            self.shown_image.prefetch_of(detail)

    def _show_detail(self, detail: MistakeDetail) -> None:
        item = Item(detail.image_id, detail.predicted.index)
        self.votes.show_facts(detail)  # the evidence, the suggestion and the decision
        # The zoom probe runs the model of the run that made the mistake: in the scope's queue, the
        # entry's run (the first scoped run that made it), not the queue's id.
        shown = self.review.queue.entry(item) if self.review.queue is not None else None
        self.zoom.show_mistake(self.bridge.project, shown.run_id if shown is not None else None, item,
                               self.bridge.panelist.id)
        # Like the queue list, the exemplar strips (thumbnails decoded on a worker
        # anyway) follow once the mistake itself is painted.
        QTimer.singleShot(0, lambda d=detail: self._show_exemplars(d))
        entry = self.review.current()
        if entry is not None and entry.item == (detail.image_id, detail.predicted.index):
            self._show_flags(entry)
        self._shown["detail"] = True
        self.shown_image.show(detail)
        self._mark_shown("detail")

    def _show_exemplars(self, detail: MistakeDetail) -> None:
        if self._current_detail() is not detail:
            return
        label = detail.label_class
        self.exemplars.show_classes(detail.predicted, detail.predicted_exemplars, label,
                                    detail.label_exemplars if label else ())
        self.neighbours.show_facts(detail.neighbours)

    def _mark_shown(self, part: str) -> None:
        self._shown[part] = True
        if self._shown.get("detail") and self._shown.get("image") and not self._shown.get("emitted"):
            self._shown["emitted"] = True
            self.mistake_shown.emit(self.review.current_item())
            # Paint the new mistake now, before the queued results of background work
            # (which Qt would handle first: a repaint request has low event priority):
            # the pending layouts, then the window's pending paint, which covers only what
            # changed (a button whose state did not change is not painted again, as it
            # was when the panes were repainted whole). The queue list and the
            # thumbnails follow with the next ordinary paint.
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            QCoreApplication.sendPostedEvents(self.window(), QEvent.Type.UpdateRequest)
            QTimer.singleShot(0, self.shown_image.prefetch)
            self.painted_at = time.perf_counter()

    def _current_detail(self) -> MistakeDetail | None:
        item = self.review.current_item() if self.bridge else None
        return self.review.detail(item) if item else None

    def _preview_exemplar(self, exemplar: Exemplar) -> None:
        preview_exemplar(exemplar, self.loader, self)

    def shutdown(self) -> None:
        """Stop decoding images (the session is closed by its owner)."""
        self.notes.shutdown()
        self.override_notice.shutdown()
        self.standing.shutdown()
        self.loader.shutdown()
        self.thumbnails.shutdown()
        self.zoom.shutdown()
