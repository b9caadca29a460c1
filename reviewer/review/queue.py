"""The review queue: the panel's work list, one home for it.

- `load_queue`: a run's mistakes as one panelist works through them, loaded
  once per (run, panelist) with three queries (the run's mistakes, the
  panelist's current verdicts, the decided items); filtering, sorting and
  counting then happen in memory, so a filter change on a few thousand
  mistakes takes milliseconds. After a vote the caller updates the
  panelist's verdict with `set_my_verdict` instead of reloading.
- `pending_items` / `rerun_summary`: what a run adds to the panel's work. When
  a new model is run (often on a curated slice only), most of its mistakes
  are questions already answered: the same image with the same predicted
  class judged in a published review (a wrong label: not novel) or decided
  by the panel. Only the rest are pending.

An item is decided when it has a standing final decision
(`reviewer.panel.final`), the same rule everywhere.

Each entry carries the item's state for the panelist (`reviewer.review.item_state`):
their own verdict, the decided value and how, a dispute, the phases waiting for
them, the discussion notes. The header's counts add up: every shown mistake is
decided, disputed or open ("121 mistakes: 40 decided · 6 disputed · 75 open; 30
voted by me").

Filters: status (`QueueStatus`: all / to do for me / phase 2 to do / disputed /
decided / undecided / problematic / with notes / novel / previously reviewed /
unvoted by me / voted by me), a class (predicted or original label), a WordNet
distance range, a confidence range, and what the imported evidence sources say
(`QueueEvidence`: some source accepts the prediction / sources disagree / all
covering sources reject it / no source covers the image). Sorts (`QueueSort`): queue
order (image), most or least confident first, nearest or farthest in WordNet first,
class, most sources accepting first, most informative next. Each vocabulary is a StrEnum
whose members carry their title (the window lists them) and their rule (`accepts`, `key`).

"Most informative next" (uncertainty sampling, Lewis and Gale 1994, "A sequential algorithm
for training text classifiers", SIGIR; the binary case of the entropy rule): first the
mistakes whose chance of the prediction being right is nearest 0.5, that chance being ReaL's
crowd raters' consensus that the predicted class is in the image (Dawid–Skene,
`reviewer.evidence.consensus`) where they were asked, else the model's own top-1
probability; at equal distance a consensus goes first. It never reads the panel's votes, so
it leaks nothing into blind review. The order a vote was cast in is recorded with the vote
(`Vote.queue_order`, set by the review page), since an order that picks items changes which
of them are decided first.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from sqlmodel import Session

from reviewer.evidence import PairEvidence, evidence_by_pair
from reviewer.items import Item
from reviewer.panel.discussion import note_counts
from reviewer.panel.final import read_final_decisions
from reviewer.panel.phases import ItemProgress, count_progress, empty_progress, item_progress
from reviewer.panel.rules import read_rules
from reviewer.panel.snapshot import load_snapshot
from reviewer.review.item_state import DecidedValue, ItemState, Standing, item_state
from reviewer.runs.mistakes import StoredMistake, stored_mistakes
from reviewer.terms import StrEnum


class QueueStatus(StrEnum):
    """Which mistakes the queue's "Show" filter keeps, in the order the window lists them."""

    ALL = "all"
    TO_DO = "to_do"
    PHASE2 = "phase2"  # awaiting my phase-2 rating
    DISPUTED = "disputed"
    DECIDED = "decided"
    UNDECIDED = "undecided"
    PROBLEMATIC = "problematic"
    NOTED = "noted"
    NOVEL = "novel"
    REVIEWED = "reviewed"
    UNVOTED = "unvoted"
    VOTED = "voted"

    @property
    def title(self) -> str:
        return _STATUS_TITLES[self]

    def accepts(self, entry: QueueEntry) -> bool:
        state = entry.state
        match self:
            case QueueStatus.ALL:
                return True
            case QueueStatus.TO_DO:
                return bool(state.to_do)
            case QueueStatus.PHASE2:
                return state.awaits_my_rating
            case QueueStatus.DISPUTED:
                return state.dispute is not None
            case QueueStatus.DECIDED:
                return state.decided
            case QueueStatus.UNDECIDED:
                return not state.decided
            case QueueStatus.PROBLEMATIC:
                return bool(state.problematic)
            case QueueStatus.NOTED:
                return state.notes > 0
            case QueueStatus.NOVEL:
                return entry.novel
            case QueueStatus.REVIEWED:
                return not entry.novel
            case QueueStatus.UNVOTED:
                return state.my_verdict is None
            case QueueStatus.VOTED:
                return state.my_verdict is not None


