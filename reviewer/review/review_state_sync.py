"""The review state kept in step with the database: a part of `ReviewState` (a mixin of
it), kept apart because it is one responsibility.

Every change record (`reviewer.app.changes.Changes`: the state's own, the group
view's, another process's) makes it re-read what the record names: the facts and votes
of its items, the queue's states of those items alone (milliseconds) or the whole queue
when its mistakes or the panel changed, everything after labels were imported. A read
answered while this page's writes of an item are on their way keeps the page's vote
(`reviewer.review.review_state_votes`).

It uses the state's `backend`, `runner`, `blind`, `queue`, `row`, `run_id`, `source`, `details`,
`my_votes`, `others`, `pending`, `in_flight`, `current_item`, `go_to`, `request_detail`,
`_take_votes`, `_names_loaded`, `_failed` and `notify`; its state, set up by
`ReviewState.__init__`, is `_votes_stale`, `_states_asked`, `_state_asks`,
`_queue_loading` and `_queue_stale`.
"""

from __future__ import annotations

from dataclasses import replace

from reviewer.items import Item
from reviewer.panel.scope import SCOPE_QUEUE
from reviewer.review.queue import ReviewQueue
from reviewer.review.review_protocols import ReviewEvent


class ReviewStateSync:
    """The re-reads of `ReviewState` that change records ask for."""

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
        if changes.labels or changes.panel or self.run_id in changes.runs or (self.run_id == SCOPE_QUEUE
                                                                              and changes.runs):
            self._reload_queue()  # the whole queue: its mistakes (the scope's: any run's) or the panel changed
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
        version = self.in_flight.version(item)
        self.runner.read(self.backend.item_votes, item, blind=self.blind,
                         on_done=lambda votes, i=item, v=version: self._votes_loaded(i, v, *votes),
                         on_error=self._failed, priority=2)

    def _votes_loaded(self, item: Item, version: int, mine, others) -> None:
        if self._take_votes(item, version, mine, others):
            self.notify(ReviewEvent.VOTE_CHANGED, item)
            self.notify(ReviewEvent.OTHERS_CHANGED, item)

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
