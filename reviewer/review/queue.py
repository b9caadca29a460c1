"""The review queue: a run's mistakes as one panelist works through them, filtered and sorted.

`ReviewQueue` holds the run's entries (`reviewer.review.queue_entry.QueueEntry`) and shows
those its filter accepts, in its sort order (`reviewer.review.queue_filter`). It is loaded
once per (run, panelist) (`reviewer.review.queue_load`); filtering, sorting and counting
then happen in memory, so a filter change on a few thousand mistakes takes milliseconds.
After a vote the caller updates the panelist's verdict with `set_my_verdict` instead of
reloading; the fresh state of a few items comes in through `take_item_states`.

The header's counts add up: every shown mistake is decided, disputed or open ("121
mistakes: 40 decided · 6 disputed · 75 open; 30 voted by me").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from reviewer.items import Item
from reviewer.panel.phases import ItemProgress, count_progress
from reviewer.review.item_state import ItemState, Standing
from reviewer.review.queue_entry import QueueEntry
from reviewer.review.queue_filter import QueueFilter, QueueStatus


@dataclass
class QueueCounts:
    """What the queue header says, in counts that add up: the shown mistakes are decided,
    disputed or open ("121 mistakes: 40 decided · 6 disputed · 75 open; 30 voted by me")."""

    shown: int
    total: int  # the run's mistakes
    voted_shown: int
    status: QueueStatus
    decided: int = 0
    disputed: int = 0
    open: int = 0
    mine: bool = True  # a panelist's queue: "voted by me" is said

    def describe(self) -> str:
        # The "Show" box beside it names the filter: the header keeps to the numbers.
        head = f"{self.total} mistakes" if self.shown == self.total else f"{self.shown} of {self.total} mistakes shown"
        if self.shown:
            head += f": {self.decided} decided · {self.disputed} disputed · {self.open} open"
        return f"{head}; {self.voted_shown} voted by me" if self.mine else head


@dataclass(frozen=True)
class ItemStates:
    """The fresh state of a few items for a panelist, and their progress parts
    (`phases.item_progress`); `panelists` the ids the parts count."""

    items: dict[Item, ItemState]
    parts: dict[Item, ItemProgress]
    panelists: list[int]


@dataclass
class ReviewQueue:
    """A run's mistakes for one panelist, filtered and sorted."""

    run_id: int
    panelist_id: int | None
    entries: list[QueueEntry]
    filter: QueueFilter = field(default_factory=QueueFilter)
    _shown: list[int] = field(default_factory=list, repr=False)  # indices into entries
    _index_of: dict[Item, int] = field(default_factory=dict, repr=False)
    # Kept up to date on every vote, so the header's counts cost nothing per key press.
    _shown_set: set[int] = field(default_factory=set, repr=False)
    _voted_shown: int = 0
    _standing_shown: Counter = field(default_factory=Counter, repr=False)  # Standing -> shown entries
    # The panel's progress over the run's mistakes (`phases.progress`), kept up to date item
    # by item (`take_item_states`) from each item's part.
    progress: list = field(default_factory=list)
    _parts: dict[Item, ItemProgress] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index_of = {e.item: i for i, e in enumerate(self.entries)}
        self.apply(self.filter)

    # -- filtering -----------------------------------------------------------
    def apply(self, queue_filter: QueueFilter) -> None:
        """Show the entries the filter accepts, in its sort order."""
        self.filter = queue_filter
        shown = [i for i, e in enumerate(self.entries) if queue_filter.accepts(e)]
        shown.sort(key=lambda i: queue_filter.sort.key(self.entries[i]))
        self._shown = shown
        self._shown_set = set(shown)
        self._voted_shown = sum(1 for i in shown if self.entries[i].my_verdict is not None)
        self._standing_shown = Counter(self.entries[i].state.standing for i in shown)

    def __len__(self) -> int:
        return len(self._shown)

    def __getitem__(self, row: int) -> QueueEntry:
        return self.entries[self._shown[row]]

    def shown(self) -> list[QueueEntry]:
        return [self.entries[i] for i in self._shown]

    def row_of(self, item: Item) -> int | None:
        """The row of an item among the shown entries, or None when filtered out."""
        index = self._index_of.get(item)
        if index is None:
            return None
        try:
            return self._shown.index(index)
        except ValueError:
            return None

    def entry(self, item: Item) -> QueueEntry | None:
        index = self._index_of.get(item)
        return None if index is None else self.entries[index]

    def counts(self) -> QueueCounts:
        """The shown rows as of the last `apply` (a voted item stays listed as "unvoted"
        until the filter is applied again), their states as of now."""
        standing = self._standing_shown
        return QueueCounts(shown=len(self._shown), total=len(self.entries), status=self.filter.status,
                           voted_shown=self._voted_shown, decided=standing[Standing.DECIDED],
                           disputed=standing[Standing.DISPUTED], open=standing[Standing.OPEN],
                           mine=self.panelist_id is not None)

    # -- navigation ------------------------------------------------------------
    def next_row(self, row: int | None, *, unvoted: bool = False) -> int | None:
        """The row after `row`; None at the end. With `unvoted`, the next row the
        panelist has not voted on, wrapping round to the top."""
        start = -1 if row is None else row
        if not unvoted:
            return start + 1 if start + 1 < len(self) else None
        order = list(range(start + 1, len(self))) + list(range(start + 1))
        return next((r for r in order if r != row and self[r].my_verdict is None), None)

    def previous_row(self, row: int | None) -> int | None:
        if row is None or row <= 0:
            return None
        return row - 1

    def first_to_do_row(self) -> int | None:
        """The first shown row still to do for this panelist (either phase)."""
        return next((row for row, index in enumerate(self._shown) if self.entries[index].to_do), None)

    # -- updates ---------------------------------------------------------------
    def same_items(self, other: ReviewQueue) -> bool:
        return self.run_id == other.run_id and self._index_of.keys() == other._index_of.keys()

    def take_states(self, other: ReviewQueue) -> list[Item]:
        """Take the panel's state of every item from a freshly loaded queue of the same
        items (`same_items`), keeping the rows shown as they are (as `set_my_verdict`);
        returns the items whose state changed."""
        changed = []
        for index, entry in enumerate(self.entries):
            fresh = other.entries[other._index_of[entry.item]]
            if fresh.state != entry.state:
                self._set_state(index, fresh.state)
                changed.append(entry.item)
        self.progress, self._parts = other.progress, other._parts
        return changed

    def take_item_states(self, states: "ItemStates") -> list[Item]:
        """Take the fresh state of a few items (`load_item_states`), the progress counts
        updated by their parts; returns the items whose state changed."""
        changed = []
        for item, state in states.items.items():
            index = self._index_of.get(item)
            if index is None:
                continue
            if state != self.entries[index].state:
                self._set_state(index, state)
                changed.append(item)
            part = states.parts[item]
            old = self._parts.get(item)
            if old != part and len(self.progress) == 2 and states.panelists == [
                    p.panelist_id for p in self.progress[0].panelists]:
                if old is not None:
                    count_progress(self.progress, old, -1)
                count_progress(self.progress, part)
                self._parts[item] = part
        return changed

    def set_my_verdict(self, item: Item, verdict: str | None) -> None:
        """Record the panelist's verdict on an item; the shown rows stay as they are
        (an item voted away from "unvoted" stays until the filter is applied again,
        so the panelist can step back to it)."""
        index = self._index_of.get(item)
        if index is not None:
            self._set_state(index, replace(self.entries[index].state, my_verdict=verdict))

    def _set_state(self, index: int, state: ItemState) -> None:
        """An entry's new state, the header's counts kept in step (nothing else is counted
        again: a key press costs the same with 50 rows or 5,000)."""
        old = self.entries[index].state
        self.entries[index] = replace(self.entries[index], state=state)
        if index in self._shown_set:
            self._voted_shown += (state.my_verdict is not None) - (old.my_verdict is not None)
            self._standing_shown[old.standing] -= 1
            self._standing_shown[state.standing] += 1