_STATUS_TITLES = {
    QueueStatus.ALL: "All mistakes",
    QueueStatus.TO_DO: "To do for me",
    QueueStatus.PHASE2: "Phase 2 to do: rate",
    QueueStatus.DISPUTED: "Disputed: the group decides",
    QueueStatus.DECIDED: "Decided",
    QueueStatus.UNDECIDED: "Undecided",
    QueueStatus.PROBLEMATIC: "Decided problematic",
    QueueStatus.NOTED: "With discussion notes",
    QueueStatus.NOVEL: "Novel",
    QueueStatus.REVIEWED: "Previously reviewed",
    QueueStatus.UNVOTED: "Unvoted by me",
    QueueStatus.VOTED: "Voted by me",
}


class QueueEvidence(StrEnum):
    """What the imported evidence sources must say of a mistake's prediction for the queue
    to show it (reviewer.evidence.evidence_by_pair), in the order the window lists them."""

    ANY = "any"
    ACCEPTED = "accepted"  # some source accepts the prediction
    DISPUTED = "disputed"  # sources disagree
    REJECTED = "rejected"  # every covering source rejects it
    UNCOVERED = "uncovered"  # no source covers the image

    @property
    def title(self) -> str:
        return _EVIDENCE_TITLES[self]

    def accepts(self, entry: QueueEntry) -> bool:
        match self:
            case QueueEvidence.ANY:
                return True
            case QueueEvidence.ACCEPTED:
                return entry.sources_accepting > 0
            case QueueEvidence.DISPUTED:
                return entry.sources_accepting > 0 and entry.sources_rejecting > 0
            case QueueEvidence.REJECTED:
                return entry.sources_rejecting > 0 and entry.sources_accepting == 0
            case QueueEvidence.UNCOVERED:
                return entry.sources_covering == 0


_EVIDENCE_TITLES = {
    QueueEvidence.ANY: "Any evidence",
    QueueEvidence.ACCEPTED: "Some source accepts it",
    QueueEvidence.DISPUTED: "Sources disagree",
    QueueEvidence.REJECTED: "Every covering source rejects it",
    QueueEvidence.UNCOVERED: "No source covers it",
}
_NO_DISTANCE = 1 << 30


class QueueSort(StrEnum):
    """The queue's order, in the order the window lists the choices; ties go by image."""

    IMAGE = "image"
    CONFIDENCE_DESC = "confidence_desc"
    CONFIDENCE_ASC = "confidence_asc"
    DISTANCE_ASC = "distance_asc"
    DISTANCE_DESC = "distance_desc"
    CLASS = "class"
    EVIDENCE = "evidence"
    INFORMATIVE = "informative"

    @property
    def title(self) -> str:
        return _SORT_TITLES[self]

    def key(self, entry: QueueEntry) -> tuple:
        """The entry's sort key in this order."""
        distance = entry.hierarchy_distance
        match self:
            case QueueSort.IMAGE:
                return entry.image_id, entry.predicted
            case QueueSort.CONFIDENCE_DESC:
                return -entry.probability, entry.image_id
            case QueueSort.CONFIDENCE_ASC:
                return entry.probability, entry.image_id
            case QueueSort.DISTANCE_ASC:  # unknown distances last
                return _NO_DISTANCE if distance is None else distance, entry.image_id
            case QueueSort.DISTANCE_DESC:
                return -(distance if distance is not None else -1), entry.image_id
            case QueueSort.CLASS:
                return entry.predicted, entry.image_id
            case QueueSort.EVIDENCE:
                return -entry.sources_accepting, entry.sources_rejecting, entry.image_id
            case QueueSort.INFORMATIVE:  # the chance the prediction is right nearest 0.5 (module docstring)
                chance = entry.probability if entry.consensus is None else entry.consensus
                # rounded: 0.55 and 0.45 are as near 0.5, whatever their binary floating-point forms
                return round(abs(chance - 0.5), 9), entry.consensus is None, entry.image_id, entry.predicted


