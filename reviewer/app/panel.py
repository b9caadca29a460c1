"""The panel's acts and reads for any front end: one function per user act, each
one unit of work, returning what it made and what changed (`changes.Done`).

A thin layer over `reviewer.panel`: the window calls these from its worker
threads, the command line from a command; both get the same rules, the same
transaction boundaries and the same change records. A batch of votes is one
transaction: all of it is recorded, or none.

Who acts and on what: the window passes a panelist's id and an `Item`; the
command line a `ByName` and an `ItemName`, resolved inside the act's unit of
work (the name and the act on it are one transaction; `Done.by` names who acted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from sqlalchemy.exc import IntegrityError

from db.tables import Decision, DiscussionNote, Panelist, Vote
from reviewer.app._named import ByName as ByName  # (re-exported: the command line names who acts so)
from reviewer.app._named import ItemName as ItemName
from reviewer.app._named import ItemRef, PanelistRef, resolve_chair, resolve_item, resolve_panelist
from reviewer.app.changes import Changes, Cursor, Done, changes_since, latest_cursor
from reviewer.errors import InputError, UserError
from reviewer.items import Item, item_of
from reviewer.panel import decisions as decisions_mod
from reviewer.panel.chair import LOCKS, REOPENS, SETS_RULES
from reviewer.panel.discussion import add_note
from reviewer.panel.discussion import shown_text as shown_text  # (re-exported: the window bounds a note as show does)
from reviewer.panel.identity import IdentityError, uses_database_roles
from reviewer.panel.phases import reopen
from reviewer.panel.votes import (
    SeenVote,
    VoteState,
    amend_vote,
    can_undo,
    cast_vote,
    check_fields,
    check_text,
    current_vote,
    get_panelist,
    panelist_names,
    recorded_batch_keys,
    undo_last,
    visible_votes,
)
from reviewer.project import Project

if TYPE_CHECKING:  # the meeting's module loads numpy and the agreement's statistics: a vote needs neither
    from reviewer.panel.meeting import AgreementSummary, ItemPanel, MeetingState
    from reviewer.panel.snapshot import PanelSnapshot


def _voted(items: Iterable[Item]) -> Changes:
    return Changes(items=frozenset(items), votes=True)


# -- panelists -------------------------------------------------------------------------
def add_panelist(project: Project, name: str, *, chair: bool | None = None) -> Done[Panelist]:
    """The panelist of that name, created on first use; `chair` makes them the one chair.
    On a panel of database roles the panel is the owner's to change (`reviewer panel-setup`)."""
    def work(session):
        if uses_database_roles(session):
            raise IdentityError("this project's panelists are database roles: its owner adds panelists and "
                                "names the chair with 'reviewer panel-setup PROJECT --chair NAME --panelist NAME'")
        return get_panelist(session=session, name=name, chair=chair)

    return Done(_write_once(project, work), Changes(panel=True))


def join_panel(project: Project, name: str, *, join: bool = False) -> Done[Panelist]:
    """The panelist the window acts as (reviewer.panel.membership.enter_panel): the panelist
    of that name, or the connection's role on a panel of database roles; a new name only
    with `join` on an open panel (NotOnPanel says so, and whether it may join)."""
    from reviewer.panel.membership import enter_panel, member_named

    # A panelist on the panel already opens it with a read: no write transaction, which waits while
    # another process writes (a batch of votes), and no integrity check before the window's first
    # mistake (0.03 s on a checkpointed 128 MB database of 50,000 images and 20 runs, 0.6 s while its
    # WAL still holds an import's pages); the first write makes the check (Project.write).
    with project.read() as session:
        member = member_named(session=session, name=name)
    if member is not None:
        return Done(member, Changes())
    return Done(_write_once(project, lambda session: enter_panel(session=session, name=name, join=join)),
                Changes(panel=True))


def panel_rules(project: Project):
    """The panel's rules in force (reviewer.panel.rules)."""
    from reviewer.panel.rules import read_rules

    with project.read() as session:
        return read_rules(session)


def set_panel_rules(project: Project, *, chair_id: PanelistRef, **changes: bool):
    """The chair sets the panel's rules (blind, unanimous_final, panel_closed)."""
    from reviewer.panel.rules import set_rules

    def work(session):
        chair, name = resolve_chair(session, chair_id, SETS_RULES)
        return set_rules(session, chair_id=chair, **changes), name

    rules, name = project.write(work)
    return Done(rules, Changes(panel=True, decisions=True), by=name)


def _write_once(project: Project, work):
    try:
        return project.write(work)
    except IntegrityError:
        # Another process created the same name at the same moment (PostgreSQL does not
        # serialise the two inserts as SQLite's BEGIN IMMEDIATE does): it exists now.
        return project.write(work)


def names(project: Project) -> dict[int, str]:
    """{panelist id: name} of the panel."""
    with project.read() as session:
        return panelist_names(session=session)


