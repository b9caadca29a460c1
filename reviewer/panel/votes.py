"""Panelists' votes: append-only, attributed, undoable, blind by default.

A vote is on an *item*: one image and one predicted class (two models making
the same prediction on the same image ask the panel the same question). Each
act appends a row holding the panelist's complete vote after the act, so the
current vote is the latest row of (reviewer, item) and the history is the
rows in order. Undo appends a row restoring the state before the act it
reverses (`undoes` names that act), so undo too is history.

Every function commits before it returns: once a caller shows a vote as
recorded, it is on disk (SQLite FULL sync, or the PostgreSQL server).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from db.engine import read_session, with_retry
from db.tables import Reviewer, Vote
from reviewer.errors import UserError
from reviewer.project import Project
from reviewer.terms import CATEGORIES, SEVERITIES, VERDICTS

UNSET = object()


class VoteError(UserError):
    """A vote that cannot be recorded as asked (bad value, not one's own vote)."""


@dataclass(frozen=True)
class Item:
    image_id: int
    predicted: int


@dataclass(frozen=True)
class VoteState:
    verdict: str | None = None
    problematic: bool = False
    severity: str | None = None
    category: str | None = None
    oov_name: str | None = None
    note: str = ""

    @classmethod
    def of(cls, row: Vote | None) -> "VoteState":
        if row is None or row.retracted:
            return cls()
        return cls(**{f.name: getattr(row, f.name) for f in fields(cls)})

    @property
    def empty(self) -> bool:
        return self == VoteState()


def get_reviewer(project: Project, name: str, *, chair: bool | None = None) -> Reviewer:
    """The reviewer of that name, created on first use; `chair` sets the chair role."""
    name = name.strip()
    if not name:
        raise VoteError("a reviewer needs a name")

    def work(session: Session) -> Reviewer:
        row = session.execute(select(Reviewer).where(Reviewer.name == name)).scalar_one_or_none()
        if row is None:
            row = Reviewer(name=name, is_chair=bool(chair))
            session.add(row)
        elif chair is not None and row.is_chair != chair:
            row.is_chair = chair
            session.add(row)
        session.flush()
        return row

    try:
        return with_retry(project.engine, work)
    except IntegrityError:
        # Another process created the same name at the same moment (PostgreSQL
        # does not serialise the two inserts as SQLite's BEGIN IMMEDIATE does).
        return with_retry(project.engine, work)


def panelists(project: Project) -> list[Reviewer]:
    """The panel: every reviewer of the project (the chair votes too), by id."""
    with read_session(project.engine) as session:
        return list(session.execute(select(Reviewer).order_by(Reviewer.id)).scalars())


def _validate(state: VoteState) -> None:
    if state.verdict is not None and state.verdict not in VERDICTS:
        raise VoteError(f"verdict must be one of {', '.join(VERDICTS)}, not {state.verdict!r}")
    if state.severity is not None and state.severity not in SEVERITIES:
        raise VoteError(f"severity must be one of {', '.join(SEVERITIES)}, not {state.severity!r}")
    if state.category is not None and state.category not in CATEGORIES:
        raise VoteError(f"category must be one of {', '.join(CATEGORIES)}, not {state.category!r}")


def validate_fields(**fields) -> None:
    """Raise VoteError naming the first bad value among the fields of one act
    (verdict, severity, category), or a contradiction among them."""
    _validate(VoteState(**{k: v for k, v in fields.items() if k in ("verdict", "severity", "category")}))
    verdict = fields.get("verdict")
    if verdict not in (None, "wrong") and (fields.get("severity") or fields.get("category")):
        # Only within one act: a panelist whose earlier verdict was outvoted still rates phase 2.
        raise VoteError(f"severity and category describe a prediction judged wrong; leave them out of a "
                        f"{verdict!r} verdict")


def _latest_row(session: Session, reviewer_id: int, item: Item) -> Vote | None:
    return session.execute(
        select(Vote).where(Vote.reviewer_id == reviewer_id, Vote.image_id == item.image_id,
                           Vote.predicted == item.predicted).order_by(Vote.id.desc()).limit(1)
    ).scalar_one_or_none()


def cast_vote(project: Project, *, reviewer_id: int, image_id: int, predicted: int,
              verdict=UNSET, problematic=UNSET, severity=UNSET, category=UNSET, oov_name=UNSET,
              note=UNSET) -> Vote:
    """Record a panelist's vote (only the given fields change); returns the new row.

    The vote is the caller's own: `reviewer_id` is the panelist casting it.
    """
    changes = {k: v for k, v in dict(verdict=verdict, problematic=problematic, severity=severity,
                                       category=category, oov_name=oov_name, note=note).items() if v is not UNSET}
    item = Item(image_id, predicted)

    def work(session: Session) -> Vote:
        if session.get(Reviewer, reviewer_id) is None:
            raise VoteError(f"no reviewer with id {reviewer_id}")
        state = VoteState.of(_latest_row(session, reviewer_id, item))
        new = VoteState(**{**state.__dict__, **changes})
        _validate(new)
        if new.category != "fine_grained_oov":
            new = VoteState(**{**new.__dict__, "oov_name": None})
        row = Vote(image_id=image_id, predicted=predicted, reviewer_id=reviewer_id, **new.__dict__)
        session.add(row)
        session.flush()
        return row

    return with_retry(project.engine, work)


def amend_vote(project: Project, *, reviewer_id: int, vote_id: int, verdict=UNSET, problematic=UNSET,
               severity=UNSET, category=UNSET, oov_name=UNSET, note=UNSET) -> Vote:
    """Change the vote shown as row `vote_id` (e.g. in the group view): a new row
    for the same item, the old one kept. Only its own panelist may change it;
    the chair overrides the panel's *decision* instead (reviewer.panel.decisions).
    """
    with read_session(project.engine) as session:
        row = session.get(Vote, vote_id)
        actor = session.get(Reviewer, reviewer_id)
        owner = session.get(Reviewer, row.reviewer_id) if row is not None else None
    if row is None:
        raise VoteError(f"no vote with id {vote_id}")
    if actor is None:
        raise VoteError(f"no reviewer with id {reviewer_id}")
    if row.reviewer_id != reviewer_id:
        raise VoteError(f"{actor.name} cannot change {owner.name}'s vote: a panelist changes only their own "
                        "vote (the chair may override the final decision, with a reason)")
    return cast_vote(project, reviewer_id=reviewer_id, image_id=row.image_id, predicted=row.predicted,
                     verdict=verdict, problematic=problematic, severity=severity, category=category,
                     oov_name=oov_name, note=note)


def undo_last(project: Project, *, reviewer_id: int) -> Vote | None:
    """Reverse the panelist's latest act that is not yet undone; None if nothing to undo."""

    def work(session: Session) -> Vote | None:
        undone = select(Vote.undoes).where(Vote.reviewer_id == reviewer_id, Vote.undoes.is_not(None))
        act = session.execute(
            select(Vote).where(Vote.reviewer_id == reviewer_id, Vote.undoes.is_(None), Vote.id.not_in(undone))
            .order_by(Vote.id.desc()).limit(1)).scalar_one_or_none()
        if act is None:
            return None
        before = session.execute(
            select(Vote).where(Vote.reviewer_id == reviewer_id, Vote.image_id == act.image_id,
                               Vote.predicted == act.predicted, Vote.id < act.id)
            .order_by(Vote.id.desc()).limit(1)).scalar_one_or_none()
        state = VoteState.of(before)
        row = Vote(image_id=act.image_id, predicted=act.predicted, reviewer_id=reviewer_id,
                   retracted=state.empty, undoes=act.id, **state.__dict__)
        session.add(row)
        session.flush()
        return row

    return with_retry(project.engine, work)


def can_undo(project: Project, *, reviewer_id: int) -> bool:
    with read_session(project.engine) as session:
        undone = select(Vote.undoes).where(Vote.reviewer_id == reviewer_id, Vote.undoes.is_not(None))
        return session.execute(select(func.count(Vote.id)).where(
            Vote.reviewer_id == reviewer_id, Vote.undoes.is_(None), Vote.id.not_in(undone))).scalar_one() > 0


def current_vote(project: Project, *, reviewer_id: int, image_id: int, predicted: int) -> VoteState:
    with read_session(project.engine) as session:
        return VoteState.of(_latest_row(session, reviewer_id, Item(image_id, predicted)))


def current_votes(project: Project, *, image_id: int | None = None, predicted: int | None = None) -> list[Vote]:
    """The current (latest, not retracted) vote of every panelist, on one item or on all."""
    latest = select(func.max(Vote.id)).group_by(Vote.reviewer_id, Vote.image_id, Vote.predicted)
    if image_id is not None:
        latest = latest.where(Vote.image_id == image_id)
    if predicted is not None:
        latest = latest.where(Vote.predicted == predicted)
    with read_session(project.engine) as session:
        rows = session.execute(select(Vote).where(Vote.id.in_(latest.scalar_subquery()))
                               .order_by(Vote.image_id, Vote.predicted, Vote.reviewer_id)).scalars().all()
    return [r for r in rows if not r.retracted]


@dataclass(frozen=True)
class SeenVote:
    """Another panelist's current vote as a viewer may see it: in blind mode a
    field stays None until the viewer has voted that field themselves."""

    vote_id: int
    reviewer_id: int
    verdict: str | None
    problematic: bool | None
    severity: str | None
    category: str | None
    oov_name: str | None
    note: str | None
    created_at: datetime


def voted_fields(vote: Vote | VoteState | None) -> frozenset[str]:
    """The fields a vote has a value for (problematic goes with the verdict: it is
    part of the correctness vote)."""
    if vote is None or getattr(vote, "retracted", False):
        return frozenset()
    voted = {f for f in ("verdict", "severity", "category") if getattr(vote, f) is not None}
    if vote.verdict is not None or vote.problematic:
        voted.add("problematic")
    return frozenset(voted)


def seen_vote(vote: Vote, viewer_fields: frozenset[str] | None) -> SeenVote:
    """`vote` masked for a viewer who has voted `viewer_fields` (None: not blind)."""
    def show(field: str) -> bool:
        return viewer_fields is None or field in viewer_fields

    return SeenVote(
        vote_id=vote.id, reviewer_id=vote.reviewer_id,
        verdict=vote.verdict if show("verdict") else None,
        problematic=vote.problematic if show("problematic") else None,
        severity=vote.severity if show("severity") else None,
        category=vote.category if show("category") else None,
        oov_name=vote.oov_name if show("category") else None,
        # A note argues for the whole vote: shown once the viewer has voted at all.
        note=vote.note if viewer_fields is None or viewer_fields else None,
        created_at=vote.created_at)


def visible_votes(project: Project, *, viewer_id: int, image_id: int, predicted: int,
                  blind: bool = True) -> list[SeenVote] | None:
    """Others' current votes on an item as the viewer may see them.

    Blind mode: None (hidden) until the viewer has voted on the item; then
    each field of the others' votes shows once the viewer has voted that field
    (a verdict does not reveal the others' severity before one's own).
    """
    votes = current_votes(project, image_id=image_id, predicted=predicted)
    mine = next((v for v in votes if v.reviewer_id == viewer_id), None)
    viewer_fields = voted_fields(mine) if blind else None
    if blind and not viewer_fields:
        return None
    return [seen_vote(v, viewer_fields) for v in votes if v.reviewer_id != viewer_id]


def vote_history(project: Project, *, image_id: int, predicted: int) -> list[Vote]:
    """Every row ever written on an item, oldest first (who voted what, when)."""
    with read_session(project.engine) as session:
        return list(session.execute(select(Vote).where(Vote.image_id == image_id, Vote.predicted == predicted)
                                    .order_by(Vote.id)).scalars())