_SORT_TITLES = {
    QueueSort.IMAGE: "Image order",
    QueueSort.CONFIDENCE_DESC: "Most confident first",
    QueueSort.CONFIDENCE_ASC: "Least confident first",
    QueueSort.DISTANCE_ASC: "Nearest in WordNet first",
    QueueSort.DISTANCE_DESC: "Farthest in WordNet first",
    QueueSort.CLASS: "Predicted class",
    QueueSort.EVIDENCE: "Most sources accepting first",
    QueueSort.INFORMATIVE: "Most informative next",
}


@dataclass(frozen=True)
class QueueEntry(StoredMistake):
    """One mistake of the run, with what the queue filters and shows on it besides the
    mistake itself: the panel's state of the item for this panelist (`state`)."""

    state: ItemState = ItemState()  # what changes while the panel works (the rest is the run's)
    # What the imported evidence sources say of the prediction (reviewer.evidence.evidence_by_pair):
    # how many accept it, how many reject it, how many have a row on the image.
    sources_accepting: int = 0
    sources_rejecting: int = 0
    sources_covering: int = 0
    consensus: float | None = None  # ReaL's raters' consensus that the prediction is in the image

    @property
    def my_verdict(self) -> str | None:
        return self.state.my_verdict

    @property
    def decided(self) -> bool:
        return self.state.decided

    @property
    def decision(self) -> DecidedValue | None:
        return self.state.decision

    @property
    def to_do(self) -> frozenset[int]:
        return self.state.to_do

    @property
    def stands_wrong(self) -> bool:
        return self.state.stands_wrong


@dataclass(frozen=True)
class QueueFilter:
    """Which mistakes the queue shows; None means "any"."""

    status: QueueStatus = QueueStatus.ALL
    classes: frozenset[int] | None = None  # any of these, predicted or labelled ("dog": every dog class)
    min_distance: int | None = None
    max_distance: int | None = None
    min_confidence: float | None = None
    max_confidence: float | None = None
    evidence: QueueEvidence = QueueEvidence.ANY
    sort: QueueSort = QueueSort.IMAGE

    def __post_init__(self) -> None:
        # A window's combo box or a command line hands the plain strings: each becomes its member.
        for name, vocabulary in (("status", QueueStatus), ("evidence", QueueEvidence), ("sort", QueueSort)):
            value = getattr(self, name)
            try:
                object.__setattr__(self, name, vocabulary(value))
            except ValueError:
                raise ValueError(f"queue {name} must be one of {', '.join(vocabulary)}, not {value!r}") from None

    def accepts(self, entry: QueueEntry) -> bool:
        if not self.status.accepts(entry):
            return False
        if self.classes is not None and entry.predicted not in self.classes \
                and entry.original_label not in self.classes:
            return False
        distance = entry.hierarchy_distance
        if self.min_distance is not None and (distance is None or distance < self.min_distance):
            return False
        if self.max_distance is not None and (distance is None or distance > self.max_distance):
            return False
        if self.min_confidence is not None and entry.probability < self.min_confidence:
            return False
        if self.max_confidence is not None and entry.probability > self.max_confidence:
            return False
        return self.evidence.accepts(entry)


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

    def row_of(self, key: Item) -> int | None:
        """The row of an item among the shown entries, or None when filtered out."""
        index = self._index_of.get(key)
        if index is None:
            return None
        try:
            return self._shown.index(index)
        except ValueError:
            return None

    def entry(self, key: Item) -> QueueEntry | None:
        index = self._index_of.get(key)
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

    def set_my_verdict(self, key: Item, verdict: str | None) -> None:
        """Record the panelist's verdict on an item; the shown rows stay as they are
        (an item voted away from "unvoted" stays until the filter is applied again,
        so the panelist can step back to it)."""
        index = self._index_of.get(key)
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


