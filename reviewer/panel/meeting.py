"""What the meeting shows, computed headless: the items the panel meets
about, and everything about one of them as a given panelist may see it.

- `load_meeting`: the items every panelist has voted without unanimity on
  some field (optionally one field), or, for a cell of the Cohen's kappa
  matrix, the items where two given panelists voted a field differently;
  blind mode holds: an item the viewer has not voted that field on is left
  out (and counted). Each row carries its standing (decided, disputed, open:
  `reviewer.panel.standing`, as the queue and `panel-status` count it).
- `item_panel`: each panelist's vote side by side (masked per field for the
  viewer), the majority the chair would lock, the standing decision, the
  discussion notes and the history.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from sqlmodel import Session

from db.tables import Decision
from reviewer.classes.vocabulary import load_classes
from reviewer.items import Item
from reviewer.panel.agreement import disagreeing_items
from reviewer.panel.decisions import Majority, field_unanimity, lockable_items, majority_of, non_unanimous_items
from reviewer.panel.discussion import HistoryEntry, item_history, notes
from reviewer.panel.lookup import image_names
from reviewer.panel.phases import correctness, in_phase
from reviewer.panel.snapshot import FIELDS, PanelSnapshot, field_value, load_snapshot
from reviewer.panel.standing import Dispute, Standing, panel_standing
from reviewer.panel.state import describe_decision
from reviewer.panel.votes import SeenVote, seen_vote, voted_fields
from reviewer.terms import Phase, Verdict


@dataclass(frozen=True)
class MeetingRow:
    item: Item
    file_name: str
    predicted_name: str
    run_id: int | None  # a run that made this mistake (its facts are shown)
    split_fields: tuple[str, ...]  # fields every panelist voted, not unanimously (a pair: the two differ on)
    phases: tuple[Phase, ...]
    decision: str  # the final decision in words: "", "wrong (majority)", "wrong (unanimous)"; "reopened"
    # Decided, disputed or open, and the dispute (reviewer.panel.standing): what the meeting counts in its
    # header and steps through, never read from the words above.
    standing: Standing = Standing.OPEN
    dispute: Dispute | None = None

    @property
    def open(self) -> bool:
        """Still open for the meeting: not decided, or decided with a phase still disputed."""
        return self.standing != Standing.DECIDED


@dataclass(frozen=True)
class MeetingState:
    snapshot: PanelSnapshot
    rows: list[MeetingRow]
    hidden: int  # items of a pair filter the viewer has not voted yet (blind)
    # Unanimous items waiting for the chair's lock: only while the chair has turned the
    # paper's "unanimous is final" off (reviewer.panel.final); 0 otherwise.
    unanimous_to_lock: int = 0

    def counts(self) -> dict[Standing, int]:
        """{standing: rows}: the meeting's header ('8 decided · 3 disputed')."""
        return {s: sum(row.standing == s for row in self.rows) for s in Standing}


@dataclass(frozen=True)
class PanelColumn:
    panelist_id: int
    name: str
    is_chair: bool
    mine: bool
    vote: SeenVote | None  # None: no vote yet


@dataclass(frozen=True)
class ItemPanel:
    item: Item
    columns: list[PanelColumn]
    viewer_fields: frozenset[str]  # what the viewer has voted: the majority shows only these
    unanimity: dict[str, bool | None]
    # What a lock would record; None until every panelist voted. No severity or category unless the verdict
    # that stands (or that the majority would lock) is wrong: one vote's rating beside "correct" is none.
    majority: Majority | None
    decision: Decision | None  # the latest decision row (may be "reopened")
    notes: list[tuple[str, str, datetime]]  # (who, text, when), oldest first
    history: list[HistoryEntry]


