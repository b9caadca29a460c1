"""The panel's acts and reads for any front end: one function per user act, each
one unit of work, returning what it made and what changed (`changes.Done`).

A thin layer over `reviewer.panel`: the window calls these from its worker
threads, the command line from a command; both get the same rules, the same
transaction boundaries and the same change records. A batch of votes is one
transaction: all of it is recorded, or none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from sqlalchemy.exc import IntegrityError

from db.tables import Decision, DiscussionNote, Reviewer, Vote
from reviewer.app.changes import Changes, Cursor, Done, changes_since, latest_cursor
from reviewer.items import Item
from reviewer.panel import decisions as decisions_mod
from reviewer.panel.discussion import add_note
from reviewer.panel.group import AgreementSummary, GroupState, ItemPanel, agreement_summary, item_panel, load_group
from reviewer.panel.identity import IdentityError, uses_database_roles
from reviewer.panel.phases import reopen
from reviewer.panel.snapshot import PanelSnapshot
from reviewer.panel.votes import (
    SeenVote,
    VoteState,
    amend_vote,
    can_undo,
    cast_vote,
    current_vote,
    get_reviewer,
    reviewer_names,
    undo_last,
    visible_votes,
)
from reviewer.project import Project


def _voted(items: Iterable[Item]) -> Changes:
    return Changes(items=frozenset(items), votes=True)


# -- panelists -------------------------------------------------------------------------
def add_panelist(project: Project, name: str, *, chair: bool | None = None) -> Done[Reviewer]:
    """The panelist of that name, created on first use; `chair` makes them the one chair.
    On a panel of database roles the panel is the owner's to change (`reviewer panel-setup`)."""
    def work(session):
        if uses_database_roles(session):
            raise IdentityError("this project's panelists are database roles: its owner adds panelists and "
                                "names the chair with 'reviewer panel-setup PROJECT --chair NAME --panelist NAME'")
        return get_reviewer(session=session, name=name, chair=chair)

    return Done(_write_once(project, work), Changes(panel=True))


def join_panel(project: Project, name: str, *, join: bool = False) -> Done[Reviewer]:
    """The panelist the window acts as (reviewer.panel.membership.enter_panel): the panelist
    of that name, or the connection's role on a panel of database roles; a new name only
    with `join` on an open panel (NotOnPanel says so, and whether it may join)."""
    from reviewer.panel.membership import enter_panel

    return Done(_write_once(project, lambda session: enter_panel(session=session, name=name, join=join)),
                Changes(panel=True))


def panel_rules(project: Project):
    """The panel's rules in force (reviewer.panel.rules)."""
    from reviewer.panel.rules import read_rules

    with project.read() as session:
        return read_rules(session)


def set_panel_rules(project: Project, *, chair_id: int, **changes: bool):
    """The chair sets the panel's rules (blind, unanimous_final, panel_closed)."""
    from reviewer.panel.rules import set_rules

    rules = project.write(lambda s: set_rules(s, chair_id=chair_id, **changes))
    return Done(rules, Changes(panel=True, decisions=True))


def _write_once(project: Project, work):
    try:
        return project.write(work)
    except IntegrityError:
        # Another process created the same name at the same moment (PostgreSQL does not
        # serialise the two inserts as SQLite's BEGIN IMMEDIATE does): it exists now.
        return project.write(work)


def names(project: Project) -> dict[int, str]:
    """{reviewer id: name} of the panel."""
    with project.read() as session:
        return reviewer_names(session=session)


# -- votes -----------------------------------------------------------------------------
def vote(project: Project, *, reviewer_id: int, item: Item, **fields) -> Done[Vote]:
    """Record a change to the panelist's own vote on an item."""
    row = project.write(lambda s: cast_vote(session=s, reviewer_id=reviewer_id, item=item, **fields))
    return Done(row, _voted([item]))


def vote_batch(project: Project, *, reviewer_id: int, votes: list[tuple[Item, dict]]) -> Done[list[Vote]]:
    """Record many votes of one panelist in one transaction: every one, or none."""
    def work(session):
        return [cast_vote(session=session, reviewer_id=reviewer_id, item=item, **fields) for item, fields in votes]

    rows = project.write(work)
    return Done(rows, _voted(item for item, _ in votes))


