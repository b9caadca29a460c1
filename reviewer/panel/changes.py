"""What other panelists did since a reviewer last looked: a cheap poll.

A window keeps a `Cursor` (the highest vote, decision and note ids it has
seen) and calls `changes_since` on a timer; each call reads only the rows
after the cursor (primary-key ranges) and the current votes of the items
they touch. Blind mode holds here too: activity on an item the viewer has
not voted on yet is not returned, only counted (`hidden`), and the others'
vote fields show only once the viewer has voted that field.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from db.engine import read_session
from db.tables import Decision, DiscussionNote, Vote
from reviewer.panel.votes import Item, SeenVote, seen_vote, voted_fields
from reviewer.project import Project


@dataclass(frozen=True)
class Cursor:
    vote_id: int = 0
    decision_id: int = 0
    note_id: int = 0


@dataclass(frozen=True)
class Changes:
    cursor: Cursor  # pass it to the next call
    items: frozenset[Item] = frozenset()  # items with news the viewer may see: refresh these
    votes: tuple[SeenVote, ...] = ()  # others' current votes on those items, as the viewer may see them
    decisions: tuple[Decision, ...] = ()
    notes: tuple[DiscussionNote, ...] = ()
    hidden: int = 0  # items with news the viewer may not see yet (blind)

    @property
    def empty(self) -> bool:
        return not self.items and not self.hidden


def latest_cursor(project: Project) -> Cursor:
    """The cursor of 'now': start polling from here when a window opens."""
    with read_session(project.engine) as session:
        return Cursor(session.execute(select(func.max(Vote.id))).scalar_one() or 0,
                      session.execute(select(func.max(Decision.id))).scalar_one() or 0,
                      session.execute(select(func.max(DiscussionNote.id))).scalar_one() or 0)


def changes_since(project: Project, *, viewer_id: int, cursor: Cursor | None = None,
                  blind: bool = True) -> Changes:
    """Others' votes, decisions and notes after `cursor` (None: from now on)."""
    if cursor is None:
        return Changes(cursor=latest_cursor(project))
    with read_session(project.engine) as session:
        new_votes = session.execute(select(Vote).where(Vote.id > cursor.vote_id).order_by(Vote.id)).scalars().all()
        new_decisions = session.execute(select(Decision).where(Decision.id > cursor.decision_id)
                                        .order_by(Decision.id)).scalars().all()
        new_notes = session.execute(select(DiscussionNote).where(DiscussionNote.id > cursor.note_id)
                                    .order_by(DiscussionNote.id)).scalars().all()
        touched = {Item(r.image_id, r.predicted) for r in [*new_votes, *new_decisions, *new_notes]
                   if getattr(r, "reviewer_id", None) != viewer_id}
        current: dict[Item, dict[int, Vote]] = {}
        if touched:
            images = sorted({i.image_id for i in touched})
            latest = (select(func.max(Vote.id)).where(Vote.image_id.in_(images))
                      .group_by(Vote.reviewer_id, Vote.image_id, Vote.predicted))
            for vote in session.execute(select(Vote).where(Vote.id.in_(latest.scalar_subquery()))).scalars():
                current.setdefault(Item(vote.image_id, vote.predicted), {})[vote.reviewer_id] = vote
    next_cursor = Cursor(max([cursor.vote_id, *(v.id for v in new_votes)]),
                         max([cursor.decision_id, *(d.id for d in new_decisions)]),
                         max([cursor.note_id, *(n.id for n in new_notes)]))
    visible: dict[Item, frozenset[str] | None] = {}
    hidden = 0
    for item in touched:
        fields = voted_fields(current.get(item, {}).get(viewer_id)) if blind else None
        if blind and not fields:
            hidden += 1
        else:
            visible[item] = fields
    changed_voters = {(Item(v.image_id, v.predicted), v.reviewer_id) for v in new_votes}
    votes = tuple(seen_vote(vote, visible[item]) for item in sorted(visible, key=lambda i: (i.image_id, i.predicted))
                  for rid, vote in sorted(current.get(item, {}).items())
                  if rid != viewer_id and (item, rid) in changed_voters and not vote.retracted)
    return Changes(
        cursor=next_cursor, items=frozenset(visible), votes=votes,
        decisions=tuple(d for d in new_decisions if Item(d.image_id, d.predicted) in visible),
        notes=tuple(n for n in new_notes if Item(n.image_id, n.predicted) in visible and n.reviewer_id != viewer_id),
        hidden=hidden)