def _acted(project: Project, who: PanelistRef, item: ItemRef | None, act: Callable, *,
           chair_act: str | None = None, flag: str = "--chair"):
    """Run `act(session, panelist id, item)` as one unit of work, the names resolved in it:
    (what it returned, the panelist's name where one was resolved). `chair_act`: only the
    chair does this (reviewer.panel.chair): anyone else is refused before the item is looked
    up, told to pass `flag` with the chair's name."""
    def work(session):
        panelist, name = (resolve_panelist(session, who) if chair_act is None
                          else resolve_chair(session, who, chair_act, flag=flag))
        return act(session, panelist, None if item is None else resolve_item(session, item)), name

    return project.write(work)


# -- votes -----------------------------------------------------------------------------
def vote(project: Project, *, panelist_id: PanelistRef, item: ItemRef, **fields) -> Done[Vote]:
    """Record a change to the panelist's own vote on an item."""
    row, name = _acted(project, panelist_id, item,
                       lambda s, who, it: cast_vote(session=s, panelist_id=who, item=it, **fields))
    return Done(row, _voted([item_of(row)]), by=name)


@dataclass(frozen=True)
class BatchVote:
    """One vote of a batch: the item, the fields given, the row's own key (a key the
    panelist has recorded already is not recorded again, so a batch sent twice records
    each row once) and where the row came from ('line 7'), named in an error."""

    item: ItemRef
    fields: dict
    key: str | None = None
    where: str | None = None


@dataclass(frozen=True)
class Cast:
    """What became of one vote of a batch: the new row, or the id of the vote its key
    recorded before (then nothing was recorded now)."""

    item: Item
    vote: Vote | None
    recorded_before: int | None = None


def vote_batch(project: Project, *, panelist_id: PanelistRef, votes: Iterable[BatchVote | tuple[Item, dict]],
               source: str | None = None, starting: Callable[[int, int, str | None], None] | None = None
               ) -> Done[list[Cast]]:
    """Record many votes of one panelist in one transaction: every one, or none. Every
    vote is checked (its item found, its fields valid) before any is cast; a bad one
    raises InputError naming `source` (the file the batch was read from) and the vote's `where`. `starting(to record,
    recorded before, the panelist's name)` is called once the check is done, before the
    votes are cast (the command line says what it is about to do)."""
    batch = [v if isinstance(v, BatchVote) else BatchVote(*v) for v in votes]

    def work(session):
        panelist, name = resolve_panelist(session, panelist_id)
        items = {}
        for number, vote_ in enumerate(batch, start=1):
            try:
                if vote_.item not in items:
                    items[vote_.item] = resolve_item(session, vote_.item)
                check_fields(**{k: vote_.fields.get(k) for k in ("verdict", "severity", "category")})
                check_text(note=vote_.fields.get("note"), oov_name=vote_.fields.get("oov_name"))
            except UserError as exc:
                raise InputError(source or "the batch", str(exc), record=vote_.where or f"vote {number}",
                                 hint=f"nothing of this {'file' if source else 'batch'} was recorded") from None
        done = recorded_batch_keys(session=session, panelist_id=panelist,
                                   keys=[v.key for v in batch if v.key is not None])
        if starting is not None:
            starting(sum(1 for v in batch if v.key not in done), len(done), name)
        cast = []
        for vote_ in batch:
            item = items[vote_.item]
            if vote_.key in done:
                cast.append(Cast(item, None, done[vote_.key]))
                continue
            row = cast_vote(session=session, panelist_id=panelist, item=item, batch_key=vote_.key, **vote_.fields)
            cast.append(Cast(item, row))
        return cast, name

    cast, name = project.write(work)
    return Done(cast, _voted(c.item for c in cast if c.vote is not None), by=name)


def amend(project: Project, *, panelist_id: int, vote_id: int, **fields) -> Done[Vote]:
    """Change the vote shown as row `vote_id` (one's own only), checked and written at once."""
    row = project.write(lambda s: amend_vote(session=s, panelist_id=panelist_id, vote_id=vote_id, **fields))
    return Done(row, _voted([Item(row.image_id, row.predicted)]))


def undo(project: Project, *, panelist_id: PanelistRef) -> Done[Vote | None]:
    """Reverse the panelist's latest act not yet undone (None: nothing to undo)."""
    row, name = _acted(project, panelist_id, None, lambda s, who, _: undo_last(session=s, panelist_id=who))
    return Done(row, _voted([item_of(row)]) if row is not None else Changes(), by=name)


def undo_available(project: Project, *, panelist_id: int) -> bool:
    with project.read() as session:
        return can_undo(session=session, panelist_id=panelist_id)


def my_vote(project: Project, *, panelist_id: int, item: Item) -> VoteState:
    with project.read() as session:
        return current_vote(session=session, panelist_id=panelist_id, item=item)


def decision_of(project: Project, *, item: Item):
    """The item's final decision as a panelist is told it (reviewer.panel.final.DecisionNote), or None."""
    from reviewer.panel.final import decision_note, read_final_decisions

    with project.read() as session:
        decision = read_final_decisions(session=session, items=[item]).get(item)
        return None if decision is None else decision_note(decision, panelist_names(session=session))


