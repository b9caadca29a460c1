"""The panel's two phases and where the project stands.

Phase 1, correctness: every *novel* mistake (its prediction never reviewed
before) needs every panelist's verdict (correct / wrong / unclear) and
problematic flag. A mistake whose prediction was already judged wrong (a
wrong label of the image, or a published review) skips phase 1, but the
chair may reopen it, or any decided item (`reopen`, with a reason), which
puts it back to phase 1 and is recorded as a Decision row with method
"reopened".

Phase 2, severity and category: every mistake whose correctness stands as
wrong: already judged wrong, locked wrong by the chair, or voted wrong by
the whole panel unanimously.

In each phase an item is
- "voting": some panelist has not voted the phase's fields yet;
- "awaits_group": everyone has, but they differ on a field (the group meets);
- "decided": unanimous, or the chair locked a decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel import Session

from db.engine import DECISIONS, serialise
from db.tables import Decision
from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.chair import REOPENS, require_chair
from reviewer.panel.snapshot import PHASE_FIELDS, PanelSnapshot, load_snapshot
from reviewer.panel.state import is_settled
from reviewer.terms import DecisionMethod, Phase, StrEnum, Verdict


class PhaseStatus(StrEnum):
    """Where an item stands in one phase (module docstring); the names of `PhaseProgress`'s counts."""

    VOTING = "voting"
    AWAITS_GROUP = "awaits_group"
    DECIDED = "decided"



class PhaseError(UserError):
    """An act that does not fit the item's phase (e.g. reopening an open item)."""


def correctness(snapshot: PanelSnapshot, item: Item) -> str | None:
    """The item's verdict as it stands, or None while the panel has not settled it.

    A locked decision wins; then a prior judgement (not novel, never
    reopened); then a unanimous verdict of the whole panel.
    """
    locked = snapshot.locked(item)
    if locked is not None:
        return locked.verdict
    facts = snapshot.facts.get(item)
    latest = snapshot.decisions.get(item)
    if facts is not None and not facts.novel and (latest is None or is_settled(latest)):
        return Verdict.WRONG
    if snapshot.complete(item, "verdict"):
        values = set(snapshot.values(item, "verdict").values())
        if len(values) == 1:
            return values.pop()
    return None


def in_phase(snapshot: PanelSnapshot, item: Item, phase: Phase) -> bool:
    facts = snapshot.facts.get(item)
    if facts is None:
        return False
    if phase == Phase.CORRECTNESS:
        return facts.novel or item in snapshot.reopened
    return correctness(snapshot, item) == Verdict.WRONG


def phase_items(snapshot: PanelSnapshot, phase: Phase) -> list[Item]:
    """The items of a phase, in (image, predicted) order."""
    return [item for item in snapshot.items if in_phase(snapshot, item, phase)]


def unanimous(snapshot: PanelSnapshot, item: Item, name: str) -> bool | None:
    """True/False once every panelist has voted field `name`; None before."""
    return snapshot.unanimity(item, name)


def status(snapshot: PanelSnapshot, item: Item, phase: Phase) -> PhaseStatus:
    """VOTING, AWAITS_GROUP or DECIDED (`PhaseStatus`): the item's state in `phase`. Unanimous is
    DECIDED while the project's `unanimous_final` is on (reviewer.panel.final, the one
    meaning of decided); with it off a unanimous item awaits the chair's lock, as a
    split one awaits the group."""
    locked = snapshot.locked(item)
    if locked is not None and (phase == Phase.CORRECTNESS or locked.severity is not None or locked.category is not None):
        return PhaseStatus.DECIDED
    agreement = [unanimous(snapshot, item, name) for name in PHASE_FIELDS[phase]]
    if any(a is None for a in agreement):
        return PhaseStatus.VOTING
    return PhaseStatus.DECIDED if all(agreement) and snapshot.unanimous_final else PhaseStatus.AWAITS_GROUP


def unanimous_in(snapshot: PanelSnapshot, item: Item, phase: Phase) -> bool:
    """Every panelist voted the phase's fields, all alike (whatever the setting)."""
    return all(unanimous(snapshot, item, name) for name in PHASE_FIELDS[phase])


def has_voted(snapshot: PanelSnapshot, item: Item, panelist_id: int, phase: Phase) -> bool:
    return all(panelist_id in snapshot.values(item, name) for name in PHASE_FIELDS[phase])


def to_do(snapshot: PanelSnapshot, item: Item, panelist_id: int | None) -> frozenset[Phase]:
    """The phases in which the item waits for this panelist's vote: in the phase, not
    decided there, and the panelist has not voted the phase's fields (what `progress`
    counts as the panelist's "to do")."""
    if panelist_id is None:
        return frozenset()
    return frozenset(phase for phase in Phase if in_phase(snapshot, item, phase)
                     and status(snapshot, item, phase) != PhaseStatus.DECIDED
                     and not has_voted(snapshot, item, panelist_id, phase))


