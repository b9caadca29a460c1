"""Which of a panelist's votes the chair's overrides contradict, and which of those are news to
him (issue 35, 4): the review page tells an overridden panelist at once, live while his window
is open, and on opening for the overrides made while it was closed.

An override contradicts a vote where it is the item's standing decision, made by someone else
(the chair is not told of her own), after the vote, and decides otherwise than the vote said:
the verdict, or a severity or category both gave.

"Not shown yet" is kept in the ledger, not on a machine: an override is news to the panelist
while it is newer than his last act on the panel (a vote, an undo or a discussion note, on any
item). Acting in the window means he has had it open since, where each override is told as it
arrives; one told and dismissed without a vote since is told again at the next opening, which
errs on the side of telling. No per-user file is needed, and the rule reads alike on every
machine he works from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

from sqlalchemy import func, select
from sqlmodel import Session

from db.tables import Decision, DiscussionNote, Vote
from reviewer.items import Item
from reviewer.panel.final import DecisionNote, decision_note, read_final_decisions
from reviewer.panel.state import DecidedHow, current_votes, decided_how
from reviewer.panel.votes import VoteState, panelist_names
from reviewer.terms import DecisionMethod


@dataclass(frozen=True)
class OverriddenVote:
    """The chair's override of one of the panelist's current votes, as he is told it."""

    item: Item
    decision: DecisionNote
    vote: VoteState
    decided_at: datetime


def contradicts(decision: DecisionNote | None, vote: VoteState | None) -> bool:
    """The override `decision` decides otherwise than `vote` said (a decision that is no
    override, or a vote without a verdict, contradicts nothing)."""
    if decision is None or decision.how != DecidedHow.OVERRIDE or vote is None or vote.verdict is None:
        return False
    return (vote.verdict != decision.verdict
            or bool(vote.severity and decision.severity and vote.severity != decision.severity)
            or bool(vote.category and decision.category and vote.category != decision.category))


def last_act_at(*, session: Session, panelist_id: int) -> datetime | None:
    """When the panelist last voted (or undid a vote) or wrote a discussion note; None: never."""
    times = [session.execute(select(func.max(table.created_at)).where(table.panelist_id == panelist_id)).scalar()
             for table in (Vote, DiscussionNote)]
    times = [t for t in times if t is not None]
    return max(times) if times else None


def overridden_votes(*, session: Session, panelist_id: int, items: Iterable[Item] | None = None,
                     newer_than: datetime | None = None) -> list[OverriddenVote]:
    """The chair's overrides that contradict the panelist's current votes (on `items` only, when
    given; made after `newer_than` only, when given), oldest first.

    Only an item with an override row by someone else can have one standing, so the items read
    are those first (a panel's overrides are few; its votes, thousands: opening the window of a
    panelist with 5,000 votes read every one of their decisions, 0.5 s, where none was an
    override)."""
    overridden = {Item(i, p) for i, p in session.execute(
        select(Decision.image_id, Decision.predicted).where(
            Decision.method == str(DecisionMethod.OVERRIDE),
            (Decision.decided_by != panelist_id) | Decision.decided_by.is_(None)).distinct())}
    wanted = overridden if items is None else overridden & {Item(*item) for item in items}
    if not wanted:
        return []
    rows = current_votes(session=session, panelist_id=panelist_id, image_ids={item.image_id for item in wanted})
    votes = {Item(row.image_id, row.predicted): row for row in rows if Item(row.image_id, row.predicted) in wanted}
    if not votes:
        return []
    decisions = read_final_decisions(session=session, items=list(votes))
    names = None
    found = []
    for item, decision in decisions.items():
        vote_row = votes.get(item)
        if (vote_row is None or decided_how(decision) != DecidedHow.OVERRIDE or decision.decided_by == panelist_id
                or decision.created_at < vote_row.created_at
                or (newer_than is not None and decision.created_at <= newer_than)):
            continue
        names = names if names is not None else panelist_names(session=session)
        note, vote = decision_note(decision, names), VoteState.of(vote_row)
        if contradicts(note, vote):
            found.append(OverriddenVote(item, note, vote, decision.created_at))
    return sorted(found, key=lambda o: (o.decided_at, o.item))


def overrides_not_shown(*, session: Session, panelist_id: int) -> list[OverriddenVote]:
    """The overrides of the panelist's votes made since his last act on the panel: what his
    window tells him on opening."""
    return overridden_votes(session=session, panelist_id=panelist_id,
                            newer_than=last_act_at(session=session, panelist_id=panelist_id))
