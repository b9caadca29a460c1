"""One panelist reviewing one run, as plain Python: the queue, the shown mistake,
the votes on their way and undo.

What the review page shows lives here, without Qt, so that its rules can be
tested without a window. It holds no review rules either: every read and write
goes through a `ReviewBackend` (the app layer's acts, bound to a project and a
panelist: `reviewer.app.review.ReviewActs`), and it runs them through a
`Runner` that decides where they run. The window's runner
(`reviewer.ui.review.review_session`) puts reads on a reader pool and writes on
one writer thread, in the order of the key presses; a test's runner holds them
and lets them through one by one.

The state is optimistic. A vote is shown at once, as "saving", and becomes
"recorded" when its write returns: what the page shows as recorded is on disk.
Three rules keep a read from overwriting a newer vote:

- each item has a version, bumped by every local vote or undo: a read begun
  before the bump is older than what the page shows, and is dropped;
- while writes of an item are pending, reads of its votes are not taken; the
  last write reads the others' votes back itself (one read, not three, when
  three keys were pressed while the writer was busy);
- a failed write drops the optimistic vote and reads back what the database
  holds.

It stays in step with the database through change records
(`reviewer.app.changes.Changes`): every record (its own, the group view's,
another process's) makes it re-read what the record names.

Events (`ReviewEvent`) tell whoever shows the state what changed; `notify`
receives them (the window turns them into Qt signals).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from enum import StrEnum
from typing import Any, Callable, Protocol

from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.votes import VoteState, normalised
from reviewer.redact import scrub
from reviewer.review.queue import QueueEntry, QueueFilter, ReviewQueue

PREFETCH_AHEAD = 8
DETAIL_CACHE = 256


class ReviewEvent(StrEnum):
    """What changed, for whoever shows the state; the arguments each carries."""

    QUEUE_LOADED = "queue_loaded"  # ()
    STATES_CHANGED = "states_changed"  # ([Item]: the queue entries whose panel state changed)
    CURRENT_CHANGED = "current_changed"  # (QueueEntry | None)
    DETAIL_READY = "detail_ready"  # (MistakeDetail)
    VOTE_CHANGED = "vote_changed"  # (Item)
    OTHERS_CHANGED = "others_changed"  # (Item)
    UNDO_CHANGED = "undo_changed"  # (bool)
    MESSAGE = "message"  # (text, is_error)
    PUBLISHED = "published"  # (Changes, vote ids): an act of this state was recorded


class Runner(Protocol):
    """Where the backend's calls run; results come back through the callbacks."""

    def read(self, fn: Callable[..., Any], *args: Any, on_done: Callable | None = None,
             on_error: Callable | None = None, priority: int = 0, **kwargs: Any) -> None: ...

    def write(self, fn: Callable[..., Any], *args: Any, on_done: Callable | None = None,
              on_error: Callable | None = None, **kwargs: Any) -> None:
        """Writes run one at a time, in the order given."""

    def soon(self, fn: Callable[[], None]) -> None:
        """Call `fn` once the events waiting now were handled (after the page painted)."""


class ReviewBackend(Protocol):
    """The acts the review state reads and writes through, bound to one project and
    one panelist (`reviewer.app.review.ReviewActs`). Called on the runner's threads."""

    panelist_id: int

    def detail_source(self) -> Any: ...
    def detail(self, source: Any, *, run_id: int, item: Item) -> Any: ...
    def review_queue(self, *, run_id: int, queue_filter: QueueFilter | None) -> ReviewQueue: ...
    def names(self) -> dict[int, str]: ...
    def undo_available(self) -> bool: ...
    def item_states(self, items: list[Item]) -> Any: ...
    def item_votes(self, item: Item, *, blind: bool) -> tuple[VoteState, list | None]: ...
    def others(self, item: Item, *, blind: bool) -> list | None: ...
    def my_vote(self, item: Item) -> VoteState: ...
    def vote(self, item: Item, **changes: Any) -> Any: ...
    def undo(self) -> Any: ...


