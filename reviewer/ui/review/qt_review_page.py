"""The review page: queue | image, header and exemplars | your vote and the facts.

It shows what the `ReviewSession` holds and turns actions (keys or buttons,
by name from the keymap) into session calls. `mistake_shown` fires once the
current mistake's facts and its image (or the placeholder) are on screen;
the latency benchmark waits for it.
"""

from __future__ import annotations

import time
from html import escape

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QHBoxLayout, QLabel, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from reviewer.app import panel as acts
from reviewer.app.keymap import Keymap
from reviewer.app.mistake_detail import Exemplar, MistakeDetail
from reviewer.classes.vocabulary import load_classes
from reviewer.items import Item
from reviewer.panel.votes import VoteError, implied_changes
from reviewer.review.queue import QueueEntry
from reviewer.review.review_state import PREFETCH_AHEAD, ReviewState
from reviewer.terms import Category, Phase, Severity, Verdict
from reviewer.ui.image_loader import Decoded, ImageKey, ImageLoader, full_key
from reviewer.ui.qt_elided_label import QtElidedLabel
from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.review.qt_detail_panel import QtDetailPanel
from reviewer.ui.review.qt_exemplars import QtExemplars, preview_exemplar
from reviewer.ui.review.qt_neighbours import QtNeighbours
from reviewer.ui.review.qt_notes import QtNotesPanel
from reviewer.ui.review.qt_queue_panel import QtQueuePanel
from reviewer.ui.review.qt_vote_panel import QtVotePanel
from reviewer.ui.review.qt_zoom import QtZoomPanel
from reviewer.ui.review.review_session import ReviewSession
from reviewer.ui.theme import MUTED, WARNING, style_headline, style_muted

VOTE_ACTIONS = {
    **{f"verdict_{v}": {"verdict": v} for v in Verdict},
    **{f"severity_{s}": {"severity": s} for s in Severity.panel()},
    **{f"category_{c}": {"category": c} for c in Category if not c.needs_name},
}


