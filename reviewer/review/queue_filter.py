"""What the review queue shows and in what order: the filter's and the sort's vocabularies and
`QueueFilter`, which holds a choice of each.

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

from dataclasses import dataclass, field

from reviewer.panel.standing import Standing
from reviewer.review.queue_entry import QueueEntry
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
            case QueueStatus.DISPUTED:  # the standing the header counts (reviewer.panel.standing): one of the two
                return state.standing == Standing.DISPUTED
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
    # What was read otherwise than given, in words the window shows ("Distance 5 to 2 read as 2 to 5").
    notes: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        # A window's combo box or a command line hands the plain strings: each becomes its member.
        for name, vocabulary in (("status", QueueStatus), ("evidence", QueueEvidence), ("sort", QueueSort)):
            value = getattr(self, name)
            try:
                object.__setattr__(self, name, vocabulary(value))
            except ValueError:
                raise ValueError(f"queue {name} must be one of {', '.join(vocabulary)}, not {value!r}") from None
        # A range given upside down (5 to 2) would show no mistake at all, silently: it is read the right way
        # up, and said so.
        notes = []
        for low, high, what, shown in (("min_distance", "max_distance", "Distance", str),
                                       ("min_confidence", "max_confidence", "Confidence", "{:.0%}".format)):
            bottom, top = getattr(self, low), getattr(self, high)
            if bottom is not None and top is not None and bottom > top:
                object.__setattr__(self, low, top)
                object.__setattr__(self, high, bottom)
                notes.append(f"{what} {shown(bottom)} to {shown(top)} read as {shown(top)} to {shown(bottom)}")
        object.__setattr__(self, "notes", tuple(notes))

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