class ReviewState:
    """The review page's state: queue and position, cached details, my votes and the
    others', what is being saved. Every method is called on one thread (the UI's)."""

    def __init__(self, backend: ReviewBackend, runner: Runner, *, blind: bool = True,
                 notify: Callable[..., None] = lambda event, *args: None):
        self.backend, self.runner, self.blind, self._notify = backend, runner, blind, notify
        self.source: Any = None
        self.queue: ReviewQueue | None = None
        self.run_id: int | None = None
        self.row: int | None = None
        self.details: OrderedDict[Item, Any] = OrderedDict()
        self.my_votes: dict[Item, VoteState] = {}
        self.others: dict[Item, list | None] = {}
        self.status: dict[Item, str] = {}  # saving | recorded | none | "not recorded: why"
        self.pending: dict[Item, int] = {}  # writes on their way, per item
        self.names: dict[int, str] = {}
        self.undo_available = False
        self._votes_stale: set[Item] = set()  # votes changed elsewhere, read again when shown
        self._loading: set[Item] = set()
        # A local vote bumps its item's version: a read begun before it is older and is dropped.
        self._versions: dict[Item, int] = {}
        self._states_asked = 0  # item-state reads asked (`apply_changes`), to drop a stale answer
        self._state_asks: dict[Item, int] = {}
        self._queue_loading = self._queue_stale = False

    def notify(self, event: ReviewEvent, *args: Any) -> None:
        self._notify(event, *args)

    # -- loading ---------------------------------------------------------------
    def open_run(self, run_id: int, queue_filter: QueueFilter | None = None, *, refresh: bool = False) -> None:
        """Load the run's queue (and, the first time or with `refresh`, the project's
        labels and run names: a run made since would otherwise show as "run N")."""
        self.run_id = run_id
        if refresh:
            self.source = None
        self.details.clear()
        queue_filter = queue_filter or (self.queue.filter if self.queue else None)
        self.runner.read(self._load, run_id, queue_filter, on_done=self._loaded, on_error=self._failed)

    def _load(self, run_id: int, queue_filter: QueueFilter | None):
        backend = self.backend
        source = self.source or backend.detail_source()
        queue = backend.review_queue(run_id=run_id, queue_filter=queue_filter)
        return source, queue, backend.names(), backend.undo_available()

    def _loaded(self, result) -> None:
        self.source, queue, self.names, undo = result
        if queue.run_id != self.run_id:
            return  # another run was chosen meanwhile
        self.queue = queue
        self.row = None
        self._set_undo(undo, tell=True)
        self.notify(ReviewEvent.QUEUE_LOADED)
        # Resume where the panelist stopped: the first mistake still to do for them.
        first = queue.first_to_do_row()
        self.go_to(first if first is not None else (0 if len(queue) else None))

    # -- in step with the database -----------------------------------------------------
    def apply_changes(self, changes) -> None:
        """Re-read what a change record names (reviewer.app.changes): the facts and votes
        of its items, the queue's states, everything after labels were imported."""
        if changes.panel:
            self.runner.read(self.backend.names, on_done=self._names_loaded)
        if self.queue is None or self.run_id is None:
            return
        if changes.labels:
            self.source = None  # new labels: the facts are read again
            stale = set(self.details)
            self.runner.read(self.backend.detail_source, on_done=self._source_loaded, on_error=self._failed)
        else:
            stale = set(changes.items) & (set(self.others) | set(self.my_votes))
            if changes.decisions:
                # A decision on (image, class) changes how the top-5 and other runs' top-1 of
                # every mistake on that image read: their facts are read again (votes do not).
                images = {item.image_id for item in changes.items}
                stale |= {item for item in self.details if item.image_id in images}
        if changes.decisions or changes.labels:
            for item in stale:
                # The facts are read again with the votes (`_item_loaded`); the vote on
                # screen stays lit until the fresh one replaces it.
                self.details.pop(item, None)
        else:
            # Votes only: the facts stand; the votes of these items are read again when shown.
            self._votes_stale |= stale - set(self.pending)
        if changes.labels or changes.panel or self.run_id in changes.runs:
            self._reload_queue()  # the whole queue: its mistakes or the panel changed
        elif changes.votes or changes.decisions or changes.notes:
            # Only the items named: milliseconds, where the whole queue takes a few hundred
            # (and would hold the interpreter while keys come in). An item with more of this
            # page's writes still on their way waits for the last one's record (wrong,
            # major, fine-grained: one read, not three; `_vote_written` publishes a write's
            # record before it counts the write done, so the last one sees 1 here). A note
            # changes only the row's note mark.
            self._refresh_states(item for item in changes.items if self.pending.get(item, 0) < 2)
        item = self.current_item()
        if item is not None and item in stale and self.source is not None:
            self.request_detail(item, priority=2)
            self.refresh_votes(item)

    def _refresh_states(self, items) -> None:
        """Read the queue state (everyone's votes, the decision) of these items again."""
        mine = [item for item in items if self.queue is not None and self.queue.entry(item) is not None]
        if not mine:
            return
        self._states_asked += 1
        asked = self._states_asked
        self._state_asks.update(dict.fromkeys(mine, asked))
        self.runner.read(self.backend.item_states, mine, on_done=lambda states: self._item_states_loaded(states, asked),
                         on_error=self._failed, priority=1)

    def refresh_votes(self, item: Item) -> None:
        """Re-read my vote and the others' on an item whose votes changed elsewhere (its
        facts stand)."""
        if item not in self._votes_stale:
            return
        self._votes_stale.discard(item)
        version = self._versions.get(item, 0)
        self.runner.read(self.backend.item_votes, item, blind=self.blind,
                         on_done=lambda votes, i=item, v=version: self._votes_loaded(i, v, *votes),
                         on_error=self._failed, priority=2)

    def _votes_loaded(self, item: Item, version: int, mine, others) -> None:
        if self._take_votes(item, version, mine, others):
            self.notify(ReviewEvent.VOTE_CHANGED, item)
            self.notify(ReviewEvent.OTHERS_CHANGED, item)

    def _take_votes(self, item: Item, version: int, mine, others) -> bool:
        """Keep a read of my vote and the others' on an item, unless a vote of this page
        is newer than the read (on its way, or written since the read began)."""
        if self.pending.get(item) or version != self._versions.get(item, 0):
            return False
        self.my_votes[item] = mine
        self._set_others(item, others)
        self._show_my_verdict(item, mine.verdict)
        return True

    def _show_my_verdict(self, item: Item, verdict) -> None:
        entry = self.queue.entry(item) if self.queue is not None else None
        if entry is not None and entry.my_verdict != verdict:
            self.queue.set_my_verdict(item, verdict)

    def _source_loaded(self, source) -> None:
        self.source = source
        item = self.current_item()
        if item is not None:
            self.request_detail(item, priority=2)

    def _reload_queue(self) -> None:
        """The queue's states read again (at most one read at a time, one more queued)."""
        if self._queue_loading:
            self._queue_stale = True
            return
        self._queue_loading, self._queue_stale = True, False
        self.runner.read(self.backend.review_queue, run_id=self.run_id, queue_filter=self.queue.filter,
                         on_done=self._queue_reloaded, on_error=self._queue_failed, priority=1)

    def _queue_failed(self, error: BaseException) -> None:
        self._queue_loading = False
        self._failed(error)

    def _queue_reloaded(self, fresh: ReviewQueue) -> None:
        self._queue_loading = False
        if self.queue is None or fresh.run_id != self.run_id:
            return
        if not self.queue.same_items(fresh):  # the run's mistakes were stored again
            item = self.current_item()
            self.queue = fresh
            self.notify(ReviewEvent.QUEUE_LOADED)
            row = fresh.row_of(item) if item is not None else None
            self.row = None
            self.go_to(row if row is not None else (0 if len(fresh) else None))
        else:
            for item in self.pending:  # this page's vote on its way is newer than the read
                entry = self.queue.entry(item)
                if entry is not None:
                    fresh.set_my_verdict(item, entry.my_verdict)
            changed = self.queue.take_states(fresh)
            if changed:
                self.notify(ReviewEvent.STATES_CHANGED, changed)
        if self._queue_stale:
            self._reload_queue()

    def _item_states_loaded(self, states, asked: int) -> None:
        if self.queue is None:
            return
        # Two reads may cross on the reader's threads: an item keeps the answer to its latest ask.
        for item in [i for i in states.items if self._state_asks.get(i, 0) > asked]:
            del states.items[item]
        for item in self.pending:  # this page's vote on its way is newer than the read
            if item in states.items:
                states.items[item] = replace(states.items[item], my_verdict=self.queue.entry(item).my_verdict)
        # The progress too, even if no row changed.
        self.notify(ReviewEvent.STATES_CHANGED, self.queue.take_item_states(states))

    def judged_wrong(self, item: Item) -> bool:
        """The item stands wrong: the panelist rates severity and category (phase 2)."""
        entry = self.queue.entry(item) if self.queue is not None else None
        return bool(entry and entry.stands_wrong)

    def set_filter(self, queue_filter: QueueFilter) -> None:
        if self.queue is None:
            return
        item = self.current_item()
        self.queue.apply(queue_filter)
        self.notify(ReviewEvent.QUEUE_LOADED)
        row = self.queue.row_of(item) if item else None
        self.row = None
        self.go_to(row if row is not None else (0 if len(self.queue) else None))

    # -- moving ----------------------------------------------------------------
    def current(self) -> QueueEntry | None:
        return self.queue[self.row] if self.queue is not None and self.row is not None else None

    def current_item(self) -> Item | None:
        entry = self.current()
        return entry.item if entry else None

    def go_to(self, row: int | None) -> None:
        if self.queue is None or row == self.row and row is not None:
            return
        if row is not None and not 0 <= row < len(self.queue):
            return
        self.row = row
        entry = self.current()
        self.notify(ReviewEvent.CURRENT_CHANGED, entry)
        if entry is None:
            return
        self.request_detail(entry.item, priority=2)
        self.refresh_votes(entry.item)
        # The rest waits for the event loop: the reads then do not compete (for the GIL)
        # with showing this mistake.
        self.runner.soon(lambda r=row, i=entry.item: self._prefetch_around(r, i))

    def _prefetch_around(self, row: int, item: Item) -> None:
        if self.queue is None or self.row is None:
            return
        if self.row != row:
            # Keys came faster than the event loop turned (each shown from the cache): the
            # panelist is further on now; read ahead of where they are, not where they were.
            row, item = self.row, self.queue[self.row].item
        self.refresh_others(item)
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
            self.notify(ReviewEvent.MESSAGE, "You have voted on every mistake in this list.", False)
        return self._move(row)

    def _move(self, row: int | None) -> bool:
        if row is None:
            return False
        self.go_to(row)
        return True

    # -- details -----------------------------------------------------------------
    def detail(self, item: Item):
        return self.details.get(item)

    def request_detail(self, item: Item, *, priority: int = 0) -> None:
        if item in self.details or item in self._loading or self.source is None:
            return
        self._loading.add(item)
        self.runner.read(self._load_item, self.run_id, item, self._versions.get(item, 0), self.source,
                         on_done=self._item_loaded, on_error=lambda e, i=item: self._item_failed(i, e),
                         priority=priority)

    def _load_item(self, run_id: int, item: Item, version: int, source):
        detail = self.backend.detail(source, run_id=run_id, item=item)
        mine, others = self.backend.item_votes(item, blind=self.blind)
        return run_id, item, version, detail, mine, others

    def _item_loaded(self, result) -> None:
        run_id, item, version, detail, mine, others = result
        self._loading.discard(item)
        if run_id != self.run_id:
            return
        self.details[item] = detail
        while len(self.details) > DETAIL_CACHE:
            self.details.popitem(last=False)
        entry = self.queue.entry(item) if self.queue is not None else None
        before = (self.my_votes.get(item, VoteState()), entry.my_verdict if entry is not None else None)
        taken = self._take_votes(item, version, mine, others)
        self.notify(ReviewEvent.DETAIL_READY, detail)
        # A coming mistake's facts read ahead: its row and the counts change only if its votes
        # did (as a rule they did not: nothing to repaint for it, at every key of a fast panelist).
        if item == self.current_item() or (taken and before != (mine, entry.my_verdict if entry is not None else None)):
            self.notify(ReviewEvent.VOTE_CHANGED, item)
            self.notify(ReviewEvent.OTHERS_CHANGED, item)

    def _item_failed(self, item: Item, error: BaseException) -> None:
        self._loading.discard(item)
        self._failed(error)

    def refresh_others(self, item: Item) -> None:
        """Re-read the others' votes on an item (they may have voted since the prefetch)."""
        self.runner.read(self.backend.others, item, blind=self.blind,
                         on_done=lambda votes, i=item: self._others_loaded(i, votes), priority=1)

    def _others_loaded(self, item: Item, votes) -> None:
        if self.pending.get(item):
            return  # a vote of ours is on its way; its own refresh follows
        if item in self.others and self.others[item] == votes:
            return  # as shown: nothing to show again (nor a decision to read again)
        self._set_others(item, votes)
        self.notify(ReviewEvent.OTHERS_CHANGED, item)

    def _set_others(self, item: Item, votes: list | None) -> None:
        self.others[item] = votes
        if votes and any(v.panelist_id not in self.names for v in votes):
            # A panelist who joined after the queue was loaded: fetch the names again.
            self.runner.read(self.backend.names, on_done=self._names_loaded)

    def _names_loaded(self, names: dict[int, str]) -> None:
        self.names = names
        item = self.current_item()
        if item is not None:
            self.notify(ReviewEvent.OTHERS_CHANGED, item)

    def set_blind(self, blind: bool) -> None:
        self.blind = blind
        self.others.clear()
        item = self.current_item()
        if item:
            self.refresh_others(item)

    # -- voting ------------------------------------------------------------------
    def my_vote(self, item: Item) -> VoteState:
        return self.my_votes.get(item, VoteState())

    def vote(self, **changes) -> VoteState | None:
        """Record a change to the panelist's vote on the shown mistake; returns the
        vote as it will stand (shown at once as "saving"), None when nothing is shown."""
        entry = self.current()
        if entry is None:
            return None
        item = entry.item
        self._versions[item] = self._versions.get(item, 0) + 1
        state = normalised(replace(self.my_vote(item), **changes))
        self.my_votes[item] = state
        self.pending[item] = self.pending.get(item, 0) + 1
        self.status[item] = "saving"
        if self.queue is not None:
            self.queue.set_my_verdict(item, state.verdict)
        self.notify(ReviewEvent.VOTE_CHANGED, item)
        # The queue's order at the key press goes with the vote (`Vote.queue_order`): an order that picks
        # items, such as the most informative next, changes which get decided first.
        order = self.queue.filter.sort.value if self.queue is not None else None
        self.runner.write(self._write_vote, item, changes, self._versions[item], order, on_done=self._vote_written,
                          on_error=lambda e, i=item: self._vote_failed(i, e))
        return state

    def _write_vote(self, item: Item, changes: dict, version: int, queue_order: str | None = None):
        done = self.backend.vote(item, queue_order=queue_order, **changes)
        # The others' votes as my verdict lets me see them; not read while more of my writes
        # on this item are queued behind this one (a later key press bumped the item's version;
        # only read here): the last one reads them.
        last = self._versions.get(item, 0) == version
        others = self.backend.others(item, blind=self.blind) if last else None
        return item, VoteState.of(done.value), (last, others), done.changes, done.value.id

    def _vote_written(self, result) -> None:
        item, state, (others_read, others), changes, vote_id = result
        # The group view and the progress follow at once; the poll need not report it again.
        self.notify(ReviewEvent.PUBLISHED, changes, (vote_id,))
        self.pending[item] -= 1
        if not self.pending[item]:
            del self.pending[item]
            self.my_votes[item] = state
            self.status[item] = "recorded"
            if self.queue is not None:
                self.queue.set_my_verdict(item, state.verdict)
        self._set_undo(True)
        # While more of this item's writes are on their way, the page still shows the vote as it
        # will stand, "saving": nothing on screen changed (three keys, one repaint of the row).
        if item not in self.pending:
            self.notify(ReviewEvent.VOTE_CHANGED, item)
        if others_read:
            self._set_others(item, others)
            self.notify(ReviewEvent.OTHERS_CHANGED, item)

    def _vote_failed(self, item: Item, error: BaseException) -> None:
        self.pending[item] = self.pending.get(item, 1) - 1
        if self.pending[item] <= 0:
            self.pending.pop(item, None)
        self.status[item] = f"not recorded: {error}" if isinstance(error, UserError) else "not recorded"
        self.my_votes.pop(item, None)
        # Earlier writes of the item that landed left reading it back to this one.
        self._refresh_states([item])
        self.refresh_others(item)
        self.notify(ReviewEvent.MESSAGE, f"Your vote was NOT recorded: {error}", True)
        # Show what the database really holds.
        self.runner.read(self.backend.my_vote, item, on_done=lambda s, i=item: self._reloaded_vote(i, s))
        self.notify(ReviewEvent.VOTE_CHANGED, item)

    def _reloaded_vote(self, item: Item, state: VoteState) -> None:
        self.my_votes[item] = state
        if self.queue is not None:
            self.queue.set_my_verdict(item, state.verdict)
        self.notify(ReviewEvent.VOTE_CHANGED, item)

    def undo(self) -> None:
        """Undo the panelist's latest vote (after any still being written)."""
        self.runner.write(self._write_undo, on_done=self._undone, on_error=self._failed)

    def _write_undo(self):
        done = self.backend.undo()
        row = done.value
        undo = self.backend.undo_available()
        if row is None:
            return None, None, None, undo, done.changes
        item = Item(row.image_id, row.predicted)
        return item, VoteState.of(row), self.backend.others(item, blind=self.blind), undo, done.changes

    def _undone(self, result) -> None:
        item, state, others, undo, changes = result
        self._set_undo(undo)
        self.notify(ReviewEvent.PUBLISHED, changes, ())
        if item is None:
            self.notify(ReviewEvent.MESSAGE, "Nothing to undo.", False)
            return
        self._versions[item] = self._versions.get(item, 0) + 1
        self.my_votes[item] = state
        self._set_others(item, others)
        self.status[item] = "recorded" if not state.empty else "none"
        if self.queue is not None:
            self.queue.set_my_verdict(item, state.verdict)
            row = self.queue.row_of(item)
            if row is not None and row != self.row:
                self.go_to(row)  # show the panelist what was undone
        self.notify(ReviewEvent.MESSAGE, f"Undone: your vote is back to {state.describe()}", False)
        self.notify(ReviewEvent.VOTE_CHANGED, item)
        self.notify(ReviewEvent.OTHERS_CHANGED, item)

    def _set_undo(self, available: bool, *, tell: bool = False) -> None:
        """Whether undo is available; told when it changes (or when asked: a fresh queue)."""
        if tell or available != self.undo_available:
            self.undo_available = available
            self.notify(ReviewEvent.UNDO_CHANGED, available)

    def _failed(self, error: BaseException) -> None:
        text = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
        self.notify(ReviewEvent.MESSAGE, scrub(text), True)