class QtReviewPage(QWidget):
    mistake_shown = Signal(object)  # key
    status_message = Signal(str, bool)
    voted = Signal()  # a key or button changed the panelist's vote

    def __init__(self, keymap: Keymap, *, auto_advance: str = "complete", parent: QWidget | None = None):
        super().__init__(parent)
        self.session: ReviewSession | None = None  # the Qt side: signals, threads
        self.review: ReviewState | None = None  # the state it shows (the session's)
        self.auto_advance = auto_advance
        self.evidence_before_vote = True  # the preference: published evidence shown before my verdict
        self.loader = ImageLoader(parent=self)
        self.loader.loaded.connect(self._image_loaded)
        # Thumbnails decode on their own thread, so they never delay the main image.
        self.thumbnails = ImageLoader(threads=1, cache_size=400, parent=self)
        self._wanted: ImageKey | None = None  # the image the view waits for
        self._shown: dict[str, bool] = {}
        self._syncing = False
        self.painted_at = 0.0  # perf_counter() when the last mistake was painted in full

        self.queue_panel = QtQueuePanel()
        self.queue_panel.view.selectionModel().currentChanged.connect(self._list_moved)
        self.queue_panel.editing_done.connect(lambda: self.setFocus(Qt.FocusReason.OtherFocusReason))
        self.headline = QLabel()
        style_headline(self.headline)
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.headline.setWordWrap(True)
        self.subheadline = QtElidedLabel()  # cut with "…" (and the whole line as its tooltip)
        self.subheadline.setTextFormat(Qt.TextFormat.RichText)
        style_muted(self.subheadline)
        for label in (self.headline, self.subheadline):
            # Long class names never widen the window, and the header keeps its height
            # from one mistake to the next: a changing height would resize the image
            # view and re-decode the image at the new size.
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.headline.setFixedHeight(self.headline.fontMetrics().lineSpacing() * 2 + 6)
        self.headline.setAlignment(Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignLeft)
        self.subheadline.setFixedHeight(self.subheadline.fontMetrics().lineSpacing() + 4)
        self.image = QtImageView()
        self.image.full_resolution_wanted.connect(self._want_full_resolution)
        self.zoom = QtZoomPanel()  # the zoom probe's strip; its crops drawn over the image
        self._decisions: dict = {}  # item -> the panel's decision as last read (DecisionNote or None)
        self.zoom.overlay_changed.connect(self.image.set_overlay)
        self.zoom.message.connect(self.status_message)
        self.exemplars = QtExemplars(self.thumbnails)
        self.exemplars.activated.connect(self._preview_exemplar)
        self.neighbours = QtNeighbours(self.thumbnails, self.loader)  # the nearest training images (issue 26)
        self.vote_panel = QtVotePanel(keymap)
        self.vote_panel.action_triggered.connect(self.trigger)
        self.vote_panel.text_entered.connect(self._text_entered)
        self.vote_panel.text_cancelled.connect(self._text_cancelled)
        self.details = QtDetailPanel()
        self.notes = QtNotesPanel()  # the panel's notes on the shown mistake (hidden when it has none)

        centre = QWidget()
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(8, 8, 8, 8)
        centre_layout.setSpacing(4)
        centre_layout.addWidget(self.headline)
        centre_layout.addWidget(self.subheadline)
        centre_layout.addWidget(self.image, 1)
        centre_layout.addWidget(self.zoom)
        centre_layout.addWidget(self.exemplars)
        centre_layout.addWidget(self.neighbours)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(4, 8, 8, 8)
        right_layout.addWidget(self.vote_panel)
        right_layout.addWidget(self.notes)
        right_layout.addWidget(self.details, 1)
        self._centre, self._right = centre, right
        # Opaque columns: painting one no longer paints the window, the page and the splitter
        # beneath it first (at 1920x1080 that was some 12 million pixels per mistake).
        for column in (self.queue_panel, centre, right):
            column.setAutoFillBackground(True)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        for widget, stretch in ((self.queue_panel, 0), (centre, 1), (right, 0)):
            self.splitter.addWidget(widget)
            self.splitter.setStretchFactor(self.splitter.count() - 1, stretch)
        self.queue_panel.setMinimumWidth(280)
        right.setMinimumWidth(400)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # A resize re-decodes the shown image at the new size, once the resizing stops.
        self._resize_timer = QTimer(self, singleShot=True, interval=120, timeout=self._refit)
        self.image.resized.connect(self._resize_timer.start)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        width = event.size().width()
        self.splitter.setSizes([max(280, int(width * 0.19)), width, max(400, int(width * 0.25))])

    # -- session -----------------------------------------------------------------
    def set_session(self, session: ReviewSession | None) -> None:
        """Show this session (None: none; the previous one is disconnected)."""
        self._decisions.clear()
        if self.session is not None:
            for signal in (self.session.queue_loaded, self.session.current_changed, self.session.detail_ready,
                           self.session.vote_changed, self.session.others_changed, self.session.message,
                           self.session.states_changed):
                signal.disconnect()
            self.queue_panel.filter_changed.disconnect()
        self.session = session
        self.review = session.state if session is not None else None
        self.queue_panel.model.set_queue(None)
        self.notes.set_source(session.project if session else None, session.panelist.id if session else None,
                              blind=(lambda: session.state.blind) if session else True,
                              watcher=session.watcher if session else None)
        if session is None:
            return
        session.queue_loaded.connect(self._queue_loaded)
        session.current_changed.connect(self._current_changed)
        session.detail_ready.connect(self._detail_ready)
        session.vote_changed.connect(self._vote_changed)
        session.others_changed.connect(self._others_changed)
        session.states_changed.connect(self._states_changed)
        session.message.connect(self.status_message)
        self.queue_panel.filter_changed.connect(self.review.set_filter)

    def set_keymap(self, keymap: Keymap) -> None:
        self.vote_panel.set_keymap(keymap)

    def _queue_loaded(self) -> None:
        self.queue_panel.model.set_queue(self.review.queue)
        self._update_counts()

    def _update_counts(self) -> None:
        queue = self.review.queue if self.session else None
        self.queue_panel.counts.setText(queue.counts().describe() if queue is not None else "No run")
        self.queue_panel.progress.set_progress(queue.progress if queue is not None else [],
                                               self.session.panelist.id if self.session else None)

    def _list_moved(self, current, _previous) -> None:
        if not self._syncing and current.isValid() and self.session is not None:
            self.review.go_to(current.row())

    # -- showing ---------------------------------------------------------------------
    def _current_changed(self, entry: QueueEntry | None) -> None:
        self._shown = {}
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
        self._show_vote(entry.item)
        self._show_others(entry.item)
        detail = self.review.detail(entry.item)
        if detail is not None:
            self._show_detail(detail)
        else:
            self.details.clear()
            self._wanted = None
            self.image.show_message("Loading…")

    def _show_flags(self, entry: QueueEntry) -> None:
        """The line under the headline: where the mistake is, and where the panel stands on it."""
        flags = [f"{self.review.row + 1} of {len(self.review.queue)}", escape(entry.file_name),
                 "novel" if entry.novel else "previously reviewed"]
        if entry.hierarchy_distance is not None:
            flags.append(f"WordNet distance {entry.hierarchy_distance}")
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
        entry = self.review.current()
        if entry is not None and entry.item in items:
            self._show_flags(entry)
            self._show_vote(entry.item)
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
        row = self.review.row if self.session else None
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
        key = (detail.image_id, detail.predicted.index)
        self._decisions.pop(key, None)  # the facts just read carry the decision as it stands
        if key == self.review.current_item():
            self._show_detail(detail)
        elif detail.image_exists:  # prefetch the image of a coming mistake, the nearest first
            row = self.review.queue.row_of(key) if self.review.queue is not None else None
            ahead = row - self.review.row if row is not None and self.review.row is not None else PREFETCH_AHEAD
            self.loader.request(self.image.fit_key(detail.image_path), priority=-max(ahead, 0))

    def _show_detail(self, detail: MistakeDetail) -> None:
        key = (detail.image_id, detail.predicted.index)
        self.details.set_evidence_hidden(not self.evidence_before_vote and self.review.my_vote(key).verdict is None)
        self.details.show_detail(detail)
        self.vote_panel.show_suggestion_of(detail.suggestion, hidden=self.details.evidence_hidden)  # never a vote
        # The decision read with the facts, unless one read since is newer (after a vote: a
        # unanimous panel decides). Not read again as the mistake is shown: a decision made
        # since the facts were read comes with its change record, which reads the facts again.
        self.vote_panel.show_decision(self._decision_of(key))
        self.zoom.show_mistake(self.session.project, self.review.run_id, Item(*key), self.session.panelist.id)
        # Like the queue list, the exemplar strips (thumbnails decoded on a worker
        # anyway) follow once the mistake itself is painted.
        QTimer.singleShot(0, lambda d=detail: self._show_exemplars(d))
        entry = self.review.current()
        if entry is not None and entry.item == (detail.image_id, detail.predicted.index):
            self._show_flags(entry)
        self._shown["detail"] = True
        if detail.image_path is None:
            self._wanted = None
            self.image.show_message("No image file", f"{detail.file_name}: this project has labels for it but "
                                                     "no image (add its folder with 'reviewer import-images').")
            self._mark_shown("image")
        elif not detail.image_exists:
            self._wanted = None
            self.image.show_message("Image file not found", str(detail.image_path))
            self._mark_shown("image")
        else:
            self._wanted = self.image.fit_key(detail.image_path)
            decoded = self.loader.request(self._wanted, priority=2)
            if decoded is not None:
                self._image_loaded(decoded)
            elif not self.image.has_image() or self.image.message:
                self.image.show_message("Loading…")
        self._mark_shown("detail")

    def _show_exemplars(self, detail: MistakeDetail) -> None:
        if self._current_detail() is not detail:
            return
        label = detail.label_class
        self.exemplars.show_classes(detail.predicted, detail.predicted_exemplars, label,
                                    detail.label_exemplars if label else ())
        self.neighbours.show_facts(detail.neighbours)

    def _image_loaded(self, decoded: Decoded) -> None:
        detail = self._current_detail()
        if detail is None or detail.image_path is None or decoded.key.path != str(detail.image_path):
            return
        if decoded.key.full:
            if decoded.image is not None:
                self.image.show_image(decoded.image, decoded.original_size, keep_view=True, warning=decoded.warning)
            return
        if decoded.key != self._wanted:
            return
        if decoded.image is None:
            self.image.show_message("Cannot read this image", f"{detail.image_path}: {decoded.error}")
        else:
            self.image.show_image(decoded.image, decoded.original_size, warning=decoded.warning)
        self._mark_shown("image")

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
            QTimer.singleShot(0, self._prefetch_images)
            self.painted_at = time.perf_counter()

    def _current_detail(self) -> MistakeDetail | None:
        key = self.review.current_item() if self.session else None
        return self.review.detail(key) if key else None

    def _prefetch_images(self) -> None:
        """Decode the coming mistakes' images at the view's current size (which
        may have changed since their details arrived)."""
        review = self.review
        if review is None or review.queue is None or review.row is None:
            return
        for row in range(review.row + 1, min(len(review.queue), review.row + 1 + PREFETCH_AHEAD)):
            detail = review.detail(review.queue[row].item)
            if detail is not None and detail.image_exists:  # the nearest first
                self.loader.request(self.image.fit_key(detail.image_path), priority=review.row - row)

    def _refit(self) -> None:
        detail = self._current_detail()
        if detail is not None and detail.image_exists and self.image.is_fit():
            key = self.image.fit_key(detail.image_path)
            if key != self._wanted:
                self._wanted = key
                decoded = self.loader.request(key, priority=2)
                if decoded is not None:
                    self._image_loaded(decoded)
                self._prefetch_images()

    def _want_full_resolution(self) -> None:
        detail = self._current_detail()
        if detail is not None and detail.image_exists:
            decoded = self.loader.request(full_key(detail.image_path), priority=2)
            if decoded is not None:
                self._image_loaded(decoded)

    def _show_vote(self, key) -> None:
        review = self.review
        if key not in review.my_votes and not review.pending.get(key):
            status = "loading"  # read with the mistake's facts, a moment away
        else:
            status = review.status.get(key) or ("recorded" if not review.my_vote(key).empty else "none")
        self.vote_panel.show_vote(review.my_vote(key), status=status, judged_wrong=review.judged_wrong(key),
                                  decision=self._decision_of(key))
        if key == review.current_item():
            # Panels that want independent judgements see the published evidence after their verdict.
            self.details.set_evidence_hidden(not self.evidence_before_vote and review.my_vote(key).verdict is None)
            self.vote_panel.show_suggestion_of(getattr(review.detail(key), "suggestion", None),
                                               hidden=self.details.evidence_hidden)

    def set_evidence_before_vote(self, shown: bool) -> None:
        self.evidence_before_vote = shown
        key = self.review.current_item() if self.session else None
        if key is not None:
            self._show_vote(key)

    def _show_others(self, key) -> None:
        self.vote_panel.show_others(self.review.others.get(key), self.review.names, blind=self.review.blind)

    def _vote_changed(self, key) -> None:
        self.queue_panel.model.pending = set(self.review.pending)
        self.queue_panel.refresh_items((key,))
        self._update_counts()
        if key == self.review.current_item():
            self._show_vote(key)

    def _others_changed(self, key) -> None:
        if key == self.review.current_item():
            self._show_others(key)
            # Votes changed (one's own, read back after its last write, or another's): the panel's
            # decision may have with them (a unanimous panel decides), so it is read again.
            self.session.reader.submit(acts.decision_of, self.session.project, item=Item(*key),
                                       on_done=lambda d, k=key: self._decision_read(k, d), priority=2)

    def _decision_read(self, key, decision) -> None:
        self._decisions[key] = decision
        if key == self.review.current_item():
            self.vote_panel.show_decision(decision)

    def _decision_of(self, key):
        """The item's decision as last read: after a vote (`_decision_read`), else with its facts."""
        if key in self._decisions:
            return self._decisions[key]
        detail = self.review.details.get(key) if self.session is not None else None
        return detail.decision if detail is not None else None

    # -- actions ---------------------------------------------------------------------
    def trigger(self, name: str) -> bool:
        """Carry out a keymap action; False when it does not apply here."""
        review = self.review
        if review is None:
            return False
        moves = {"next": review.next, "previous": review.previous, "next_unvoted": review.next_unvoted,
                 "undo": review.undo, "zoom_in": self.image.zoom_in, "zoom_out": self.image.zoom_out,
                 "zoom_fit": self.image.zoom_fit, "zoom_actual": self.image.zoom_actual,
                 "pan_left": lambda: self.image.pan(-0.2, 0), "pan_right": lambda: self.image.pan(0.2, 0),
                 "pan_up": lambda: self.image.pan(0, -0.2), "pan_down": lambda: self.image.pan(0, 0.2),
                 "zoom_probe": self.zoom.probe_or_toggle, "zoom_scale_smaller": lambda: self.zoom.step_scale(-1),
                 "zoom_scale_larger": lambda: self.zoom.step_scale(1)}
        if name in moves:
            moves[name]()
            return True
        key = review.current_item()
        if key is None:
            return False
        state = review.my_vote(key)
        if name == "toggle_problematic":
            self.voted.emit()
            review.vote(problematic=not state.problematic)
            return True
        if name == "edit_note":
            self.vote_panel.ask_text("note", "Note on this mistake (Enter records, Esc cancels):", state.note)
            return True
        judged_wrong = review.judged_wrong(key)
        if name == f"category_{Category.FINE_GRAINED_OOV}":
            try:  # the rules of the act, asked before the name is
                implied_changes(state, judged_wrong=judged_wrong, category=Category.FINE_GRAINED_OOV, oov_name="?")
            except VoteError as exc:
                self.status_message.emit(f"{str(exc).capitalize()}.", True)
                return False
            self.vote_panel.ask_text("oov_name", "Name of the out-of-vocabulary object (Enter records, Esc "
                                                 "cancels):", state.oov_name or "")
            return True
        if name not in VOTE_ACTIONS:
            return False
        try:
            changes = implied_changes(state, judged_wrong=judged_wrong, **VOTE_ACTIONS[name])
        except VoteError as exc:
            self.status_message.emit(f"{str(exc).capitalize()}.", True)
            return False
        self.voted.emit()
        self._after_vote(review.vote(**changes), verdict_key=name.startswith("verdict_"))
        return True

    def _text_entered(self, field: str, text: str) -> None:
        self.setFocus()
        if self.review is None or self.review.current_item() is None:
            return
        if field == "note":
            self.review.vote(note=text)
        elif field == "oov_name":
            key = self.review.current_item()
            try:
                changes = implied_changes(self.review.my_vote(key), judged_wrong=self.review.judged_wrong(key),
                                          category=Category.FINE_GRAINED_OOV, oov_name=text)
            except VoteError as exc:
                if not text:  # an empty name is no answer: ask again, saying why (Esc cancels)
                    self.vote_panel.ask_text("oov_name", "A name is needed: type the name of the out-of-vocabulary "
                                                         "object (Enter records, Esc cancels the category):")
                self.status_message.emit(f"{str(exc).capitalize()}.", True)
                return
            self._after_vote(self.review.vote(**changes), verdict_key=False)

    def _text_cancelled(self, field: str) -> None:
        self.setFocus()
        if field == "oov_name":
            self.status_message.emit("Not recorded: the out-of-vocabulary category needs the object's name; "
                                     "choose the category again to name it.", False)

    def _after_vote(self, state, *, verdict_key: bool) -> None:
        if state is None or self.auto_advance == "off":
            return
        key = self.review.current_item()
        judged_wrong = key is not None and self.review.judged_wrong(key)
        if state.is_complete(judged_wrong=judged_wrong) or (self.auto_advance == "verdict" and verdict_key):
            self.review.next()

    def _preview_exemplar(self, exemplar: Exemplar) -> None:
        preview_exemplar(exemplar, self.loader, self)

    def shutdown(self) -> None:
        """Stop decoding images (the session is closed by its owner)."""
        self.notes.shutdown()
        self.loader.shutdown()
        self.thumbnails.shutdown()
        self.zoom.shutdown()

