"""The panelist's own votes on the review page: a part of `ReviewState` that owns them, the
writes on their way and whether undo is available.

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

Undo is a write too, run after any vote still being written. The writes on their way,
the items' versions and each vote's status are one object, `in_flight`
(reviewer.review.votes_in_flight.VotesInFlight). The part is given the state it
belongs to (`ReviewState`, as Anki's `Table(browser)`) and uses only its public
services: the backend and runner, the queue, the shown entry, the others' votes
(`set_others`, `refresh_others`), the item states' re-read (`ReviewState.sync`),
`go_to`, `fail` and `notify`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.votes import VoteState, normalised
from reviewer.review.protocols import ReviewEvent
from reviewer.review.votes_in_flight import VotesInFlight

if TYPE_CHECKING:
    from reviewer.review.state import ReviewState


class OwnVotes:
    """The panelist's votes: shown at once, written in order, read back when they fail; a
    read older than one of them is dropped."""

    def __init__(self, state: ReviewState):
        self._state = state
        self.votes: dict[Item, VoteState] = {}  # as the page shows them (optimistic while saving)
        # The votes on their way and each item's version (a local vote bumps it: a read begun before is
        # older, and dropped), from which each vote's status comes.
        self.in_flight = VotesInFlight()
        self.undo_available = False

    def of(self, item: Item) -> VoteState:
        return self.votes.get(item, VoteState())

    def take(self, item: Item, version: int, mine, others) -> bool:
        """Keep a read of my vote and the others' on an item, unless a vote of this page
        is newer than the read (on its way, or written since the read began)."""
        if self.in_flight.saving(item) or version != self.in_flight.version(item):
            return False
        self.votes[item] = mine
        self._state.set_others(item, others)
        self._show_verdict(item, mine.verdict)
        return True

    def _show_verdict(self, item: Item, verdict) -> None:
        queue = self._state.queue
        entry = queue.entry(item) if queue is not None else None
        if entry is not None and entry.my_verdict != verdict:
            queue.set_my_verdict(item, verdict)

    def cast(self, **changes) -> VoteState | None:
        """Record a change to the panelist's vote on the shown mistake; returns the
        vote as it will stand (shown at once as "saving"), None when nothing is shown."""
        state = self._state
        entry = state.current()
        if entry is None:
            return None
        item = entry.item
        version = self.in_flight.start(item)
        vote = normalised(replace(self.of(item), **changes))
        self.votes[item] = vote
        if state.queue is not None:
            state.queue.set_my_verdict(item, vote.verdict)
        state.notify(ReviewEvent.VOTE_CHANGED, item)
        # The queue's order at the key press goes with the vote (`Vote.queue_order`): an order that picks
        # items, such as the most informative next, changes which get decided first.
        order = state.queue.filter.sort.value if state.queue is not None else None
        state.runner.write(self._write, item, changes, version, order, on_done=self._written,
                           on_error=lambda e, i=item: self._failed(i, e))
        return vote

    def _write(self, item: Item, changes: dict, version: int, queue_order: str | None = None):
        backend = self._state.backend
        done = backend.vote(item, queue_order=queue_order, **changes)
        # The others' votes as my verdict lets me see them; not read while more of my writes
        # on this item are queued behind this one (a later key press bumped the item's version;
        # only read here): the last one reads them.
        last = self.in_flight.version(item) == version
        others = backend.others(item, blind=self._state.blind) if last else None
        return item, VoteState.of(done.value), (last, others), done.changes, done.value.id

    def _written(self, result) -> None:
        state = self._state
        item, vote, (others_read, others), changes, vote_id = result
        # The meeting and the progress follow at once; the poll need not report it again.
        state.notify(ReviewEvent.PUBLISHED, changes, (vote_id,))
        if self.in_flight.landed(item):
            self.votes[item] = vote
            if state.queue is not None:
                state.queue.set_my_verdict(item, vote.verdict)
        self.set_undo(True)
        # While more of this item's writes are on their way, the page still shows the vote as it
        # will stand, "saving": nothing on screen changed (three keys, one repaint of the row).
        if not self.in_flight.saving(item):
            state.notify(ReviewEvent.VOTE_CHANGED, item)
        if others_read:
            state.set_others(item, others)
            state.notify(ReviewEvent.OTHERS_CHANGED, item)

    def _failed(self, item: Item, error: BaseException) -> None:
        state = self._state
        self.in_flight.failed(item, f"not recorded: {error}" if isinstance(error, UserError) else "not recorded")
        self.votes.pop(item, None)
        # Earlier writes of the item that landed left reading it back to this one.
        state.sync.refresh_states([item])
        state.refresh_others(item)
        state.notify(ReviewEvent.MESSAGE, f"Your vote was NOT recorded: {error}", True)
        # Show what the database really holds.
        state.runner.read(state.backend.my_vote, item, on_done=lambda s, i=item: self._reloaded(i, s))
        state.notify(ReviewEvent.VOTE_CHANGED, item)

    def _reloaded(self, item: Item, vote: VoteState) -> None:
        self.votes[item] = vote
        if self._state.queue is not None:
            self._state.queue.set_my_verdict(item, vote.verdict)
        self._state.notify(ReviewEvent.VOTE_CHANGED, item)

    def undo(self) -> None:
        """Undo the panelist's latest vote (after any still being written)."""
        self._state.runner.write(self._write_undo, on_done=self._undone, on_error=self._state.fail)

    def _write_undo(self):
        backend = self._state.backend
        done = backend.undo()
        row = done.value
        undo = backend.undo_available()
        if row is None:
            return None, None, None, undo, done.changes
        item = Item(row.image_id, row.predicted)
        return item, VoteState.of(row), backend.others(item, blind=self._state.blind), undo, done.changes

    def _undone(self, result) -> None:
        state = self._state
        item, vote, others, undo, changes = result
        self.set_undo(undo)
        state.notify(ReviewEvent.PUBLISHED, changes, ())
        if item is None:
            state.notify(ReviewEvent.MESSAGE, "Nothing to undo.", False)
            return
        self.in_flight.undone(item, empty=vote.empty)
        self.votes[item] = vote
        state.set_others(item, others)
        if state.queue is not None:
            state.queue.set_my_verdict(item, vote.verdict)
            row = state.queue.row_of(item)
            if row is not None and row != state.row:
                state.go_to(row)  # show the panelist what was undone
        state.notify(ReviewEvent.MESSAGE, f"Undone: your vote is back to {vote.describe()}", False)
        state.notify(ReviewEvent.VOTE_CHANGED, item)
        state.notify(ReviewEvent.OTHERS_CHANGED, item)

    def set_undo(self, available: bool, *, tell: bool = False) -> None:
        """Whether undo is available; told when it changes (or when asked: a fresh queue)."""
        if tell or available != self.undo_available:
            self.undo_available = available
            self._state.notify(ReviewEvent.UNDO_CHANGED, available)
