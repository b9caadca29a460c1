"""One panelist reviewing one run, as plain Python: the queue, the shown mistake,
the votes on their way and undo.

What the review page shows lives here, without Qt, so that its rules can be
tested without a window. It holds no review rules either: every read and write
goes through a `ReviewBackend` (the app layer's acts, bound to a project and a
panelist: `reviewer.app.review.ReviewActs`), and it runs them through a
`Runner` that decides where they run. The window's runner
(`reviewer.ui.review.review_bridge`) puts reads on a reader pool and writes on
one writer thread, in the order of the key presses; a test's runner holds them
and lets them through one by one.

The state is optimistic: a vote is shown at once, as "saving", and becomes
"recorded" when its write returns; a read never overwrites a newer vote
(`reviewer.review.state_votes.OwnVotes`, which owns the panelist's votes, the
writes on their way and undo); each vote's status is an enum computed from them
(`vote_status`), which the page only shows. It stays in step with the database through
change records (`reviewer.review.state_sync.ChangeFollower`, which owns what waits to
be read again). Both are parts the state makes and hands itself to, each with its own
state; this module holds the queue and the position in it, the shown mistake and the
details read ahead, and the others' votes, and offers the parts its services.

Events (`reviewer.review.protocols.ReviewEvent`) tell whoever shows the
state what changed; `notify` receives them (the window turns them into Qt signals).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.scope import SCOPE_QUEUE
from reviewer.panel.votes import VoteState
from reviewer.redact import scrub
from reviewer.review.protocols import ReviewBackend, ReviewEvent, Runner
from reviewer.review.queue import ReviewQueue
from reviewer.review.queue_entry import QueueEntry
from reviewer.review.queue_filter import QueueFilter
from reviewer.review.state_sync import ChangeFollower
from reviewer.review.state_votes import OwnVotes
from reviewer.review.votes_in_flight import VoteStatus

PREFETCH_AHEAD = 8
DETAIL_CACHE = 256


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
        self.others: dict[Item, list | None] = {}
        self.names: dict[int, str] = {}
        self._loading: set[Item] = set()
        self.own = OwnVotes(self)  # my votes, the writes on their way, undo
        self.sync = ChangeFollower(self)  # what change records ask to read again

    def notify(self, event: ReviewEvent, *args: Any) -> None:
        self._notify(event, *args)

    @property
    def pending(self):
        """{item: writes on their way} (read-only; empty when nothing is being saved)."""
        return self.own.in_flight.writes

    @property
    def undo_available(self) -> bool:
        return self.own.undo_available

    def vote_status(self, item: Item) -> VoteStatus:
        """Where the panelist's own vote on the item stands (`VoteStatus`): what the page shows."""
        return self.own.in_flight.status(item, read=item in self.own.votes, empty=self.own.of(item).empty)

    def vote_failure(self, item: Item) -> str | None:
        """Why the item's last write failed ("not recorded: ..."), while its status is FAILED."""
        return self.own.in_flight.failure(item)

    # -- the panelist's votes and the database's changes: the parts' acts, under the page's names
    def my_vote(self, item: Item) -> VoteState:
        return self.own.of(item)

    def vote(self, **changes) -> VoteState | None:
        """Record a change to the panelist's vote on the shown mistake (`OwnVotes.cast`)."""
        return self.own.cast(**changes)

    def undo(self) -> None:
        """Undo the panelist's latest vote (after any still being written)."""
        self.own.undo()

    def apply_changes(self, changes) -> None:
        """Re-read what a change record names (`ChangeFollower.apply`)."""
        self.sync.apply(changes)

    def refresh_votes(self, item: Item) -> None:
        """Re-read the votes on an item whose votes changed elsewhere, if they did."""
        self.sync.refresh_votes(item)

    # -- loading ---------------------------------------------------------------
    def open_run(self, run_id: int, queue_filter: QueueFilter | None = None, *, refresh: bool = False) -> None:
        """Load the run's queue (and, the first time or with `refresh`, the project's
        labels and run names: a run made since would otherwise show as "run N")."""
        self.run_id = run_id
        if refresh:
            self.source = None
        self.details.clear()
        queue_filter = queue_filter or (self.queue.filter if self.queue else None)
        self.runner.read(self._load, run_id, queue_filter, on_done=self._loaded, on_error=self.fail)

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
        self.own.set_undo(undo, tell=True)
        self.notify(ReviewEvent.QUEUE_LOADED)
        # Resume where the panelist stopped: the first mistake still to do for them.
        first = queue.first_to_do_row()
        self.go_to(first if first is not None else (0 if len(queue) else None))

    def show_queue(self, fresh: ReviewQueue) -> None:
        """A queue read again whose mistakes changed (stored again): shown, on the same item if it
        is still there."""
        item = self.current_item()
        self.queue = fresh
        self.notify(ReviewEvent.QUEUE_LOADED)
        row = fresh.row_of(item) if item is not None else None
        self.row = None
        self.go_to(row if row is not None else (0 if len(fresh) else None))

    def forget_source(self) -> None:
        """The labels changed: the facts' source is read again (`take_source`)."""
        self.source = None

    def take_source(self, source) -> None:
        self.source = source
        item = self.current_item()
        if item is not None:
            self.request_detail(item, priority=2)

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
        self.sync.refresh_votes(entry.item)
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
        self.runner.read(self._load_item, self.run_id, item, self.own.in_flight.version(item), self.source,
                         on_done=self._item_loaded, on_error=lambda e, i=item: self._item_failed(i, e),
                         priority=priority)

    def _load_item(self, run_id: int, item: Item, version: int, source):
        # The queue of the panel's scope holds each item once, with the first scoped run that made it:
        # its top-5 and probabilities are shown.
        entry = self.queue.entry(item) if run_id == SCOPE_QUEUE and self.queue is not None else None
        detail = self.backend.detail(source, run_id=entry.run_id if entry is not None else run_id, item=item)
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
        before = (self.own.of(item), entry.my_verdict if entry is not None else None)
        taken = self.own.take(item, version, mine, others)
        self.notify(ReviewEvent.DETAIL_READY, detail)
        # A coming mistake's facts read ahead: its row and the counts change only if its votes
        # did (as a rule they did not: nothing to repaint for it, at every key of a fast panelist).
        if item == self.current_item() or (taken and before != (mine, entry.my_verdict if entry is not None else None)):
            self.notify(ReviewEvent.VOTE_CHANGED, item)
            self.notify(ReviewEvent.OTHERS_CHANGED, item)

    def _item_failed(self, item: Item, error: BaseException) -> None:
        self._loading.discard(item)
        self.fail(error)

    def refresh_others(self, item: Item) -> None:
        """Re-read the others' votes on an item (they may have voted since the prefetch)."""
        self.runner.read(self.backend.others, item, blind=self.blind,
                         on_done=lambda votes, i=item: self._others_loaded(i, votes), priority=1)

    def _others_loaded(self, item: Item, votes) -> None:
        if self.pending.get(item):
            return  # a vote of ours is on its way; its own refresh follows
        if item in self.others and self.others[item] == votes:
            return  # as shown: nothing to show again (nor a decision to read again)
        self.set_others(item, votes)
        self.notify(ReviewEvent.OTHERS_CHANGED, item)

    def set_others(self, item: Item, votes: list | None) -> None:
        """The others' votes on an item as read (None: hidden by the blind rule)."""
        self.others[item] = votes
        if votes and any(v.panelist_id not in self.names for v in votes):
            # A panelist who joined after the queue was loaded: fetch the names again.
            self.runner.read(self.backend.names, on_done=self.names_loaded)

    def names_loaded(self, names: dict[int, str]) -> None:
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

    def fail(self, error: BaseException) -> None:
        """A read or write failed: the panelist is told (secrets scrubbed)."""
        text = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
        self.notify(ReviewEvent.MESSAGE, scrub(text), True)