def amend(project: Project, *, reviewer_id: int, vote_id: int, **fields) -> Done[Vote]:
    """Change the vote shown as row `vote_id` (one's own only), checked and written at once."""
    row = project.write(lambda s: amend_vote(session=s, reviewer_id=reviewer_id, vote_id=vote_id, **fields))
    return Done(row, _voted([Item(row.image_id, row.predicted)]))


def undo(project: Project, *, reviewer_id: int) -> Done[Vote | None]:
    """Reverse the panelist's latest act not yet undone (None: nothing to undo)."""
    row = project.write(lambda s: undo_last(session=s, reviewer_id=reviewer_id))
    return Done(row, _voted([Item(row.image_id, row.predicted)]) if row is not None else Changes())


def undo_available(project: Project, *, reviewer_id: int) -> bool:
    with project.read() as session:
        return can_undo(session=session, reviewer_id=reviewer_id)


def my_vote(project: Project, *, reviewer_id: int, item: Item) -> VoteState:
    with project.read() as session:
        return current_vote(session=session, reviewer_id=reviewer_id, item=item)


def decision_of(project: Project, *, item: Item):
    """The item's final decision as a panelist is told it (reviewer.panel.final.DecisionNote), or None."""
    from reviewer.panel.final import decision_note, read_final_decisions

    with project.read() as session:
        decision = read_final_decisions(session=session, items=[item]).get(item)
        return None if decision is None else decision_note(decision, reviewer_names(session=session))


def item_votes(project: Project, *, viewer_id: int, item: Item, blind: bool = True
               ) -> tuple[VoteState, list[SeenVote] | None]:
    """(the viewer's own vote, the others' as the viewer may see them) from one snapshot."""
    with project.read() as session:
        return (current_vote(session=session, reviewer_id=viewer_id, item=item),
                visible_votes(session=session, viewer_id=viewer_id, item=item, blind=blind))


def others(project: Project, *, viewer_id: int, item: Item, blind: bool = True) -> list[SeenVote] | None:
    with project.read() as session:
        return visible_votes(session=session, viewer_id=viewer_id, item=item, blind=blind)


# -- discussion and decisions ------------------------------------------------------------
def note(project: Project, *, reviewer_id: int, item: Item, text: str) -> Done[DiscussionNote]:
    row = project.write(lambda s: add_note(session=s, reviewer_id=reviewer_id, item=item, text=text))
    return Done(row, Changes(items=frozenset([item]), notes=True))


def reopen_item(project: Project, *, reviewer_id: int, item: Item, reason: str) -> Done[Decision]:
    """The chair reopens a decided item (reviewer.panel.phases.reopen)."""
    row = project.write(lambda s: reopen(session=s, reviewer_id=reviewer_id, item=item, reason=reason))
    return Done(row, Changes(items=frozenset([item]), decisions=True))


def lock(project: Project, *, chair_id: int, item: Item, force: bool = False) -> Done[Decision]:
    row = project.write(lambda s: decisions_mod.lock_decision(session=s, chair_id=chair_id, item=item, force=force))
    return Done(row, Changes(items=frozenset([item]), decisions=True))


@dataclass(frozen=True)
class LockPreview:
    """What a lock would record, in words for the chair's confirmation."""

    text: str  # 'unclear (the verdicts tie: ...) · not problematic'
    replaces: str | None = None  # the override it would replace (then the chair must say so: force)


