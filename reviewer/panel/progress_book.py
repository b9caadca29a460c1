"""The panel's progress (`reviewer.panel.phases.progress`) with each item's part in it, so that
new votes and decisions update the counts item by item instead of recounting the project.

`reviewer panel-status` keeps a book between calls (`reviewer.app.panel_status`). The
history is append-only (migration 0005): what changed since a book was kept is exactly the
votes and decisions with a larger id, and only their items' parts can have moved. At 50,000
images and 20 runs a recount reads 26,000 items and 15,000 votes (about a second); a vote
since the last call costs a read of one item.

A book holds the part (`ItemProgress`) of every item with a history (a vote, a decision or a
reopening) and, for each novelty, the part every item without one shares; the counts are
the sum of the parts, as `progress` counts them; and each such item's standing (decided,
disputed or open: `reviewer.panel.standing`), the line `panel-status` prints above the phases.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reviewer.items import Item
from reviewer.panel.phases import PhaseProgress, count_progress, empty_progress, item_progress
from reviewer.panel.snapshot import ItemFacts, PanelSnapshot
from reviewer.panel.standing import Standing, panel_standing


@dataclass
class ProgressBook:
    reports: list[PhaseProgress]  # what `progress(snapshot)` returns
    parts: dict[Item, object]  # ItemProgress of each item with a history
    untouched: dict[bool, object]  # the ItemProgress an item without a history has, by its novelty
    marks: dict = field(default_factory=dict)  # the history it counts, e.g. {"vote": last id, "decision": last id}
    # The standing (reviewer.panel.standing) of each item with a history; an item without one is open.
    standings: dict[Item, Standing] = field(default_factory=dict)

    def standing_counts(self, items: int) -> dict[Standing, int]:
        """{standing: items} over the `items` of the scope (those without a history are open)."""
        counts = {s: 0 for s in Standing}
        for standing in self.standings.values():
            counts[standing] += 1
        counts[Standing.OPEN] += items - len(self.standings)
        return counts


def untouched_parts(snapshot: PanelSnapshot) -> dict[bool, object]:
    """The part of an item nobody has voted on or decided, novel or not, under the snapshot's
    panel and rules (a snapshot of one such item each)."""
    parts = {}
    for novel in (True, False):
        item = Item(-1, -1)
        alone = PanelSnapshot(panelists=snapshot.panelists, facts={item: ItemFacts(item, novel, (), 0.0, None)},
                              votes={}, decisions={}, reopened=set(), unanimous_final=snapshot.unanimous_final,
                              scope=snapshot.scope)
        parts[novel] = item_progress(alone, item)
    return parts


def open_book(snapshot: PanelSnapshot, novelty: dict[bool, int] | None = None) -> ProgressBook:
    """The book of the whole snapshot: its counts equal `progress(snapshot)`. Given `novelty`
    ({novel: items} of the whole scope, `snapshot.scoped_novelty`), the snapshot need hold only
    the items with a history (`load_snapshot(history_only=True)`): every other item of the
    scope is counted as untouched, by its novelty."""
    reports = empty_progress(snapshot)
    untouched = untouched_parts(snapshot)
    parts = {}
    counts = {True: 0, False: 0}
    if novelty is not None:  # the scope's items less those the snapshot holds (counted below, one by one)
        held = sum(1 for facts in snapshot.facts.values() if facts.novel)
        counts = {True: novelty[True] - held, False: novelty[False] - (len(snapshot.facts) - held)}
        if counts[True] < 0 or counts[False] < 0:
            raise ValueError("the novelty counts are not of the snapshot's scope")
    standings = {}
    worked: dict[tuple, tuple] = {}  # shape -> (part, standing): the rules once per shape (`PanelSnapshot.shape`)
    per_part: dict[int, list] = {}  # id(part) -> [part, items]: counted once per part
    for item, facts in snapshot.facts.items():
        if item in snapshot.votes or item in snapshot.decisions or item in snapshot.reopened:
            shape = snapshot.shape(item)
            found = worked.get(shape)
            if found is None:
                found = worked[shape] = (item_progress(snapshot, item), panel_standing(snapshot, item).standing)
            parts[item], standings[item] = found
            entry = per_part.setdefault(id(found[0]), [found[0], 0])
            entry[1] += 1
        else:
            counts[facts.novel] += 1
    for part, n in per_part.values():
        count_progress(reports, part, sign=n)
    for novel, n in counts.items():
        if n:
            count_progress(reports, untouched[novel], sign=n)
    return ProgressBook(reports=reports, parts=parts, untouched=untouched, standings=standings)


def update_book(book: ProgressBook, snapshot: PanelSnapshot, items: set[Item]) -> bool:
    """Bring the book up to date for `items`, whose history changed, from a snapshot of those
    items (`load_snapshot(items=...)`). False, and the book unchanged, when an item is not one
    of the scope's (a history outside it moves counts the book does not hold: recount)."""
    if any(item not in snapshot.facts for item in items):
        return False
    for item in items:
        before = book.parts.get(item, book.untouched[snapshot.facts[item].novel])
        after = item_progress(snapshot, item)
        count_progress(book.reports, before, sign=-1)
        count_progress(book.reports, after)
        book.parts[item] = after
        book.standings[item] = panel_standing(snapshot, item).standing
    return True