def item_votes(project: Project, *, viewer_id: int, item: Item, blind: bool = True
               ) -> tuple[VoteState, list[SeenVote] | None]:
    """(the viewer's own vote, the others' as the viewer may see them) from one snapshot."""
    with project.read() as session:
        return (current_vote(session=session, panelist_id=viewer_id, item=item),
                visible_votes(session=session, viewer_id=viewer_id, item=item, blind=blind))


def others(project: Project, *, viewer_id: int, item: Item, blind: bool = True) -> list[SeenVote] | None:
    with project.read() as session:
        return visible_votes(session=session, viewer_id=viewer_id, item=item, blind=blind)


# -- discussion and decisions ------------------------------------------------------------
def note(project: Project, *, panelist_id: PanelistRef, item: ItemRef, text: str) -> Done[DiscussionNote]:
    """Add a discussion note on an item."""
    row, name = _acted(project, panelist_id, item,
                       lambda s, who, it: add_note(session=s, panelist_id=who, item=it, text=text))
    return Done(row, Changes(items=frozenset([item_of(row)]), notes=True), by=name)


def item_notes(project: Project, *, viewer_id: int, item: Item, blind: bool = True):
    """The item's discussion notes as the viewer may read them (reviewer.panel.discussion.visible_notes)."""
    from reviewer.panel.discussion import visible_notes

    with project.read() as session:
        return visible_notes(session=session, viewer_id=viewer_id, item=item, blind=blind)


def reopen_item(project: Project, *, panelist_id: PanelistRef, item: ItemRef, reason: str) -> Done[Decision]:
    """The chair reopens a decided item (reviewer.panel.phases.reopen)."""
    row, name = _acted(project, panelist_id, item,
                       lambda s, who, it: reopen(session=s, panelist_id=who, item=it, reason=reason),
                       chair_act=REOPENS, flag="--panelist")
    return Done(row, Changes(items=frozenset([item_of(row)]), decisions=True), by=name)


def lock(project: Project, *, chair_id: PanelistRef, item: ItemRef, force: bool = False) -> Done[Decision]:
    """The chair locks the item's majority decision."""
    row, name = _acted(project, chair_id, item, lambda s, who, it: decisions_mod.lock_decision(
        session=s, chair_id=who, item=it, force=force), chair_act=LOCKS)
    return Done(row, Changes(items=frozenset([item_of(row)]), decisions=True), by=name)


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


def lock_all(project: Project, *, chair_id: PanelistRef, unanimous_only: bool = False,
             force: bool = False) -> Done[list[Decision]]:
    """Lock every fully voted undecided item, in one transaction (items whose lock would
    replace an override are left alone unless `force`: the result's `kept`)."""
    rows, name = _acted(project, chair_id, None, lambda s, who, _: decisions_mod.lock_all(
        session=s, chair_id=who, unanimous_only=unanimous_only, force=force), chair_act=LOCKS)
    return Done(rows, Changes(items=frozenset(item_of(r) for r in rows), decisions=bool(rows)), by=name)


def override(project: Project, *, chair_id: PanelistRef, item: ItemRef, **decision) -> Done[Decision]:
    """The chair sets the item's decision instead of the majority."""
    row, name = _acted(project, chair_id, item, lambda s, who, it: decisions_mod.override_decision(
        session=s, chair_id=who, item=it, **decision), chair_act=LOCKS)
    return Done(row, Changes(items=frozenset([item_of(row)]), decisions=True), by=name)


# -- the meeting ----------------------------------------------------------------------------
def meeting_state(project: Project, *, viewer_id: int, field: str | None = None,
                  pair: tuple[int, int] | None = None) -> MeetingState:
    """What the meeting lists."""
    from reviewer.panel.meeting import load_meeting

    with project.read() as session:
        return load_meeting(session=session, viewer_id=viewer_id, field=field, pair=pair)


def meeting_item(project: Project, *, snapshot: PanelSnapshot, item: Item, viewer_id: int) -> ItemPanel:
    from reviewer.panel.meeting import item_panel

    with project.read() as session:
        return item_panel(session=session, snapshot=snapshot, item=item, viewer_id=viewer_id)


def agreement(project: Project, *, resamples: int = 1000, seed: int = 0) -> AgreementSummary:
    from reviewer.panel.meeting import agreement_summary

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
def item_states(project: Project, *, panelist_id: int | None, items):
    """The fresh queue state of a few items (`reviewer.review.queue_load.load_item_states`)."""
    from reviewer.review.queue_load import load_item_states

    with project.read() as session:
        return load_item_states(session=session, panelist_id=panelist_id, items=list(items))


def review_queue(project: Project, *, run_id: int, panelist_id: int | None, queue_filter=None):
    """A run's mistakes as the panelist works through them (`reviewer.review.queue_load`)."""
    from reviewer.review.queue_load import load_queue

    with project.read() as session:
        return load_queue(session=session, run_id=run_id, panelist_id=panelist_id, queue_filter=queue_filter)
