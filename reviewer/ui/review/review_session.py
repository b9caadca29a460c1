"""One panelist reviewing one run: the queue, the shown mistake, votes and undo.

The Qt-side controller between the window and the domain. It holds no review
rules: votes go through `reviewer.app.panel` (which commits before it
returns), the queue through `reviewer.review.queue`, the facts through
`reviewer.app.mistake_detail`. All of that runs on worker threads:

- a reader pool loads the queue and the details of the shown mistake and the
  next few (prefetch), so moving on is usually instant;
- a writer pool of one thread records votes and undos in the order of the
  key presses. A vote is shown as "saving" until its commit returns, then
  "recorded": what the window shows as recorded is on disk.

It stays in step with the database through the project's `ProjectWatcher`:
its own acts are published there, and every change record (its own, the
group view's, another process's) makes it re-read what the record names:
the items' details and votes, the queue's states, the labels.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from PySide6.QtCore import QObject, QTimer, Signal

from reviewer.app import panel as acts
from reviewer.app.mistake_detail import DetailSource, MistakeDetail
from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.votes import VoteState
from reviewer.project import Project
from reviewer.redact import scrub
from reviewer.review.queue import QueueEntry, QueueFilter, ReviewQueue
from reviewer.terms import Category
from reviewer.ui.watcher import ProjectWatcher
from reviewer.ui.workers import Worker

PREFETCH_AHEAD = 8
DETAIL_CACHE = 256
Key = Item


class ReviewSession(QObject):
    queue_loaded = Signal()
    states_changed = Signal(object)  # [Item]: the queue entries whose panel state changed
    current_changed = Signal(object)  # QueueEntry or None
    detail_ready = Signal(object)  # MistakeDetail
    vote_changed = Signal(object)  # key
    others_changed = Signal(object)  # key
    undo_changed = Signal(bool)
    message = Signal(str, bool)  # text, is_error

    def __init__(self, project: Project, reviewer, *, blind: bool = True, watcher: ProjectWatcher | None = None,
                 parent: QObject | None = None):
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
        self._votes_stale: set[Key] = set()  # votes changed elsewhere, read again when shown
        self._states_asked = 0  # item-state reads asked (`apply_changes`), to drop a stale answer
        self._state_asks: dict[Key, int] = {}
        self.others: dict[Key, list | None] = {}
        self.status: dict[Key, str] = {}  # saving | recorded | error text
        self.pending: dict[Key, int] = {}
        self._loading: set[Key] = set()
        self.names: dict[int, str] = {}
        self.undo_available = False
        # A local vote bumps its item's version: a read begun before it is older and is dropped.
        self._versions: dict[Key, int] = {}
        self._queue_loading = self._queue_stale = False
        self.watcher = watcher or ProjectWatcher(project, self)
        self.watcher.changed.connect(self.apply_changes)

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
        # Resume where the panelist stopped: the first mistake still to do for them.
        first = queue.first_to_do_row()
        self.go_to(first if first is not None else (0 if len(queue) else None))

    # -- in step with the database -----------------------------------------------------
    def apply_changes(self, changes) -> None:
        """Re-read what a change record names (reviewer.app.changes): the facts and votes
        of its items, the queue's states, everything after labels were imported."""
        if changes.panel:
            self.reader.submit(acts.names, self.project, on_done=self._names_loaded)
        if self.queue is None or self.run_id is None:
            return
        if changes.labels:
            self.source = None  # new labels: the facts are read again
            stale = set(self.details)
            self.reader.submit(DetailSource, self.project, on_done=self._source_loaded, on_error=self._failed)
        else:
            stale = set(changes.items) & (set(self.others) | set(self.my_votes))
            if changes.decisions:
                # A decision on (image, class) changes how the top-5 and other runs' top-1 of
                # every mistake on that image read: their facts are read again (votes do not).
                images = {item.image_id for item in changes.items}
                stale |= {key for key in self.details if key.image_id in images}
        if changes.decisions or changes.labels:
            for key in stale:
                # The facts are read again with the votes (`_item_loaded`); the vote on
                # screen stays lit until the fresh one replaces it.
                self.details.pop(key, None)
        else:
            # Votes only: the facts stand; the votes of these items are read again when shown.
            self._votes_stale |= stale - set(self.pending)
        if changes.labels or changes.panel or self.run_id in changes.runs:
            self._reload_queue()  # the whole queue: its mistakes or the panel changed
        elif changes.votes or changes.decisions or changes.notes:
            # Only the items named: milliseconds, where the whole queue takes a few hundred
            # (and would hold the interpreter while keys come in). An item with more of this
            # window's writes still on their way waits for the last one's record (wrong,
            # major, fine-grained: one read, not three; `_vote_written` publishes a write's
            # record before it counts the write done, so the last one sees 1 here). A note
            # changes only the row's note mark.
            self._refresh_states(item for item in changes.items if self.pending.get(item, 0) < 2)
        key = self.current_key()
        if key is not None and key in stale and self.source is not None:
            self.request_detail(key, priority=2)
            self.refresh_votes(key)

    def _refresh_states(self, items) -> None:
        """Read the queue state (everyone's votes, the decision) of these items again."""
        mine = [item for item in items if self.queue is not None and self.queue.entry(item) is not None]
        if not mine:
            return
        self._states_asked += 1
        asked = self._states_asked
        self._state_asks.update(dict.fromkeys(mine, asked))
        self.reader.submit(acts.item_states, self.project, reviewer_id=self.reviewer.id, items=mine,
                           on_done=lambda states: self._item_states_loaded(states, asked),
                           on_error=self._failed, priority=1)

    def refresh_votes(self, key: Key) -> None:
        """Re-read the panelist's and the others' votes on an item whose votes changed
        elsewhere (its facts stand)."""
        if key not in self._votes_stale:
            return
        self._votes_stale.discard(key)
        version = self._versions.get(key, 0)
        self.reader.submit(acts.item_votes, self.project, viewer_id=self.reviewer.id, item=key, blind=self.blind,
                           on_done=lambda votes, k=key, v=version: self._votes_loaded(k, v, *votes),
                           on_error=self._failed, priority=2)

    def _votes_loaded(self, key: Key, version: int, mine, others) -> None:
        if self._take_votes(key, version, mine, others):
            self.vote_changed.emit(key)
            self.others_changed.emit(key)

    def _take_votes(self, key: Key, version: int, mine, others) -> bool:
        """Keep a read of my vote and the others' on an item, unless a vote of this window
        is newer than the read (on its way, or written since the read began)."""
        if self.pending.get(key) or version != self._versions.get(key, 0):
            return False
        self.my_votes[key] = mine
        self._set_others(key, others)
        if self.queue is not None and self.queue.entry(key) is not None \
                and self.queue.entry(key).my_verdict != mine.verdict:
            self.queue.set_my_verdict(key, mine.verdict)
        return True

    def _source_loaded(self, source: DetailSource) -> None:
        self.source = source
        key = self.current_key()
        if key is not None:
            self.request_detail(key, priority=2)

    def _reload_queue(self) -> None:
        """The queue's states read again (at most one read at a time, one more queued)."""
        if self._queue_loading:
            self._queue_stale = True
            return
        self._queue_loading, self._queue_stale = True, False
        self.reader.submit(acts.review_queue, self.project, run_id=self.run_id, reviewer_id=self.reviewer.id,
                           queue_filter=self.queue.filter, on_done=self._queue_reloaded, on_error=self._queue_failed,
                           priority=1)

    def _queue_failed(self, error: BaseException) -> None:
        self._queue_loading = False
        self._failed(error)

    def _queue_reloaded(self, fresh: ReviewQueue) -> None:
        self._queue_loading = False
        if self.queue is None or fresh.run_id != self.run_id:
            return
        if not self.queue.same_items(fresh):  # the run's mistakes were stored again
            key = self.current_key()
            self.queue = fresh
            self.queue_loaded.emit()
            row = fresh.row_of(key) if key is not None else None
            self.row = None
            self.go_to(row if row is not None else (0 if len(fresh) else None))
        else:
            for key in self.pending:  # this window's vote on its way is newer than the read
                entry = self.queue.entry(key)
                if entry is not None:
                    fresh.set_my_verdict(key, entry.my_verdict)
            changed = self.queue.take_states(fresh)
            if changed:
                self.states_changed.emit(changed)
        if self._queue_stale:
            self._reload_queue()

    def _item_states_loaded(self, states, asked: int) -> None:
        if self.queue is None:
            return
        # Two reads may cross on the reader's threads: an item keeps the answer to its latest ask.
        for key in [k for k in states.items if self._state_asks.get(k, 0) > asked]:
            del states.items[key]
        for key in self.pending:  # this window's vote on its way is newer than the read
            if key in states.items:
                entry = self.queue.entry(key)
                states.items[key] = replace(states.items[key], my_verdict=entry.my_verdict)
        self.states_changed.emit(self.queue.take_item_states(states))  # the progress too, even if no row changed

    def judged_wrong(self, key: Key) -> bool:
        """The item stands wrong: the panelist rates severity and category (phase 2)."""
        entry = self.queue.entry(key) if self.queue is not None else None
        return bool(entry and entry.stands_wrong)

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
        self.refresh_votes(entry.item)
        # The rest waits for the event loop: the worker threads then do not compete
        # (for the GIL) with showing this mistake.
        QTimer.singleShot(0, lambda r=row, k=entry.item: self._prefetch_around(r, k))

    def _prefetch_around(self, row: int, key: Key) -> None:
        if self.queue is None or self.row is None:
            return
        if self.row != row:
            # Keys came faster than the event loop turned (each shown from the cache): the
            # panelist is further on now; read ahead of where they are, not where they were.
            row, key = self.row, self.queue[self.row].item
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
        self.reader.submit(self._load_item, self.run_id, key, self._versions.get(key, 0), self.source,
                           on_done=self._item_loaded, on_error=lambda e, k=key: self._item_failed(k, e),
                           priority=priority)

    def _load_item(self, run_id: int, key: Key, version: int, source: DetailSource):
        detail = source.detail(run_id=run_id, image_id=key.image_id, predicted=key.predicted)
        mine, others = acts.item_votes(self.project, viewer_id=self.reviewer.id, item=key, blind=self.blind)
        return run_id, key, version, detail, mine, others

    def _item_loaded(self, result) -> None:
        run_id, key, version, detail, mine, others = result
        self._loading.discard(key)
        if run_id != self.run_id:
            return
        self.details[key] = detail
        while len(self.details) > DETAIL_CACHE:
            self.details.popitem(last=False)
        self._take_votes(key, version, mine, others)
        self.detail_ready.emit(detail)
        self.vote_changed.emit(key)
        self.others_changed.emit(key)

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
        self._versions[key] = self._versions.get(key, 0) + 1
        state = replace(self.my_vote(key), **changes)
        if state.category is None or not Category(state.category).needs_name:
            state = replace(state, oov_name=None)
        self.my_votes[key] = state
        self.pending[key] = self.pending.get(key, 0) + 1
        self.status[key] = "saving"
        if self.queue is not None:
            self.queue.set_my_verdict(key, state.verdict)
        self.vote_changed.emit(key)
        self.writer.submit(self._write_vote, key, changes, self._versions[key], on_done=self._vote_written,
                           on_error=lambda e, k=key: self._vote_failed(k, e))
        return state

    def _write_vote(self, key: Key, changes: dict, version: int):
        done = acts.vote(self.project, reviewer_id=self.reviewer.id, item=key, **changes)
        # The others' votes as my verdict lets me see them; not read while more of my writes
        # on this item are queued behind this one (a later key press bumped the item's version
        # on the UI thread; only read here): the last one reads them.
        last = self._versions.get(key, 0) == version
        others = acts.others(self.project, viewer_id=self.reviewer.id, item=key, blind=self.blind) if last else None
        return key, VoteState.of(done.value), (last, others), True, done.changes, done.value.id

    def _vote_written(self, result) -> None:
        key, state, (others_read, others), undo, changes, vote_id = result
        # The group view and the progress follow at once; the poll need not report it again.
        self.watcher.publish(changes, vote_ids=(vote_id,))
        self.pending[key] -= 1
        if not self.pending[key]:
            del self.pending[key]
            self.my_votes[key] = state
            self.status[key] = "recorded"
            if self.queue is not None:
                self.queue.set_my_verdict(key, state.verdict)
        if others_read:
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
        # Earlier writes of the item that landed left reading it back to this one.
        self._refresh_states([key])
        self.refresh_others(key)
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
        done = acts.undo(self.project, reviewer_id=self.reviewer.id)
        row = done.value
        undo = acts.undo_available(self.project, reviewer_id=self.reviewer.id)
        if row is None:
            return None, None, None, undo, done.changes
        key = Item(row.image_id, row.predicted)
        others = acts.others(self.project, viewer_id=self.reviewer.id, item=key, blind=self.blind)
        return key, VoteState.of(row), others, undo, done.changes

    def _undone(self, result) -> None:
        key, state, others, undo, changes = result
        self._set_undo(undo)
        self.watcher.publish(changes)
        if key is None:
            self.message.emit("Nothing to undo.", False)
            return
        self._versions[key] = self._versions.get(key, 0) + 1
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
        self.message.emit(scrub(text), True)

    def close(self) -> None:
        """Finish writing every pending vote, then stop the workers."""
        self.watcher.changed.disconnect(self.apply_changes)
        self.writer.shutdown(msecs=-1)
        self.reader.shutdown()
