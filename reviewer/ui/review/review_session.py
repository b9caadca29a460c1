"""One panelist reviewing one run: the queue, the shown mistake, votes and undo.

The Qt-side controller between the window and the domain. It holds no review
rules: votes go through `reviewer.panel.votes` (which commits before it
returns), the queue through `reviewer.panel.queue`, the facts through
`reviewer.app.mistake_detail`. All of that runs on worker threads:

- a reader pool loads the queue and the details of the shown mistake and the
  next few (prefetch), so moving on is usually instant;
- a writer pool of one thread records votes and undos in the order of the
  key presses. A vote is shown as "saving" until its commit returns, then
  "recorded": what the window shows as recorded is on disk.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from PySide6.QtCore import QObject, QTimer, Signal

from reviewer.app import panel as acts
from reviewer.app.mistake_detail import DetailSource, MistakeDetail
from reviewer.errors import UserError
from reviewer.panel.queue import QueueEntry, QueueFilter, ReviewQueue
from reviewer.panel.state import Item
from reviewer.panel.votes import VoteState
from reviewer.project import Project
from reviewer.terms import Category
from reviewer.ui.workers import Worker

PREFETCH_AHEAD = 4
OTHERS_POLL_MS = 5000
DETAIL_CACHE = 256
Key = Item


class ReviewSession(QObject):
    queue_loaded = Signal()
    current_changed = Signal(object)  # QueueEntry or None
    detail_ready = Signal(object)  # MistakeDetail
    vote_changed = Signal(object)  # key
    others_changed = Signal(object)  # key
    undo_changed = Signal(bool)
    message = Signal(str, bool)  # text, is_error

    def __init__(self, project: Project, reviewer, *, blind: bool = True, parent: QObject | None = None):
        super().__init__(parent)
        self.project, self.reviewer, self.blind = project, reviewer, blind
        self.reader = Worker(threads=2, name="reader", parent=self)
        self.writer = Worker(threads=1, name="writer", parent=self)
        self.source: DetailSource | None = None
        self.queue: ReviewQueue | None = None
        self.run_id: int | None = None
        self.row: int | None = None
        self.details: OrderedDict[Key, MistakeDetail] = OrderedDict()
        self.my_votes: dict[Key, VoteState] = {}
        self.others: dict[Key, list | None] = {}
        self.status: dict[Key, str] = {}  # saving | recorded | error text
        self.pending: dict[Key, int] = {}
        self._loading: set[Key] = set()
        self.names: dict[int, str] = {}
        self.undo_available = False
        # Other panelists vote meanwhile (one SQLite file or a PostgreSQL server):
        # the shown mistake's other votes are read again every few seconds.
        self._poll = QTimer(self, interval=OTHERS_POLL_MS, timeout=self._poll_others)
        self._poll.start()

    # -- loading ---------------------------------------------------------------
    def open_run(self, run_id: int, queue_filter: QueueFilter | None = None, *, refresh: bool = False) -> None:
        """Load the run's queue (and, the first time or with `refresh`, the project's
        labels and run names: a run made since would otherwise show as "run N")."""
        self.run_id = run_id
        if refresh:
            self.source = None
        self.details.clear()
        queue_filter = queue_filter or (self.queue.filter if self.queue else None)
        self.reader.submit(self._load, run_id, queue_filter, on_done=self._loaded, on_error=self._failed)

    def _load(self, run_id: int, queue_filter: QueueFilter | None):
        source = self.source or DetailSource(self.project)
        queue = acts.review_queue(self.project, run_id=run_id, reviewer_id=self.reviewer.id, queue_filter=queue_filter)
        return source, queue, acts.names(self.project), acts.undo_available(self.project, reviewer_id=self.reviewer.id)

    def _loaded(self, result) -> None:
        self.source, queue, self.names, undo = result
        if queue.run_id != self.run_id:
            return  # another run was chosen meanwhile
        self.queue = queue
        self.row = None
        self._set_undo(undo)
        self.queue_loaded.emit()
        self.go_to(0 if len(queue) else None)

    def set_filter(self, queue_filter: QueueFilter) -> None:
        if self.queue is None:
            return
        key = self.current_key()
        self.queue.apply(queue_filter)
        self.queue_loaded.emit()
        row = self.queue.row_of(key) if key else None
        self.row = None
        self.go_to(row if row is not None else (0 if len(self.queue) else None))

    # -- moving ----------------------------------------------------------------
    def current(self) -> QueueEntry | None:
        return self.queue[self.row] if self.queue is not None and self.row is not None else None

    def current_key(self) -> Key | None:
        entry = self.current()
        return entry.item if entry else None

    def go_to(self, row: int | None) -> None:
        if self.queue is None or row == self.row and row is not None:
            return
        if row is not None and not 0 <= row < len(self.queue):
            return
        self.row = row
        entry = self.current()
        self.current_changed.emit(entry)
        if entry is None:
            return
        self.request_detail(entry.item, priority=2)
        # The rest waits for the event loop: the worker threads then do not compete
        # (for the GIL) with showing this mistake.
        QTimer.singleShot(0, lambda r=row, k=entry.item: self._prefetch_around(r, k))

    def _prefetch_around(self, row: int, key: Key) -> None:
        if self.queue is None or self.row != row:
            return
        self.refresh_others(key)
        for ahead in range(1, PREFETCH_AHEAD + 1):
            if row + ahead < len(self.queue):
                self.request_detail(self.queue[row + ahead].item, priority=1)
        if row > 0:
            self.request_detail(self.queue[row - 1].item, priority=0)

    def next(self) -> bool:
        return self._move(self.queue.next_row(self.row) if self.queue else None)

    def previous(self) -> bool:
        return self._move(self.queue.previous_row(self.row) if self.queue else None)

    def next_unvoted(self) -> bool:
        row = self.queue.next_row(self.row, unvoted=True) if self.queue else None
        if row is None and self.queue is not None:
            self.message.emit("You have voted on every mistake in this list.", False)
        return self._move(row)

    def _move(self, row: int | None) -> bool:
        if row is None:
            return False
        self.go_to(row)
        return True

    # -- details -----------------------------------------------------------------
    def detail(self, key: Key) -> MistakeDetail | None:
        return self.details.get(key)

    def request_detail(self, key: Key, *, priority: int = 0) -> None:
        if key in self.details or key in self._loading or self.source is None:
            return
        self._loading.add(key)
        self.reader.submit(self._load_item, self.run_id, key, on_done=self._item_loaded,
                           on_error=lambda e, k=key: self._item_failed(k, e), priority=priority)

    def _load_item(self, run_id: int, key: Key):
        detail = self.source.detail(run_id=run_id, image_id=key.image_id, predicted=key.predicted)
        mine, others = acts.item_votes(self.project, viewer_id=self.reviewer.id, item=key, blind=self.blind)
        return run_id, key, detail, mine, others

    def _item_loaded(self, result) -> None:
        run_id, key, detail, mine, others = result
        self._loading.discard(key)
        if run_id != self.run_id:
            return
        self.details[key] = detail
        while len(self.details) > DETAIL_CACHE:
            self.details.popitem(last=False)
        # What this window wrote is newer than what a prefetch read.
        if not self.pending.get(key):
            self.my_votes.setdefault(key, mine)
            self._set_others(key, others)
        self.detail_ready.emit(detail)

    def _item_failed(self, key: Key, error: BaseException) -> None:
        self._loading.discard(key)
        self._failed(error)

    def refresh_others(self, key: Key) -> None:
        """Re-read the others' votes on an item (they may have voted since the prefetch)."""
        self.reader.submit(acts.others, self.project, viewer_id=self.reviewer.id, item=key, blind=self.blind,
                           on_done=lambda votes, k=key: self._others_loaded(k, votes), priority=1)

    def _others_loaded(self, key: Key, votes) -> None:
        if self.pending.get(key):
            return  # a vote of ours is on its way; its own refresh follows
        self._set_others(key, votes)
        self.others_changed.emit(key)

    def _set_others(self, key: Key, votes: list | None) -> None:
        self.others[key] = votes
        if votes and any(v.reviewer_id not in self.names for v in votes):
            # A panelist who joined after the queue was loaded: fetch the names again.
            self.reader.submit(acts.names, self.project, on_done=self._names_loaded)

    def _names_loaded(self, names: dict[int, str]) -> None:
        self.names = names
        key = self.current_key()
        if key is not None:
            self.others_changed.emit(key)

    def _poll_others(self) -> None:
        key = self.current_key()
        if key is not None and not self.pending.get(key):
            self.refresh_others(key)

    def set_blind(self, blind: bool) -> None:
        self.blind = blind
        self.others.clear()
        key = self.current_key()
        if key:
            self.refresh_others(key)

    # -- voting ------------------------------------------------------------------
    def my_vote(self, key: Key) -> VoteState:
        return self.my_votes.get(key, VoteState())

    def vote(self, **changes) -> VoteState | None:
        """Record a change to the panelist's vote on the shown mistake; returns the
        vote as it will stand (shown at once as "saving"), None when nothing is shown."""
        entry = self.current()
        if entry is None:
            return None
        key = entry.item
        state = replace(self.my_vote(key), **changes)
        if state.category is None or not Category(state.category).needs_name:
            state = replace(state, oov_name=None)
        self.my_votes[key] = state
        self.pending[key] = self.pending.get(key, 0) + 1
        self.status[key] = "saving"
        if self.queue is not None:
            self.queue.set_my_verdict(key, state.verdict)
        self.vote_changed.emit(key)
        self.writer.submit(self._write_vote, key, changes, on_done=self._vote_written,
                           on_error=lambda e, k=key: self._vote_failed(k, e))
        return state

    def _write_vote(self, key: Key, changes: dict):
        row = acts.vote(self.project, reviewer_id=self.reviewer.id, item=key, **changes).value
        others = acts.others(self.project, viewer_id=self.reviewer.id, item=key, blind=self.blind)
        return key, VoteState.of(row), others, True

    def _vote_written(self, result) -> None:
        key, state, others, undo = result
        self.pending[key] -= 1
        if not self.pending[key]:
            del self.pending[key]
            self.my_votes[key] = state
            self.status[key] = "recorded"
            if self.queue is not None:
                self.queue.set_my_verdict(key, state.verdict)
        self._set_others(key, others)
        self._set_undo(undo)
        self.vote_changed.emit(key)
        self.others_changed.emit(key)

    def _vote_failed(self, key: Key, error: BaseException) -> None:
        self.pending[key] = self.pending.get(key, 1) - 1
        if self.pending[key] <= 0:
            self.pending.pop(key, None)
        self.status[key] = f"not recorded: {error}" if isinstance(error, UserError) else "not recorded"
        self.my_votes.pop(key, None)
        self.message.emit(f"Your vote was NOT recorded: {error}", True)
        # Show what the database really holds.
        self.reader.submit(acts.my_vote, self.project, reviewer_id=self.reviewer.id, item=key,
                           on_done=lambda s, k=key: self._reloaded_vote(k, s))
        self.vote_changed.emit(key)

    def _reloaded_vote(self, key: Key, state: VoteState) -> None:
        self.my_votes[key] = state
        if self.queue is not None:
            self.queue.set_my_verdict(key, state.verdict)
        self.vote_changed.emit(key)

    def undo(self) -> None:
        """Undo the panelist's latest vote (after any still being written)."""
        self.writer.submit(self._write_undo, on_done=self._undone, on_error=self._failed)

    def _write_undo(self):
        row = acts.undo(self.project, reviewer_id=self.reviewer.id).value
        undo = acts.undo_available(self.project, reviewer_id=self.reviewer.id)
        if row is None:
            return None, None, None, undo
        key = Item(row.image_id, row.predicted)
        others = acts.others(self.project, viewer_id=self.reviewer.id, item=key, blind=self.blind)
        return key, VoteState.of(row), others, undo

    def _undone(self, result) -> None:
        key, state, others, undo = result
        self._set_undo(undo)
        if key is None:
            self.message.emit("Nothing to undo.", False)
            return
        self.my_votes[key] = state
        self._set_others(key, others)
        self.status[key] = "recorded" if not state.empty else "none"
        if self.queue is not None:
            self.queue.set_my_verdict(key, state.verdict)
            row = self.queue.row_of(key)
            if row is not None and row != self.row:
                self.go_to(row)  # show the panelist what was undone
        self.message.emit(f"Undone: your vote is back to {state.describe()}", False)
        self.vote_changed.emit(key)
        self.others_changed.emit(key)

    def _set_undo(self, available: bool) -> None:
        self.undo_available = available
        self.undo_changed.emit(available)

    def _failed(self, error: BaseException) -> None:
        text = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
        self.message.emit(text, True)

    def close(self) -> None:
        """Finish writing every pending vote, then stop the workers."""
        self._poll.stop()
        self.writer.shutdown(msecs=-1)
        self.reader.shutdown()