def lock_preview(project: Project, *, chair_id: int, item: Item) -> LockPreview:
    """The decision a lock of `item` would record now (reviewer.panel.decisions.plan_lock),
    and the override it would replace, if any."""
    from reviewer.panel.decisions import OverrideInTheWay, plan_lock

    with project.read() as session:
        try:
            row, replaces = plan_lock(session=session, chair_id=chair_id, item=item), None
        except OverrideInTheWay as exc:
            row, replaces = plan_lock(session=session, chair_id=chair_id, item=item, force=True), str(exc)
    parts = {p.split(":")[0].strip(): p for p in (row.reason or "").split(";") if ":" in p}
    tied = {name for name, p in parts.items() if p.rstrip().endswith("(tie)")}
    head = f"Lock “{row.verdict}”" + (" (the verdicts tie: 'unclear', the paper's rule)" if "verdict" in tied else "")
    details = [(f"severity {row.severity}" + (" (a tie: major, the cautious side)" if "severity" in tied else ""))
               if row.severity else "",
               f"category {row.category}" if row.category else
               ("no category (a tie: categories have no order; override to choose one)" if "category" in tied else ""),
               "problematic (by majority)" if row.problematic else "not problematic"]
    from reviewer.panel.state import standing_decisions

    with project.read() as session:
        standing = standing_decisions(session=session, items=[item]).get(item)
    if standing is not None and standing.method == "majority" and (standing.verdict, standing.severity,
                                                                   standing.category) == (row.verdict, row.severity,
                                                                                          row.category):
        head = "Already locked as this. " + head
    text = head + " · " + " · ".join(d for d in details if d) + (f"\nVotes: {row.reason}" if row.reason else "")
    return LockPreview(text=text, replaces=replaces)


def lock_all(project: Project, *, chair_id: int, unanimous_only: bool = False,
             force: bool = False) -> Done[list[Decision]]:
    """Lock every fully voted undecided item, in one transaction (items whose lock would
    replace an override are left alone unless `force`: the result's `kept`)."""
    rows = project.write(lambda s: decisions_mod.lock_all(session=s, chair_id=chair_id,
                                                          unanimous_only=unanimous_only, force=force))
    return Done(rows, Changes(items=frozenset(Item(r.image_id, r.predicted) for r in rows), decisions=bool(rows)))


def override(project: Project, *, chair_id: int, item: Item, **decision) -> Done[Decision]:
    row = project.write(lambda s: decisions_mod.override_decision(session=s, chair_id=chair_id, item=item,
                                                                  **decision))
    return Done(row, Changes(items=frozenset([item]), decisions=True))


# -- the group view -------------------------------------------------------------------------
def group_state(project: Project, *, viewer_id: int, field: str | None = None,
                pair: tuple[int, int] | None = None) -> GroupState:
    """What the group view lists."""
    with project.read() as session:
        return load_group(session=session, viewer_id=viewer_id, field=field, pair=pair)


def group_item(project: Project, *, snapshot: PanelSnapshot, item: Item, viewer_id: int) -> ItemPanel:
    with project.read() as session:
        return item_panel(session=session, snapshot=snapshot, item=item, viewer_id=viewer_id)


def agreement(project: Project, *, resamples: int = 1000, seed: int = 0) -> AgreementSummary:
    with project.read() as session:
        return agreement_summary(session=session, resamples=resamples, seed=seed)


def poll(project: Project, *, cursor: Cursor, known_votes: frozenset[int] = frozenset()) -> tuple[Changes, Cursor]:
    """What anyone did after `cursor` (`changes.changes_since`)."""
    with project.read() as session:
        return changes_since(session=session, cursor=cursor, known_votes=known_votes)


def cursor(project: Project) -> Cursor:
    with project.read() as session:
        return latest_cursor(session=session)


# -- the review queue -------------------------------------------------------------------------
def item_states(project: Project, *, reviewer_id: int | None, items):
    """The fresh queue state of a few items (`reviewer.review.queue.load_item_states`)."""
    from reviewer.review.queue import load_item_states

    with project.read() as session:
        return load_item_states(session=session, reviewer_id=reviewer_id, items=list(items))


def review_queue(project: Project, *, run_id: int, reviewer_id: int | None, queue_filter=None):
    """A run's mistakes as the panelist works through them (`reviewer.review.queue`)."""
    from reviewer.review.queue import load_queue

    with project.read() as session:
        return load_queue(session=session, run_id=run_id, reviewer_id=reviewer_id, queue_filter=queue_filter)
