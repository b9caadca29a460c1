"""The review state's votes on their way: a part of `ReviewState` (a mixin of it), kept
apart because it is one responsibility, the bookkeeping of the panelist's writes.

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
(reviewer.review.votes_in_flight.VotesInFlight). This part uses the
state's `backend`, `runner`, `blind`, `queue`, `row`, `current`, `go_to`,
`refresh_others`, `_set_others`, `_refresh_states`, `_failed` and `notify`; its state,
set up by `ReviewState.__init__`, is `my_votes`, `in_flight` and `undo_available`.
"""

from __future__ import annotations

from dataclasses import replace

from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.votes import VoteState, normalised
from reviewer.review.review_protocols import ReviewEvent


class ReviewStateVotes:
    """The panelist's votes of `ReviewState`: shown at once, written in order, read back
    when they fail; a read older than one of them is dropped."""

    def _take_votes(self, item: Item, version: int, mine, others) -> bool:
        """Keep a read of my vote and the others' on an item, unless a vote of this page
        is newer than the read (on its way, or written since the read began)."""
        if self.in_flight.saving(item) or version != self.in_flight.version(item):
            return False
        self.my_votes[item] = mine
        self._set_others(item, others)
        self._show_my_verdict(item, mine.verdict)
        return True

    def _show_my_verdict(self, item: Item, verdict) -> None:
        entry = self.queue.entry(item) if self.queue is not None else None
        if entry is not None and entry.my_verdict != verdict:
            self.queue.set_my_verdict(item, verdict)

    def my_vote(self, item: Item) -> VoteState:
        return self.my_votes.get(item, VoteState())

    def vote(self, **changes) -> VoteState | None:
        """Record a change to the panelist's vote on the shown mistake; returns the
        vote as it will stand (shown at once as "saving"), None when nothing is shown."""
        entry = self.current()
        if entry is None:
            return None
        item = entry.item
        version = self.in_flight.start(item)
        state = normalised(replace(self.my_vote(item), **changes))
        self.my_votes[item] = state
        if self.queue is not None:
            self.queue.set_my_verdict(item, state.verdict)
        self.notify(ReviewEvent.VOTE_CHANGED, item)
        # The queue's order at the key press goes with the vote (`Vote.queue_order`): an order that picks
        # items, such as the most informative next, changes which get decided first.
        order = self.queue.filter.sort.value if self.queue is not None else None
        self.runner.write(self._write_vote, item, changes, version, order, on_done=self._vote_written,
                          on_error=lambda e, i=item: self._vote_failed(i, e))
        return state

    def _write_vote(self, item: Item, changes: dict, version: int, queue_order: str | None = None):
        done = self.backend.vote(item, queue_order=queue_order, **changes)
        # The others' votes as my verdict lets me see them; not read while more of my writes
        # on this item are queued behind this one (a later key press bumped the item's version;
        # only read here): the last one reads them.
        last = self.in_flight.version(item) == version
        others = self.backend.others(item, blind=self.blind) if last else None
        return item, VoteState.of(done.value), (last, others), done.changes, done.value.id

    def _vote_written(self, result) -> None:
        item, state, (others_read, others), changes, vote_id = result
        # The group view and the progress follow at once; the poll need not report it again.
        self.notify(ReviewEvent.PUBLISHED, changes, (vote_id,))
        if self.in_flight.landed(item):
            self.my_votes[item] = state
            if self.queue is not None:
                self.queue.set_my_verdict(item, state.verdict)
        self._set_undo(True)
        # While more of this item's writes are on their way, the page still shows the vote as it
        # will stand, "saving": nothing on screen changed (three keys, one repaint of the row).
        if not self.in_flight.saving(item):
            self.notify(ReviewEvent.VOTE_CHANGED, item)
        if others_read:
            self._set_others(item, others)
            self.notify(ReviewEvent.OTHERS_CHANGED, item)

    def _vote_failed(self, item: Item, error: BaseException) -> None:
        self.in_flight.failed(item, f"not recorded: {error}" if isinstance(error, UserError) else "not recorded")
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
        self.in_flight.undone(item, empty=state.empty)
        self.my_votes[item] = state
        self._set_others(item, others)
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