def load_meeting(*, session: Session, viewer_id: int, field: str | None = None,
                 pair: tuple[int, int] | None = None) -> MeetingState:
    """The meeting's list. `field` limits it to one field; `pair` (with a
    field) lists the items where those two panelists disagree on it."""
    snapshot = load_snapshot(session=session)
    fields = (field,) if field else FIELDS
    hidden = 0
    if pair is not None:
        if field is None:
            raise ValueError("a pair of panelists is compared on one field")
        found = disagreeing_items(snapshot, field=field, first=pair[0], second=pair[1])
        items = [i for i in found if field in voted_fields(snapshot.votes.get(i, {}).get(viewer_id))]
        hidden = len(found) - len(items)
    else:
        items = non_unanimous_items(snapshot, fields=fields)
    names = image_names(session=session, image_ids=[i.image_id for i in items]) if items else {}
    classes = load_classes().names
    rows = []
    for item in items:
        unanimity = field_unanimity(snapshot, item)
        facts = snapshot.facts.get(item)
        standing = panel_standing(snapshot, item)
        latest = snapshot.decisions.get(item)
        rows.append(MeetingRow(
            item=item, file_name=names.get(item.image_id, f"image {item.image_id}"),
            predicted_name=classes[item.predicted], run_id=facts.runs[0] if facts else None,
            split_fields=(tuple(f for f in FIELDS if unanimity[f] is False) if pair is None
                          else _pair_split(snapshot, item, pair, viewer_id)),
            phases=tuple(p for p in Phase if in_phase(snapshot, item, p)),
            decision=describe_decision(standing.decision) or describe_decision(latest),
            standing=standing.standing, dispute=standing.dispute))
    waiting = 0 if snapshot.unanimous_final else len(lockable_items(snapshot, unanimous_only=True))
    return MeetingState(snapshot=snapshot, rows=rows, hidden=hidden, unanimous_to_lock=waiting)


def _pair_split(snapshot: PanelSnapshot, item: Item, pair: tuple[int, int], viewer_id: int) -> tuple[str, ...]:
    """The fields the two panelists voted differently on, of those the viewer has voted (blind)."""
    votes = snapshot.votes.get(item, {})
    first, second = votes.get(pair[0]), votes.get(pair[1])
    mine = voted_fields(votes.get(viewer_id))
    return tuple(f for f in FIELDS if f in mine and field_value(first, f) is not None
                 and field_value(second, f) is not None and field_value(first, f) != field_value(second, f))


def item_panel(*, session: Session, snapshot: PanelSnapshot, item: Item, viewer_id: int) -> ItemPanel:
    """One item as the viewer may see it (the others' fields masked until the viewer voted them)."""
    votes = snapshot.votes.get(item, {})
    viewer_fields = voted_fields(votes.get(viewer_id))
    columns = []
    for p in snapshot.panelists:
        vote = votes.get(p.id)
        mine = p.id == viewer_id
        seen = None if vote is None else seen_vote(vote, None if mine else viewer_fields)
        columns.append(PanelColumn(p.id, p.name, p.is_chair, mine, seen))
    complete = all(p.id in votes for p in snapshot.panelists) and bool(snapshot.panelists)
    names = {p.id: p.name for p in snapshot.panelists}
    return ItemPanel(
        item=item, columns=columns, viewer_fields=viewer_fields, unanimity=field_unanimity(snapshot, item),
        majority=_as_locked(snapshot, item, majority_of(votes.values())) if complete else None,
        decision=snapshot.decisions.get(item),
        notes=[(names.get(n.panelist_id, "?"), n.text, n.created_at) for n in notes(session=session, item=item)]
        if viewer_fields else [],
        history=item_history(session=session, item=item, viewer_id=viewer_id) if viewer_fields else [])


RATING_FIELDS = ("severity", "category")


def _as_locked(snapshot: PanelSnapshot, item: Item, majority: Majority) -> Majority:
    """The majority as the meeting shows it: a severity and category only where the item's
    verdict (the one that stands, else the majority's) is wrong, as a lock records them."""
    verdict = correctness(snapshot, item)
    if verdict is None:
        verdict = majority.verdict
    if verdict is None or verdict == Verdict.WRONG:
        return majority
    return replace(majority, severity=None, category=None, oov_name=None,
                   counts={k: v for k, v in majority.counts.items() if k not in RATING_FIELDS},
                   ties=tuple(t for t in majority.ties if t not in RATING_FIELDS))


@dataclass(frozen=True)
class AgreementSummary:
    report: list  # FieldAgreement per field
    matrices: dict  # field -> PairwiseKappa
    resamples: int
    reliability: object = None  # panelist_reliability.PanelReliability: each panelist against the decisions


def agreement_summary(*, session: Session, resamples: int = 1000, seed: int = 0) -> AgreementSummary:
    """The agreement panel's content: per-field statistics, every field's kappa matrix and each
    panelist's reliability."""
    from reviewer.panel.agreement import agreement_report, pairwise_kappa
    from reviewer.panel.panelist_reliability import panel_reliability

    snapshot = load_snapshot(session=session)
    return AgreementSummary(agreement_report(snapshot, resamples=resamples, seed=seed),
                            {name: pairwise_kappa(snapshot, name) for name in FIELDS}, resamples,
                            panel_reliability(snapshot))
