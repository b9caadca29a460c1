"""The review state kept in step with the database: a part of `ReviewState` that owns
what it has to read again.

Every change record (`reviewer.app.changes.Changes`: the state's own, the
meeting's, another process's) makes it re-read what the record names: the facts and votes
of its items, the queue's states of those items alone (milliseconds) or the whole queue
when its mistakes or the panel changed, everything after labels were imported. A read
answered while this page's writes of an item are on their way keeps the page's vote
(`reviewer.review.state_votes`).

The part is given the state it belongs to (`ReviewState`) and uses its public services:
the backend and runner, the queue and the shown item, the cached details, the others'
votes, the panelist's own votes (`ReviewState.own`), `show_queue`, `forget_source`,
`take_source`, `request_detail`, `names_loaded`, `fail` and `notify`. Its own state is what
waits to be read again: the items whose votes changed elsewhere, the asks of item
states in flight, and whether the whole queue is being read (and asked again).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from reviewer.items import Item
from reviewer.panel.scope import SCOPE_QUEUE
from reviewer.review.protocols import ReviewEvent
from reviewer.review.queue import ReviewQueue

if TYPE_CHECKING:
    from reviewer.review.state import ReviewState


class ChangeFollower:
    """The re-reads of `ReviewState` that change records ask for."""

    def __init__(self, state: ReviewState):
        self._state = state
        self.stale_votes: set[Item] = set()  # votes changed elsewhere, read again when shown
        self._states_asked = 0  # item-state reads asked, to drop a stale answer
        self._state_asks: dict[Item, int] = {}
        self._queue_loading = self._queue_stale = False

    def apply(self, changes) -> None:
        """Re-read what a change record names (reviewer.app.changes): the facts and votes
        of its items, the queue's states, everything after labels were imported."""
        state = self._state
        pending = state.own.in_flight.writes
        if changes.panel:
            state.runner.read(state.backend.names, on_done=state.names_loaded)
            # The panel's rules (blind) decide what the others' votes show: those read under the rules
            # before are read again, the shown item's now (a window kept showing them, in some runs,
            # after the chair made the panel blind elsewhere).
            state.others.clear()
            item = state.current_item()
            if item is not None:
                state.refresh_others(item)
        if state.queue is None or state.run_id is None:
            return
        if changes.labels:
            state.forget_source()  # new labels: the facts are read again
            stale = set(state.details)
            state.runner.read(state.backend.detail_source, on_done=state.take_source, on_error=state.fail)
        else:
            stale = set(changes.items) & (set(state.others) | set(state.own.votes))
            if changes.decisions:
                # A decision on (image, class) changes how the top-5 and other runs' top-1 of
                # every mistake on that image read: their facts are read again (votes do not).
                images = {item.image_id for item in changes.items}
                stale |= {item for item in state.details if item.image_id in images}
        if changes.decisions or changes.labels:
            for item in stale:
                # The facts are read again with the votes (`ReviewState._item_loaded`); the vote on
                # screen stays lit until the fresh one replaces it.
                state.details.pop(item, None)
        else:
            # Votes only: the facts stand; the votes of these items are read again when shown.
            self.stale_votes |= stale - set(pending)
        if changes.labels or changes.panel or state.run_id in changes.runs or (state.run_id == SCOPE_QUEUE
                                                                               and changes.runs):
            self.reload_queue()  # the whole queue: its mistakes (the scope's: any run's) or the panel changed
        elif changes.votes or changes.decisions or changes.notes:
            # Only the items named: milliseconds, where the whole queue takes a few hundred
            # (and would hold the interpreter while keys come in). An item with more of this
            # page's writes still on their way waits for the last one's record (wrong,
            # major, fine-grained: one read, not three; `OwnVotes._written` publishes a write's
            # record before it counts the write done, so the last one sees 1 here). A note
            # changes only the row's note mark.
            self.refresh_states(item for item in changes.items if pending.get(item, 0) < 2)
        item = state.current_item()
        if item is not None and item in stale and state.source is not None:
            state.request_detail(item, priority=2)
            self.refresh_votes(item)

    def refresh_states(self, items) -> None:
        """Read the queue state (everyone's votes, the decision) of these items again."""
        state = self._state
        mine = [item for item in items if state.queue is not None and state.queue.entry(item) is not None]
        if not mine:
            return
        self._states_asked += 1
        asked = self._states_asked
        self._state_asks.update(dict.fromkeys(mine, asked))
        state.runner.read(state.backend.item_states, mine,
                          on_done=lambda states: self._item_states_loaded(states, asked), on_error=state.fail,
                          priority=1)

    def refresh_votes(self, item: Item) -> None:
        """Re-read my vote and the others' on an item whose votes changed elsewhere (its
        facts stand)."""
        if item not in self.stale_votes:
            return
        self.stale_votes.discard(item)
        state = self._state
        version = state.own.in_flight.version(item)
        state.runner.read(state.backend.item_votes, item, blind=state.blind,
                          on_done=lambda votes, i=item, v=version: self._votes_loaded(i, v, *votes),
                          on_error=state.fail, priority=2)

    def _votes_loaded(self, item: Item, version: int, mine, others) -> None:
        if self._state.own.take(item, version, mine, others):
            self._state.notify(ReviewEvent.VOTE_CHANGED, item)
            self._state.notify(ReviewEvent.OTHERS_CHANGED, item)

    def reload_queue(self) -> None:
        """The queue's states read again (at most one read at a time, one more queued)."""
        if self._queue_loading:
            self._queue_stale = True
            return
        state = self._state
        self._queue_loading, self._queue_stale = True, False
        state.runner.read(state.backend.review_queue, run_id=state.run_id, queue_filter=state.queue.filter,
                          on_done=self._queue_reloaded, on_error=self._queue_failed, priority=1)

    def _queue_failed(self, error: BaseException) -> None:
        self._queue_loading = False
        self._state.fail(error)

    def _queue_reloaded(self, fresh: ReviewQueue) -> None:
        self._queue_loading = False
        state = self._state
        queue = state.queue
        if queue is None or fresh.run_id != state.run_id:
            return
        if not queue.same_items(fresh):  # the run's mistakes were stored again
            state.show_queue(fresh)
        else:
            for item in state.own.in_flight.writes:  # this page's vote on its way is newer than the read
                entry = queue.entry(item)
                if entry is not None:
                    fresh.set_my_verdict(item, entry.my_verdict)
            changed = queue.take_states(fresh)
            if changed:
                state.notify(ReviewEvent.STATES_CHANGED, changed)
        if self._queue_stale:
            self.reload_queue()

    def _item_states_loaded(self, states, asked: int) -> None:
        state = self._state
        if state.queue is None:
            return
        # Two reads may cross on the reader's threads: an item keeps the answer to its latest ask.
        for item in [i for i in states.items if self._state_asks.get(i, 0) > asked]:
            del states.items[item]
        for item in state.own.in_flight.writes:  # this page's vote on its way is newer than the read
            if item in states.items:
                states.items[item] = replace(states.items[item], my_verdict=state.queue.entry(item).my_verdict)
        # The progress too, even if no row changed.
        state.notify(ReviewEvent.STATES_CHANGED, state.queue.take_item_states(states))