def load_queue(*, session: Session, run_id: int, panelist_id: int | None,
               queue_filter: QueueFilter | None = None) -> ReviewQueue:
    """The run's mistakes with the panelist's current verdicts and the decided items."""
    mistakes = stored_mistakes(session=session, run_id=run_id)
    snapshot = load_snapshot(session=session)
    states = _states(session, snapshot, [m.item for m in mistakes], panelist_id, notes=note_counts(session=session))
    evidence = evidence_by_pair(session, [(m.file_name, m.predicted) for m in mistakes])
    none = PairEvidence()
    entries = [QueueEntry(**vars(m), state=states.items[m.item],
                          **_evidence_counts(evidence.get((m.file_name, m.predicted), none))) for m in mistakes]
    parts = states.parts
    progress = empty_progress(snapshot)
    for part in parts.values():
        count_progress(progress, part)
    return ReviewQueue(run_id=run_id, panelist_id=panelist_id, entries=entries,
                       filter=queue_filter or QueueFilter(), progress=progress, _parts=parts)


def _evidence_counts(said: PairEvidence) -> dict[str, int]:
    return dict(sources_accepting=len(said.accepted_by), sources_rejecting=len(said.rejected_by),
                sources_covering=len(said.covered_by), consensus=said.consensus)


@dataclass(frozen=True)
class ItemStates:
    """The fresh state of a few items for a panelist, and their progress parts
    (`phases.item_progress`); `panelists` the ids the parts count."""

    items: dict[Item, ItemState]
    parts: dict[Item, ItemProgress]
    panelists: list[int]


def load_item_states(*, session: Session, panelist_id: int | None, items: list[Item]) -> ItemStates:
    """What `load_queue` says of these items only: a window re-reads the items a change
    record names in milliseconds, not the whole queue."""
    snapshot = load_snapshot(session=session, items=items)
    known = [i for i in items if i in snapshot.facts]
    return _states(session, snapshot, known, panelist_id, notes=note_counts(session=session, items=known))


def _states(session: Session, snapshot, items: list[Item], panelist_id: int | None, *,
            notes: dict[Item, int]) -> ItemStates:
    # A dispute is known once everyone voted, the viewer too; a viewer off a blind panel sees none.
    show_disputes = panelist_id in snapshot.panelist_ids or not read_rules(session).blind
    return ItemStates(
        {item: item_state(snapshot, item, panelist_id, notes=notes.get(item, 0), show_disputes=show_disputes)
         for item in items},
        {item: item_progress(snapshot, item) for item in items}, snapshot.panelist_ids)


def pending_items(*, session: Session, run_id: int | None = None) -> list[StoredMistake]:
    """The mistakes still to review: novel (no published review judged the prediction)
    and without a final decision; one per item (image, predicted class), the first
    run that made it; by run and file name."""
    decided = set(read_final_decisions(session=session))
    seen: set[Item] = set()
    out = []
    for m in sorted(stored_mistakes(session=session, run_id=run_id), key=lambda m: (m.run_id, m.file_name)):
        if m.novel and m.item not in decided and m.item not in seen:
            seen.add(m.item)
            out.append(m)
    return out


def rerun_summary(*, session: Session, run_id: int) -> dict:
    """How a run's mistakes split: total, already a wrong label of the image
    (annotated, or judged in a published review), already decided by the panel,
    and queued for review."""
    mistakes = stored_mistakes(session=session, run_id=run_id)
    decided = set(read_final_decisions(session=session))
    novel = [m for m in mistakes if m.novel]
    queued = sum(m.item not in decided for m in novel)
    return {"mistakes": len(mistakes), "known_wrong_label": len(mistakes) - len(novel),
            "decided": len(novel) - queued, "queued": queued}
