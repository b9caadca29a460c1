"""One consistent read of the panel's state: items, panelists, current votes
and decisions, loaded in a handful of queries.

Phases, final decisions, agreement and the meeting all work on this
snapshot, so a screen or a report is computed from one moment of the
database and costs a fixed number of queries however many items there are.

An *item* (`reviewer.items.Item`) is one image and one predicted class taken from the
Mistake table across the runs of the panel's scope (`reviewer.panel.scope`: every run
unless the chair chose): one item however many of those runs made the mistake, its
facts naming them. Votes, decisions and notes are kept forever, but the snapshot holds
none of two kinds of item: one that a run still predicts but is no longer a mistake of
any run under the current labels is `retired`, one that only runs outside the scope
make is `outside_scope`; neither counts anywhere until the labels or the scope take it
in again. The snapshot is read with the caller's session.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from sqlalchemy import String, case, cast, func, literal_column, select, tuple_, union
from sqlmodel import Session

from db.tables import Decision, ImageSlice, ImportedReviewItem, Mistake, Prediction, ProjectSetting, Vote
from reviewer.items import Item
from reviewer.panel.scope import PanelScope, scope_membership
from reviewer.panel.state import is_settled, latest_decisions
from reviewer.panel.votes import panelists, voted_fields
from reviewer.terms import DecisionMethod, Phase

FIELDS = ("verdict", "problematic", "severity", "category")
PHASE_FIELDS = {Phase.CORRECTNESS: ("verdict", "problematic"), Phase.RATING: ("severity", "category")}
FIELD_PHASE = {f: phase for phase, names in PHASE_FIELDS.items() for f in names}


@dataclass(frozen=True)
class Panelist:
    id: int
    name: str
    is_chair: bool


class ItemFacts(NamedTuple):
    """What the Mistake rows say about an item (a named tuple: a snapshot makes one per item,
    tens of thousands at 50,000 images, and a tuple is made in a fifth of a frozen dataclass's time)."""

    item: Item
    # False when any run found the prediction already among the image's wrong labels.
    novel: bool
    runs: tuple[int, ...]
    probability: float  # highest top-1 probability among the runs
    hierarchy_distance: int | None


def field_value(vote: Vote | None, name: str):
    """The value a vote gives a field, or None when it has not voted that field."""
    if vote is None or name not in voted_fields(vote):
        return None
    return getattr(vote, name)


_UNVOTED: dict[str, tuple[dict[int, object], bool | None]] = {f: ({}, None) for f in FIELDS}


@dataclass
class PanelSnapshot:
    panelists: list[Panelist]
    facts: dict[Item, ItemFacts]
    # Current (latest, not retracted) vote of each panelist on each item.
    votes: dict[Item, dict[int, Vote]]
    # Latest decision row of each item, and the items ever reopened.
    decisions: dict[Item, Decision]
    reopened: set[Item]
    last_vote_id: int = 0
    # The project setting `unanimous_final` (reviewer.panel.final): a unanimous panel decides.
    unanimous_final: bool = True
    scope: PanelScope = field(default_factory=PanelScope)
    # Items with votes or decisions that no run makes under the current labels (nor an imported review
    # lists), and items with votes or decisions made only by runs outside the scope: kept, not counted.
    retired: frozenset[Item] = frozenset()
    outside_scope: frozenset[Item] = frozenset()
    _names: dict[int, str] = field(default_factory=dict, repr=False)
    # values() is asked many times per item by phases and decisions: computed once per item.
    _per_item: dict[Item, dict[str, tuple[dict[int, object], bool | None]]] = field(default_factory=dict, repr=False)
    _ids: tuple[int, ...] | None = field(default=None, repr=False)

    @property
    def items(self) -> list[Item]:
        return sorted(self.facts, key=lambda i: (i.image_id, i.predicted))

    @property
    def panelist_ids(self) -> list[int]:
        return [p.id for p in self.panelists]

    def name(self, panelist_id: int) -> str:
        if not self._names:
            self._names = {p.id: p.name for p in self.panelists}
        return self._names.get(panelist_id, f"panelist {panelist_id}")

    def _fields(self, item: Item) -> dict[str, tuple[dict[int, object], bool | None]]:
        """{field: ({panelist: value}, unanimity)} of the item, every field at once (the phases
        and decisions ask these many times per item): unanimity None until every panelist has
        voted the field, then whether they all gave one value."""
        found = self._per_item.get(item)
        if found is None:
            if item not in self.votes:  # most items: nobody has voted yet (shared, never changed)
                return _UNVOTED
            per_field: dict[str, dict[int, object]] = {f: {} for f in FIELDS}
            for rid, vote in self.votes.get(item, {}).items():
                for f in voted_fields(vote):
                    value = getattr(vote, f)
                    if value is not None:
                        per_field[f][rid] = value
            ids = self._ids if self._ids is not None else self._panel_ids()
            found = {}
            for f, voted in per_field.items():
                complete = bool(ids) and len(voted) >= len(ids) and all(i in voted for i in ids)
                found[f] = (voted, (len(set(voted.values())) == 1) if complete else None)
            self._per_item[item] = found
        return found

    def _panel_ids(self) -> tuple[int, ...]:
        self._ids = tuple(p.id for p in self.panelists)
        return self._ids

    def values(self, item: Item, name: str) -> dict[int, object]:
        """{panelist id: value} of the panelists who have voted field `name` on `item`."""
        if name in FIELDS:
            return self._fields(item)[name][0]
        return {rid: v for rid, vote in self.votes.get(item, {}).items() if (v := field_value(vote, name)) is not None}

    def complete(self, item: Item, name: str) -> bool:
        """Every panelist has voted field `name` on `item`."""
        if name in FIELDS:
            return self._fields(item)[name][1] is not None
        voted = self.values(item, name)
        return bool(self.panelists) and all(p.id in voted for p in self.panelists)

    def unanimity(self, item: Item, name: str) -> bool | None:
        """True/False once every panelist has voted field `name` (all alike or not); None before."""
        if name in FIELDS:
            return self._fields(item)[name][1]
        return len(set(self.values(item, name).values())) == 1 if self.complete(item, name) else None

    def shape(self, item: Item) -> tuple:
        """What the panel's rules read of the item (`reviewer.panel.phases`, `.final`, `.standing`),
        without the item itself: its novelty, whether it was reopened, its latest decision's
        method and values, and each current vote's values. The rules are functions of these
        and of the snapshot's panel and setting alone, so two items of one shape have one
        progress and one standing: a count over thousands of voted items works the rules
        once per shape (a panel's 5,000 voted items come to a few hundred shapes)."""
        decision = self.decisions.get(item)
        votes = self.votes.get(item)
        return (self.facts[item].novel if item in self.facts else None, item in self.reopened,
                None if decision is None else (decision.method, decision.verdict, decision.problematic,
                                               decision.severity, decision.category),
                None if not votes else tuple((rid, v.verdict, v.problematic, v.severity, v.category, v.retracted)
                                             for rid, v in sorted(votes.items())))

    def locked(self, item: Item) -> Decision | None:
        """The item's standing final decision (None if none, or reopened since)."""
        decision = self.decisions.get(item)
        return decision if is_settled(decision) else None


def _in_scope(query, scope: PanelScope):
    """`query` over the Mistake rows of the scope's runs and slice."""
    if scope.runs is not None:
        query = query.where(Mistake.run_id.in_(scope.runs or (-1,)))
    if scope.image_slice is not None:
        query = query.where(Mistake.image_id.in_(select(ImageSlice.image_id).where(
            ImageSlice.name == scope.image_slice)))
    return query


def _history_items():
    """The (image, predicted) pairs with a vote or a decision row (a reopening is one)."""
    return union(select(Vote.image_id, Vote.predicted), select(Decision.image_id, Decision.predicted))


def _scoped_facts(session: Session, scope: PanelScope, images: list[int] | None, *,
                  history_only: bool = False) -> dict[Item, ItemFacts]:
    """The facts of every item of the scope, grouped in the database: one row per item, not
    one per run (twenty runs' mistakes are 130,000 rows, their items half as many); with
    `history_only`, of the items with a vote or a decision only (looked up by the item index)."""
    if session.get_bind().dialect.name == "postgresql":
        runs = func.string_agg(cast(Mistake.run_id, String), literal_column("','"))
    else:
        runs = func.group_concat(Mistake.run_id)
    query = _in_scope(select(Mistake.image_id, Mistake.predicted, func.min(case((Mistake.novel, 1), else_=0)), runs,
                             func.max(Mistake.probability), func.max(Mistake.hierarchy_distance))
                      .group_by(Mistake.image_id, Mistake.predicted), scope)
    if images is not None:
        query = query.where(Mistake.image_id.in_(images))
    if history_only:
        query = query.where(tuple_(Mistake.image_id, Mistake.predicted).in_(_history_items()))
    facts = {}
    make_item, make_facts = Item._make, ItemFacts._make  # 26,000 items at 50,000 images: the loop is kept lean
    parsed: dict[object, tuple[int, ...]] = {}  # the runs' lists repeat (one run, all twenty): each parsed once
    for image_id, predicted, novel, run_ids, probability, distance in session.connection().execute(query).all():
        item = make_item((image_id, predicted))
        runs = parsed.get(run_ids)
        if runs is None:  # a run makes an item once (uq_mistake_run_image): no repeats to drop
            runs = parsed[run_ids] = tuple(sorted(map(int, str(run_ids).split(","))))
        facts[item] = make_facts((item, novel == 1, runs, probability, distance))
    return facts


def scoped_novelty(session: Session, scope: PanelScope) -> dict[bool, int]:
    """{novel: items} over every item of the scope (an item is novel when no run found its
    prediction among the image's wrong labels, as `_scoped_facts` says), counted in the database."""
    grouped = _in_scope(select(func.min(case((Mistake.novel, 1), else_=0)).label("novel"))
                        .group_by(Mistake.image_id, Mistake.predicted), scope).subquery()
    counts = {True: 0, False: 0}
    for novel, count in session.execute(select(grouped.c.novel, func.count()).group_by(grouped.c.novel)):
        counts[novel == 1] += int(count)
    return counts


def _made(session: Session, items: set[Item]) -> set[Item]:
    """Those of `items` that some run (in the scope or not) makes as a mistake now."""
    images = sorted({i.image_id for i in items})
    found: set[Item] = set()
    for start in range(0, len(images), 900):  # SQLite's bound-parameter limit
        found.update(Item(i, p) for i, p in session.execute(select(Mistake.image_id, Mistake.predicted).where(
            Mistake.image_id.in_(images[start:start + 900])).distinct()))
    return found & items


def _current_vote_rows(session: Session, image_ids: list[int] | None):
    """`reviewer.panel.state.current_votes` as read-only rows (a row has a Vote's attributes): a
    panel's months of votes load in a tenth of the time ORM objects take."""
    table = Vote.__table__
    where = [] if image_ids is None else [table.c.image_id.in_(image_ids)]
    latest = select(func.max(table.c.id)).where(*where).group_by(
        table.c.panelist_id, table.c.image_id, table.c.predicted).scalar_subquery()
    rows = session.connection().execute(select(table).where(table.c.id.in_(latest))
                                        .order_by(table.c.image_id, table.c.predicted, table.c.panelist_id)).all()
    return [r for r in rows if not r.retracted]


def _retired(session: Session, candidates: set[Item]) -> frozenset[Item]:
    """Of items with a history that no run makes as a mistake now, those some run still
    predicts (its top-1): mistakes once, no longer mistakes under the current labels.
    (An item no run predicts, such as a decision on an imported review's image, is not.)"""
    if not candidates:
        return frozenset()
    images = sorted({i.image_id for i in candidates})
    predicted: set[Item] = set()
    for start in range(0, len(images), 900):  # SQLite's bound-parameter limit
        predicted.update(Item(i, p) for i, p in session.execute(
            select(Prediction.image_id, Prediction.pred_1).where(Prediction.image_id.in_(images[start:start + 900]))))
    return frozenset(candidates & predicted)


def load_snapshot(*, session: Session, items: Iterable[Item] | None = None,
                  history_only: bool = False) -> PanelSnapshot:
    """Read the panel's whole state (pass a read session: one snapshot); with `items`, the
    state of those items only (every panelist, their facts, votes and decisions): what a
    window re-reads when a change record names a few items. With `history_only`, the facts
    of the items with a vote or a decision only, every vote and decision: what a count needs
    beside `scoped_novelty` (the items nobody touched are alike but for their novelty,
    `reviewer.panel.progress_book`), without a Python object for each of 26,000 items."""
    panel = [Panelist(r.id, r.name, r.is_chair) for r in panelists(session=session)]  # the revoked left out
    wanted = None if items is None else set(items)
    images = None if wanted is None else sorted({i.image_id for i in wanted})
    membership = scope_membership(session)
    scope = membership.scope
    reopened_query = select(Decision.image_id, Decision.predicted).where(
        Decision.method == DecisionMethod.REOPENED).distinct()
    if images is not None:
        reopened_query = reopened_query.where(Decision.image_id.in_(images))
    facts = _scoped_facts(session, scope, images, history_only=history_only)
    votes = _current_vote_rows(session, images)
    decisions = latest_decisions(session=session, items=wanted)
    reopened = session.execute(reopened_query).all()
    last_vote_id = session.execute(select(func.max(Vote.id))).scalar_one() or 0
    setting = session.get(ProjectSetting, "unanimous_final")
    reviewed_query = select(ImportedReviewItem.image_id, ImportedReviewItem.predicted).distinct()
    if images is not None:
        reviewed_query = reviewed_query.where(ImportedReviewItem.image_id.in_(images))
    reviewed = {Item(i, p) for i, p in session.execute(reviewed_query)}
    if wanted is not None:
        facts = {item: f for item, f in facts.items() if item in wanted}
        votes = [v for v in votes if Item(v.image_id, v.predicted) in wanted]
        reopened = [r for r in reopened if Item(r[0], r[1]) in wanted]

    history = {Item(v.image_id, v.predicted) for v in votes} | set(decisions) | {Item(i, p) for i, p in reopened}
    unscoped = {i for i in history if i not in facts}
    made = _made(session, unscoped) if unscoped and not scope.everything else set()  # by runs outside the scope

    def counted(item: Item) -> bool:  # one of the panel's items, or an imported review's that no run made
        return item in facts or (item not in made and item in reviewed)

    retired = _retired(session, {i for i in unscoped if i not in made and i not in reviewed})
    outside = frozenset(i for i in unscoped if i in made)
    if retired or outside:
        votes = [v for v in votes if counted(Item(v.image_id, v.predicted))]
        decisions = {i: d for i, d in decisions.items() if counted(i)}
        reopened = [r for r in reopened if counted(Item(r[0], r[1]))]

    by_item: dict[Item, dict[int, Vote]] = {}
    for vote in votes:
        by_item.setdefault(Item(vote.image_id, vote.predicted), {})[vote.panelist_id] = vote
    return PanelSnapshot(panelists=panel, facts=facts, votes=by_item, decisions=decisions,
                         reopened={Item(i, p) for i, p in reopened}, last_vote_id=last_vote_id,
                         unanimous_final=setting is None or setting.value != "off", scope=scope,
                         retired=retired, outside_scope=outside)
