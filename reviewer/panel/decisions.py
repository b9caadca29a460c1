"""Final decisions: unanimity, the majority rule, locking and the chair's override.

The rule, applied to the latest vote of every panelist:
- verdict: the most voted verdict; a tie between the top verdicts gives
  "unclear" (the paper's rule);
- problematic: flagged only when more than half of the votes flag it, so a
  tie leaves the image in the evaluation;
- severity (ordinal, minor < major): the most voted; a tie gives "major", the
  cautious side: a mistake half the panel calls major stays in the
  major-error split until the chair decides otherwise;
- category: the most voted; a tie gives no category (None) and is reported
  as a tie, since categories have no order to break it; the chair overrides.
Severity and category describe a mistake judged wrong; a decision with any
other verdict records neither.

A lock settles severity and category only once every panelist has rated
both (the chair's override, with a reason, is the other way): locking a
phase-1 verdict "wrong" before that records the verdict alone, and the item
goes on to phase 2 for everyone's ratings. The later phase-2 lock appends a
row that keeps the standing verdict and problematic flag and adds severity
and category, so the latest row is always the whole decision.

Only the chair (Panelist.is_chair; reviewer.panel.chair.require_chair) locks: `lock_decision` appends a Decision
row with method "majority" (its reason lists the counts); `override_decision`
appends one with method "override" and the chair's reason. Votes are never
touched by either: the history keeps who voted what and what the chair did.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from sqlalchemy import func, select
from sqlmodel import Session

from db.engine import DECISIONS, serialise
from db.tables import Decision, Image, Mistake, Panelist, Vote
from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.chair import LOCKS, require_chair
from reviewer.panel.phases import PhaseStatus, in_phase, status, unanimous_in
from reviewer.panel.snapshot import FIELDS, PanelSnapshot, field_value, load_snapshot
from reviewer.panel.state import current_votes, decision_history, is_settled
from reviewer.panel.votes import check_fields, check_text, panelists
from reviewer.terms import Category, DecisionMethod, Phase, Severity, Verdict


class DecisionError(UserError):
    """A decision that cannot be recorded: not the chair, no votes, no reason, ..."""


class OverrideInTheWay(DecisionError):
    """A majority lock would replace the chair's standing override (or the override the item
    had before it was reopened): the chair must say so (`force`, or the window's confirmation)."""

    def __init__(self, message: str, *, item: Item, override: Decision, replacement: dict):
        super().__init__(message)
        self.item, self.override, self.replacement = item, override, replacement


class Locked(list):
    """What `lock_all` locked (a list of Decision rows), and in `kept` the items it left
    alone because their lock would replace an override (OverrideInTheWay each)."""

    def __init__(self, rows=(), kept=()):
        super().__init__(rows)
        self.kept: list[OverrideInTheWay] = list(kept)


@dataclass(frozen=True)
class Majority:
    verdict: str | None
    problematic: bool
    severity: str | None
    category: str | None
    oov_name: str | None
    counts: dict[str, dict]  # field -> {value: number of votes}
    ties: tuple[str, ...]  # fields whose top values were tied

    def describe(self, fields: Iterable[str] = FIELDS) -> str:
        """'verdict: wrong 2, correct 1; problematic: no 3; ...' for the decision's reason
        (only `fields`: the ones the lock settles)."""
        parts = []
        for name in fields:
            cells = ", ".join(f"{_show(v)} {n}" for v, n in sorted(self.counts.get(name, {}).items(),
                                                                   key=lambda kv: (-kv[1], str(kv[0]))))
            if cells:
                parts.append(f"{name}: {cells}" + (" (tie)" if name in self.ties else ""))
        return "; ".join(parts)


def _show(value) -> str:
    return {True: "yes", False: "no"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def _top(counts: Counter) -> tuple[list, int]:
    if not counts:
        return [], 0
    best = max(counts.values())
    return [v for v, n in counts.items() if n == best], best


def majority_of(votes: Iterable[Vote]) -> Majority:
    """The majority rule (module docstring) over the given current votes."""
    votes = sorted(votes, key=lambda v: v.id or 0)
    counts = {name: Counter(field_value(v, name) for v in votes if field_value(v, name) is not None)
              for name in FIELDS}
    ties = []
    top, _ = _top(counts["verdict"])
    verdict = top[0] if len(top) == 1 else (Verdict.UNCLEAR if top else None)
    if len(top) > 1:
        ties.append("verdict")
    flags = counts["problematic"]
    problematic = flags[True] * 2 > flags[True] + flags[False]
    if flags and flags[True] * 2 == flags[True] + flags[False]:
        ties.append("problematic")
    top, _ = _top(counts["severity"])
    severity = top[0] if len(top) == 1 else (Severity.MAJOR if top else None)
    if len(top) > 1:
        ties.append("severity")
    top, _ = _top(counts["category"])
    category = top[0] if len(top) == 1 else None
    if len(top) > 1:
        ties.append("category")
    oov_name = None
    if category is not None and Category(category).needs_name:
        names = Counter(v.oov_name for v in votes if v.category == category and v.oov_name)
        # Most common name; on a tie the earliest vote's (Counter keeps insertion order).
        oov_name = names.most_common(1)[0][0] if names else None
    return Majority(verdict, problematic, severity, category, oov_name,
                    {k: dict(c) for k, c in counts.items() if c}, tuple(ties))


# -- reading ------------------------------------------------------------------
def field_unanimity(snapshot: PanelSnapshot, item: Item) -> dict[str, bool | None]:
    """Per field: True (all panelists voted the same), False (they differ), None (not all voted)."""
    out = {}
    for name in FIELDS:
        values = snapshot.values(item, name)
        complete = bool(snapshot.panelists) and all(p.id in values for p in snapshot.panelists)
        out[name] = (len(set(values.values())) == 1) if complete else None
    return out


def non_unanimous_items(snapshot: PanelSnapshot, *, fields: Iterable[str] = FIELDS) -> list[Item]:
    """The items every panelist has voted on a field of `fields` and disagree on it:
    what the group meets about. Items not yet voted by all stay out (and so
    nobody sees a vote on an item they have not voted)."""
    fields = tuple(fields)
    return [item for item in snapshot.items
            if any(field_unanimity(snapshot, item)[name] is False for name in fields)]


# -- writing ------------------------------------------------------------------
def _carried_verdict(session: Session, item: Item, decisions: list[Decision]) -> tuple[str | None, bool]:
    """(verdict that stands without the panel's vote, whether the item is in phase 1)."""
    novel = session.execute(select(func.count(Mistake.id)).where(
        Mistake.image_id == item.image_id, Mistake.predicted == item.predicted, Mistake.novel.is_(False))
    ).scalar_one() == 0
    reopened = any(not is_settled(d) for d in decisions)
    latest = decisions[-1] if decisions else None
    if is_settled(latest):
        return latest.verdict, novel or reopened
    if not novel and latest is None:
        return Verdict.WRONG, False
    return None, True


def _voted_by_all(session: Session, votes: list[Vote], fields: tuple[str, ...]) -> tuple[bool, list[str]]:
    """(every panelist has voted all `fields`, names of those who have not)."""
    voted = {v.panelist_id for v in votes if all(field_value(v, name) is not None for name in fields)}
    panel = [(r.id, r.name) for r in panelists(session=session)]  # those revoked no longer count
    missing = [name for rid, name in panel if rid not in voted]
    return bool(panel) and not missing, missing


def _item_name(session: Session, item: Item) -> str:
    """'ILSVRC2012_val_00001529.JPEG predicted 304': how a user names the item."""
    image = session.get(Image, item.image_id)
    return f"{image.file_name if image else f'image {item.image_id}'} predicted {item.predicted}"


def _have(missing: list[str]) -> str:
    return f"{', '.join(missing)} {'has' if len(missing) == 1 else 'have'}"


def _last_override(history: list[Decision]) -> Decision | None:
    """The override that stands, or stood until the item was reopened (None when the last
    settled decision is not an override)."""
    settled = [d for d in history if is_settled(d)]
    return settled[-1] if settled and settled[-1].method == DecisionMethod.OVERRIDE else None


def _replaced_fields(override: Decision, new: dict) -> dict:
    """The fields the override set that `new` would change (a field the override left
    empty, e.g. severity of an override awaiting phase 2, is filled in, not replaced)."""
    out = {}
    for name in ("verdict", "problematic", "severity", "category", "oov_name"):
        old = getattr(override, name)
        if name not in ("verdict", "problematic") and old is None:
            continue
        if new[name] != old:
            out[name] = (old, new[name])
    return out


def lock_decision(*, session: Session, chair_id: int, item: Item, force: bool = False) -> Decision:
    """The chair locks the majority of the latest votes as the item's final decision.

    A lock never silently replaces the chair's override: when the item's last settled
    decision is an override (standing, or lifted by a reopening) and the lock would
    change a field it set, OverrideInTheWay says what it would replace, unless `force`.

    The verdict and problematic flag: the majority of the verdicts once every
    panelist has voted one (a
    new lock follows a changed majority), except that a standing override,
    or a standing "wrong" lock still waiting for phase 2, is kept. Severity
    and category: the majority once every panelist has rated both, else
    those of the standing decision (none before phase 2 is settled).
    """
    serialise(session, DECISIONS, 0)  # the standing decision read below is still standing when we write
    row = plan_lock(session=session, chair_id=chair_id, item=item, force=force)
    session.add(row)
    session.flush()
    return row


def plan_lock(*, session: Session, chair_id: int, item: Item, force: bool = False) -> Decision:
    """The Decision row `lock_decision` would append, unsaved: what the window shows the
    chair before the lock (majority, 'unclear' on a tie, problematic by majority, and in
    the reason the counts and ties). Raises as `lock_decision` does."""
    image_id, predicted = item
    name = _item_name(session, item)
    require_chair(session, chair_id, LOCKS)
    votes = current_votes(session=session, item=item)
    history = decision_history(session=session, item=item)
    carried, phase_1 = _carried_verdict(session, item, history)
    standing = history[-1] if history and is_settled(history[-1]) else None
    majority = majority_of(votes)
    rated, missing = _voted_by_all(session, votes, ("severity", "category"))
    phase_2_open = (standing is not None and standing.verdict == Verdict.WRONG
                    and standing.severity is None and standing.category is None)
    keep = standing is not None and (standing.method == DecisionMethod.OVERRIDE or phase_2_open)
    settled: list[str] = []
    if keep:
        verdict, problematic = standing.verdict, standing.problematic
    else:
        if phase_1 and majority.verdict is not None:
            everyone, absent = _voted_by_all(session, votes, ("verdict",))
            if not everyone:
                raise DecisionError(f"{name}: not every panelist has voted: "
                                    f"{_have(absent)} not voted a verdict (the chair may override, with a "
                                    "reason)")
        # Outside phase 1 the verdict is not up for a vote (reopen the item to vote it).
        verdict = majority.verdict if phase_1 and majority.verdict is not None else carried
        problematic = majority.problematic
        settled += ["verdict", "problematic"] if phase_1 and majority.verdict is not None else []
    if verdict is None:
        raise DecisionError(f"{name}: no panelist has voted a verdict yet")
    wrong = verdict == Verdict.WRONG
    if wrong and rated:
        severity, category, oov_name = majority.severity, majority.category, majority.oov_name
        settled += ["severity", "category"]
    elif wrong and standing is not None and standing.verdict == Verdict.WRONG:
        severity, category, oov_name = standing.severity, standing.category, standing.oov_name
    else:
        severity = category = oov_name = None
    if not settled and not wrong:
        raise DecisionError(f"{name}: the chair's override ({verdict}) stands; "
                            "override again, or reopen the item for a new vote")
    if not settled:
        raise DecisionError(f"{name}: nothing to lock yet: "
                            f"{_have(missing)} not rated severity and category (the chair may override, "
                            "with a reason)")
    override = _last_override(history)
    new = dict(verdict=verdict, problematic=problematic, severity=severity, category=category, oov_name=oov_name)
    replaced = _replaced_fields(override, new) if override is not None else {}
    if replaced and not force:
        by = session.get(Panelist, override.decided_by)
        change = "; ".join(f"{k} {_show(a) if a is not None else '-'} -> {_show(b) if b is not None else '-'}"
                           for k, (a, b) in replaced.items())
        raise OverrideInTheWay(
            f"{name}: the majority would replace the chair's override ({override.verdict}, by "
            f"{by.name if by else '?'}: {override.reason!r}): {change}; lock it with --force (the window asks) "
            "to replace it, or override again", item=item, override=override, replacement=new)
    return Decision(image_id=image_id, predicted=predicted, verdict=verdict, problematic=problematic,
                    severity=severity, category=category, oov_name=oov_name,
                    method=DecisionMethod.MAJORITY, reason=majority.describe(settled), decided_by=chair_id)


def check_override(*, verdict: str | None, reason: str, severity: str | None = None,
                   category: str | None = None) -> None:
    """DecisionError when an override cannot be recorded as given (checked before any work)."""
    if not reason or not reason.strip():
        raise DecisionError("an override needs a reason (it is kept in the item's history)")
    if verdict is None:
        raise DecisionError("an override needs the decision's verdict")
    check_fields(verdict=verdict, severity=severity, category=category, error=DecisionError)


def override_decision(*, session: Session, chair_id: int, item: Item, verdict: str, reason: str,
                      problematic: bool = False, severity: str | None = None, category: str | None = None,
                      oov_name: str | None = None) -> Decision:
    """The chair sets the final decision against the majority; the reason is required and kept."""
    check_override(verdict=verdict, reason=reason, severity=severity, category=category)
    check_text(note=reason, oov_name=oov_name, error=DecisionError)  # what PostgreSQL would refuse
    serialise(session, DECISIONS, 0)
    require_chair(session, chair_id, LOCKS)
    named = category is not None and Category(category).needs_name
    row = Decision(image_id=item.image_id, predicted=item.predicted, verdict=verdict, problematic=bool(problematic),
                   severity=severity, category=category, oov_name=oov_name if named else None,
                   method=DecisionMethod.OVERRIDE, reason=reason.strip(), decided_by=chair_id)
    session.add(row)
    session.flush()
    return row


def lockable_items(snapshot: PanelSnapshot, *, unanimous_only: bool = False) -> list[Item]:
    """Items fully voted in their current phase and without a decision for it yet."""
    out = []
    for item in snapshot.items:
        for phase in Phase:
            if not in_phase(snapshot, item, phase):
                continue
            state = status(snapshot, item, phase)
            locked = snapshot.locked(item)
            locked_here = locked is not None and (phase == Phase.CORRECTNESS or locked.severity is not None
                                                  or locked.category is not None)
            wanted = (unanimous_in(snapshot, item, phase) if unanimous_only
                      else state in (PhaseStatus.DECIDED, PhaseStatus.AWAITS_GROUP))
            if state != PhaseStatus.VOTING and wanted and not locked_here:
                out.append(item)
                break
    return out


def lock_all(*, session: Session, chair_id: int, unanimous_only: bool = False, force: bool = False) -> Locked:
    """Lock the majority decision of every fully voted item not yet decided (one transaction:
    all of them, or none). An item whose lock would replace an override is left alone
    (listed in the result's `kept`) unless `force`."""
    require_chair(session, chair_id, LOCKS)  # even with nothing to lock, a panelist is told so
    serialise(session, DECISIONS, 0)
    snapshot = load_snapshot(session=session)
    rows, kept = [], []
    for item in lockable_items(snapshot, unanimous_only=unanimous_only):
        try:
            rows.append(lock_decision(session=session, chair_id=chair_id, item=item, force=force))
        except OverrideInTheWay as exc:
            kept.append(exc)
    return Locked(rows, kept)