@dataclass
class PanelistProgress:
    panelist_id: int
    name: str
    done: int = 0  # items of the phase this panelist has voted
    to_do: int = 0  # items still waiting for this panelist's vote
    awaits_group: int = 0  # voted by all, not unanimous: this panelist's part of the meeting


@dataclass
class PhaseProgress:
    phase: Phase
    items: int = 0
    voting: int = 0
    awaits_group: int = 0
    decided: int = 0
    panelists: list[PanelistProgress] = field(default_factory=list)


@dataclass(frozen=True)
class PhasePart:
    """An item in one phase: its state there and the panelists who voted the phase's fields."""

    phase: Phase
    status: PhaseStatus
    voted: frozenset[int]


@dataclass(frozen=True)
class ItemProgress:
    """One item's part of `progress`: one `PhasePart` for each phase it is in."""

    phases: tuple[PhasePart, ...] = ()


def item_progress(snapshot: PanelSnapshot, item: Item) -> ItemProgress:
    return ItemProgress(tuple(
        PhasePart(phase, status(snapshot, item, phase),
                  frozenset(p.id for p in snapshot.panelists if has_voted(snapshot, item, p.id, phase)))
        for phase in Phase if in_phase(snapshot, item, phase)))


def empty_progress(snapshot: PanelSnapshot) -> list[PhaseProgress]:
    return [PhaseProgress(phase, panelists=[PanelistProgress(p.id, p.name) for p in snapshot.panelists])
            for phase in Phase]


def count_progress(reports: list[PhaseProgress], part: ItemProgress, sign: int = 1) -> None:
    """Add (sign 1) or take away (sign -1) an item's part in `reports` (phases 1 and 2; sign n:
    n items of the same part),
    so a window keeps the counts of thousands of items up to date item by item."""
    for phase_part in part.phases:
        report, state = reports[phase_part.phase - 1], phase_part.status
        report.items += sign
        setattr(report, state, getattr(report, state) + sign)
        for entry in report.panelists:
            if entry.panelist_id in phase_part.voted:
                entry.done += sign
                entry.awaits_group += sign * (state == PhaseStatus.AWAITS_GROUP)
            elif state != PhaseStatus.DECIDED:
                entry.to_do += sign  # as `to_do` says of the item


def progress(snapshot: PanelSnapshot, items=None) -> list[PhaseProgress]:
    """Where the project stands (or, given `items`, those of its items: a run's mistakes):
    per phase, per panelist, done / to do / awaiting the group."""
    reports = empty_progress(snapshot)
    # An item nobody has voted on or decided stands as its novelty alone says (phase 1 if novel,
    # else phase 2, voting, everyone to do): counted in bulk, so tens of thousands of untouched
    # items cost a dictionary lookup each, not a walk through the rules.
    untouched: dict[bool, list[Item]] = {True: [], False: []}
    for item in snapshot.facts if items is None else {i for i in items if i in snapshot.facts}:
        if item in snapshot.votes or item in snapshot.decisions or item in snapshot.reopened:
            count_progress(reports, item_progress(snapshot, item))
        else:
            untouched[snapshot.facts[item].novel].append(item)
    for group in untouched.values():
        if group:
            count_progress(reports, item_progress(snapshot, group[0]), sign=len(group))
    return reports


def reopen(*, session: Session, panelist_id: int, item: Item, reason: str) -> Decision:
    """Put a mistake judged wrong before (or decided) back to phase 1: the chair's act,
    with a reason (a panelist who lifted the chair's locks could empty the export).

    Recorded as a Decision row (method "reopened", no verdict, who and why),
    so the item's standing decision is lifted until the chair locks a new one.
    On a panel of database roles the server enforces the same (only a member of
    the chair's group role inserts decision rows, reviewer.panel.roles).
    """
    from reviewer.panel.lookup import image_names

    serialise(session, DECISIONS, 0)  # as the chair's locks: the standing decision read here stays so
    snapshot = load_snapshot(session=session)
    # The file name, as the user typed it, not the database id.
    image = image_names(session=session, image_ids=[item.image_id]).get(item.image_id, f"image {item.image_id}")
    if item not in snapshot.facts:
        raise PhaseError(f"{image} predicted {item.predicted} is not a mistake of any run of this project")
    if in_phase(snapshot, item, Phase.CORRECTNESS) and snapshot.locked(item) is None:
        from reviewer.panel.final import final_decision

        if final_decision(snapshot, item) is not None:
            raise PhaseError(f"{image} predicted {item.predicted} is decided by the whole panel's unanimous vote, "
                             "final by the panel's rule: override it (with a reason), or a panelist amends a vote")
        raise PhaseError(f"{image} predicted {item.predicted} is already open for the panel's correctness "
                         "vote; nothing to reopen")
    require_chair(session, panelist_id, REOPENS)
    if not reason or not reason.strip():
        raise PhaseError("reopening needs a reason (--reason): it is kept in the item's history")
    row = Decision(image_id=item.image_id, predicted=item.predicted, verdict=None, method=DecisionMethod.REOPENED,
                   reason=reason.strip(), decided_by=panelist_id)
    session.add(row)
    session.flush()
    return row
