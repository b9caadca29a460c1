"""The panel's current state, read one way: items, the latest row of each key,
and whether a decision settles its item.

Votes, decisions and notes are append-only: the current vote of a panelist
on an item is the latest vote row of (panelist, item), the item's decision
the latest decision row of the item. `latest_ids` is the one query for "the
latest row per key"; `is_settled` the one test of whether a decision stands
(a majority lock or an override does, a reopening does not); every reader
of decisions (the queue, the labels after review, the analysis, the export,
the split) goes through `reviewer.panel.final` (the one meaning of decided:
locked rows from `standing_decisions`, and a unanimous panel's votes), and a
decision is put into words by `describe_decision` alone.

Functions take the caller's session (`session=`): a screen or a report reads
one snapshot, an act writes in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from sqlalchemy import func, select
from sqlalchemy.sql import ColumnElement
from sqlmodel import Session, SQLModel

from db.tables import Decision, Vote
from reviewer.items import Item, item_of
from reviewer.terms import DecisionMethod, StrEnum


def latest_ids(table: type[SQLModel], *keys: ColumnElement, where: Iterable[ColumnElement] = ()):
    """A scalar subquery of the id of the latest row of `table` per `keys`."""
    return select(func.max(table.id)).where(*where).group_by(*keys).scalar_subquery()


def is_settled(decision: Decision | None) -> bool:
    """Whether a decision row stands as the item's final decision."""
    return decision is not None and DecisionMethod(decision.method).settles


# -- decisions -----------------------------------------------------------------------
class DecidedHow(StrEnum):
    """How an item's final decision came about (the export's manifest, the report)."""

    UNANIMOUS = "unanimous"
    MAJORITY = "majority"
    TIE_UNCLEAR = "tie_unclear"  # the verdicts were tied: 'unclear', the paper's rule
    OVERRIDE = "override"


def decided_how(decision: Decision) -> DecidedHow:
    """How `decision` came about. A majority lock whose verdict was tied reads
    'verdict: ... (tie)' in its reason (`decisions.Majority.describe`)."""
    if decision.method == DecisionMethod.UNANIMOUS:
        return DecidedHow.UNANIMOUS
    if decision.method == DecisionMethod.OVERRIDE:
        return DecidedHow.OVERRIDE
    verdict_part = (decision.reason or "").split(";")[0]
    if verdict_part.startswith("verdict:") and verdict_part.rstrip().endswith("(tie)"):
        return DecidedHow.TIE_UNCLEAR
    return DecidedHow.MAJORITY


def latest_decisions(*, session: Session, items: Iterable[Item] | None = None) -> dict[Item, Decision]:
    """The latest decision row of each item that has one (a reopening included)."""
    where = []
    if items is not None:
        wanted = list(items)
        if not wanted:
            return {}
        where.append(Decision.image_id.in_(sorted({i.image_id for i in wanted})))
    rows = session.execute(select(Decision).where(
        Decision.id.in_(latest_ids(Decision, Decision.image_id, Decision.predicted, where=where)))).scalars()
    found = {item_of(d): d for d in rows}
    return found if items is None else {i: found[i] for i in wanted if i in found}


def standing_decisions(*, session: Session, items: Iterable[Item] | None = None) -> dict[Item, Decision]:
    """The decision rows that stand (latest row of an item, when it settles it): the chair's
    locks and overrides. Not the final decisions, which also count a unanimous panel:
    `reviewer.panel.final.read_final_decisions`."""
    return {item: d for item, d in latest_decisions(session=session, items=items).items() if is_settled(d)}


def decision_history(*, session: Session, item: Item) -> list[Decision]:
    return list(session.execute(select(Decision).where(
        Decision.image_id == item.image_id, Decision.predicted == item.predicted).order_by(Decision.id)).scalars())


@dataclass(frozen=True)
class DecisionWords:
    """A decision put into words, in parts a view can style."""

    verdict: str | None  # None: reopened
    details: tuple[str, ...]  # severity, category, the object's name, "problematic"
    method: str  # HOW_WORDS ("unanimous", "majority, locked by the chair", ...) | "reopened for a correctness vote"
    reason: str


# How each way of deciding reads after the decision's values (`describe_decision`).
HOW_WORDS = {DecidedHow.UNANIMOUS: "unanimous", DecidedHow.MAJORITY: "majority, locked by the chair",
             DecidedHow.TIE_UNCLEAR: "'unclear' on a tie, locked by the chair",
             DecidedHow.OVERRIDE: "chair's override"}


def decision_words(decision: Decision) -> DecisionWords:
    if not is_settled(decision):
        return DecisionWords(None, (), "reopened for a correctness vote", decision.reason or "")
    details = tuple(str(getattr(decision, f)) for f in ("severity", "category", "oov_name") if getattr(decision, f))
    how = decided_how(decision)
    reason = decision.reason or ""
    if how == DecidedHow.UNANIMOUS:  # its reason, "unanimous: all 3 panelists", says how already
        reason = reason.removeprefix("unanimous: ")
    return DecisionWords(decision.verdict, details + (("problematic",) if decision.problematic else ()),
                         HOW_WORDS[how], reason)


def describe_decision(decision: Decision | None, *, full: bool = False) -> str:
    """A decision in words: '' (none), 'reopened', 'wrong (majority)'; with `full`, every
    field, how it was decided (`decided_how`, as the export's manifest says it) and why:
    'wrong, major, fine_grained (majority, locked by the chair): verdict: wrong 2, correct 1',
    'correct (unanimous): all 3 panelists'."""
    if decision is None:
        return ""
    words = decision_words(decision)
    if not full:
        return "reopened" if words.verdict is None else f"{words.verdict} ({decision.method})"
    head = words.method if words.verdict is None else ", ".join((words.verdict, *words.details)) + f" ({words.method})"
    return head + (f": {words.reason}" if words.reason else "")


# -- votes -----------------------------------------------------------------------------
def current_votes(*, session: Session, item: Item | None = None, panelist_id: int | None = None,
                  image_ids: Iterable[int] | None = None) -> list[Vote]:
    """The current (latest, not retracted) vote of every panelist: on one item, of one
    panelist, on some images, or all; ordered by item and panelist."""
    where = []
    if item is not None:
        where += [Vote.image_id == item.image_id, Vote.predicted == item.predicted]
    if panelist_id is not None:
        where.append(Vote.panelist_id == panelist_id)
    if image_ids is not None:
        where.append(Vote.image_id.in_(sorted(set(image_ids))))
    latest = latest_ids(Vote, Vote.panelist_id, Vote.image_id, Vote.predicted, where=where)
    rows = session.execute(select(Vote).where(Vote.id.in_(latest))
                           .order_by(Vote.image_id, Vote.predicted, Vote.panelist_id)).scalars().all()
    return [r for r in rows if not r.retracted]
