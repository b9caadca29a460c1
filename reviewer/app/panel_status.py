"""Where the panel stands, for any front end (`reviewer panel-status`): who is on the
panel, each phase's progress per panelist (`reviewer.panel.phases.progress`) and, when
asked, every item's state in each phase it is in, all from one read snapshot.

The review page's progress strip counts the same `progress` over one run's mistakes,
kept up to date item by item by the queue (`reviewer.review`); this is the whole
project's, read afresh.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reviewer.terms import Phase

if TYPE_CHECKING:
    from reviewer.panel.phases import PhaseProgress, PhaseStatus
    from reviewer.panel.snapshot import Panelist
    from reviewer.project import Project


@dataclass(frozen=True)
class ItemStatus:
    """One item's state in one phase (the fields in the order `--items --json` writes them)."""

    image: str | None  # the image's file name
    predicted: int
    phase: Phase
    state: PhaseStatus
    runs: tuple[int, ...] = ()  # the scoped runs that made this mistake (one item, reviewed once)
    models: tuple[str, ...] = ()  # their models, in the same order


@dataclass(frozen=True)
class PanelStatus:
    panelists: list[Panelist]  # the panel, the revoked left out
    phases: list[PhaseProgress]  # phase 1 then phase 2: items per state, and per panelist
    items: list[ItemStatus]  # empty unless asked for: phase 1's items, then phase 2's, in (image, predicted) order
    scope: str = "every run"  # the panel's scope (reviewer.panel.scope), in words
    scope_runs: tuple[int, ...] | None = None  # its runs (None: every run)
    scope_slice: str | None = None
    scope_items: int = 0  # distinct items in the scope
    # Items with votes or decisions that no longer count: no longer mistakes under the current labels,
    # or made only by runs outside the scope (their history is kept).
    no_longer_mistakes: int = 0
    outside_scope: int = 0
    # The scope's items by standing (reviewer.panel.standing: decided, disputed, open), as the review
    # queue's header and the meeting count them.
    standing: dict[str, int] = field(default_factory=dict)


def panel_status(project: Project, *, items: bool = False, keep: bool = True) -> PanelStatus:
    """The panel's progress per phase and per panelist; with `items`, also every item's
    state in each phase (its image named).

    Kept between calls as the report's figures are (`reviewer.analysis.cache`), under the
    key of what the snapshot reads (`reviewer.analysis.inputs.panel_status_inputs`): a repeated
    call, from a script polling the panel or a chair between meetings, reads one file where
    50,000 images and 20 runs take a second to recount. The summary keeps its counts as a
    book (`reviewer.panel.progress_book`): votes and decisions since the last call update the
    items they are on; anything else (a label import, a run, the scope, a rule, a panelist)
    is a new key and a recount. `keep=False` counts afresh and keeps nothing."""
    from reviewer.analysis.cache import FigureCache
    from reviewer.analysis.inputs import panel_status_inputs

    cache = FigureCache(project.root) if keep else None
    with project.read() as session:
        if cache is None:
            return _compute(session, items=items)[0]
        if items:
            return cache.get("panel-status-items", panel_status_inputs(session=session, items=True),
                             lambda: _compute(session, items=True)[0])
        inputs = panel_status_inputs(session=session, items=False)
        marks = {name: inputs["panel"].pop(name) for name in HISTORY}  # the book's own marks, not its key
        key = cache.key(inputs)
        kept = cache.load("panel-status", key)
        if isinstance(kept, tuple) and len(kept) == 2:
            status, book = kept
            if book.marks == marks:
                return status
            updated = _brought_up_to_date(session, status, book, marks)
            if updated is not None:
                cache.save("panel-status", key, (updated, book))
                return updated
        status, book = _compute(session, items=False)
        book.marks = marks
        cache.save("panel-status", key, (status, book))
        return status


# The append-only history (migration 0005) a book counts: [count, last id] of each as the reader sees it.
HISTORY = ("vote", "decision", "discussion_note")


def _brought_up_to_date(session, status: PanelStatus, book, marks: dict) -> PanelStatus | None:
    """`status` and its book moved on by the votes and decisions since the book's marks, or
    None where only a recount will do: on PostgreSQL (a blind panel's reader sees older rows
    appear as he votes), or when the history did not only grow."""
    from dataclasses import replace

    from sqlalchemy import select

    from db.tables import Decision, Vote
    from reviewer.items import Item
    from reviewer.panel.progress_book import update_book
    from reviewer.panel.snapshot import load_snapshot

    if session.get_bind().dialect.name != "sqlite" or not getattr(book, "standings", None) and book.parts:
        return None  # (a book kept before it counted standings: recount)
    changed: set[Item] = set()
    for name, table in (("vote", Vote), ("decision", Decision)):
        (count, last), (kept_count, kept_last) = marks[name], book.marks[name]
        if count < kept_count or (last or 0) < (kept_last or 0) or count - kept_count > 1000:
            return None  # not an append (a damaged or replaced database), or so many that a recount is as quick
        if count != kept_count:
            rows = session.execute(select(table.image_id, table.predicted).where(table.id > (kept_last or 0))).all()
            if len(rows) != count - kept_count:
                return None
            changed.update(Item(i, p) for i, p in rows)
    if changed and not update_book(book, load_snapshot(session=session, items=changed), changed):
        return None
    book.marks = marks
    return replace(status, phases=book.reports, standing=_standing(book, status.scope_items))


def _compute(session, *, items: bool):
    """(the status, its progress book) counted afresh from one snapshot."""
    from reviewer.panel.lookup import image_names
    from reviewer.panel.phases import phase_items, status
    from reviewer.panel.progress_book import open_book
    from reviewer.panel.snapshot import load_snapshot, scoped_novelty

    if items:
        snapshot, novelty = load_snapshot(session=session), None
    else:  # the counts only: the untouched items' novelty counted in the database
        snapshot = load_snapshot(session=session, history_only=True)
        novelty = scoped_novelty(session, snapshot.scope)
    names = image_names(session=session, image_ids=[i.image_id for i in snapshot.items]) if items else {}
    models = _run_models(session)
    rows = [ItemStatus(names.get(item.image_id), item.predicted, phase, status(snapshot, item, phase),
                       snapshot.facts[item].runs, tuple(models.get(r, "?") for r in snapshot.facts[item].runs))
            for phase in Phase for item in phase_items(snapshot, phase)] if items else []
    book = open_book(snapshot, novelty)
    scope = snapshot.scope
    scope_items = len(snapshot.facts) if novelty is None else sum(novelty.values())
    return PanelStatus(panelists=snapshot.panelists, phases=book.reports, items=rows,
                       scope=scope.describe(models), scope_runs=scope.runs, scope_slice=scope.image_slice,
                       scope_items=scope_items, no_longer_mistakes=len(snapshot.retired),
                       outside_scope=len(snapshot.outside_scope), standing=_standing(book, scope_items)), book


def _standing(book, items: int) -> dict[str, int]:
    return {str(s): n for s, n in book.standing_counts(items).items()}


def _run_models(session) -> dict[int, str]:
    from sqlalchemy import select

    from db.tables import Model, Run

    return dict(session.execute(select(Run.id, Model.name).join(Model, Model.id == Run.model_id)).all())
