"""The one meaning of "decided": an item's final decision, read by every count and
every output (the progress strip, `panel-status`, the queue, the meeting, the
analysis and report, the split, the leaderboard, the export).

The panel's rule (Vasudevan et al. 2022, §3.1): "any image where there was no
unanimous agreement" goes to the group's meeting, after which "we took the majority
assessment, or used 'unclear' for a tie". So an item is decided when

- the chair locked it (a majority lock, "unclear" on a tie, or an override; a
  reopening lifts it), or
- the whole panel voted it unanimously, while the project setting
  `unanimous_final` is on (the default, the paper's rule). The chair may turn it
  off; then unanimous items wait for the chair's lock like the others ("Lock all
  unanimous" in the meeting, `reviewer decide --unanimous-only`).

A unanimous decision is not stored: it is read from the current votes, so when a
vote is amended or a panelist joins, the item stops being decided the same way it
started, and every view shows it undecided again. For a mistake judged wrong the
phase-2 fields (severity, category) are decided the same way: by the chair's lock,
or by the unanimous ratings of the whole panel; a verdict the chair locked keeps
its lock's method when the panel then rates it alike (a majority lock rated
unanimously is "majority").

`decided_how` (reviewer.panel.state, its one home, beside `describe_decision` which
words it) names how a decision came about, for the export's manifest, the report and
`reviewer show`: unanimous, majority, tie_unclear (a majority lock of a tied verdict),
override.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from sqlalchemy import select
from sqlmodel import Session

from db.tables import Decision, Vote
from reviewer.items import Item
from reviewer.panel.snapshot import PanelSnapshot, load_snapshot
from reviewer.panel.state import DecidedHow as DecidedHow  # (re-exported: its home is state, beside the words)
from reviewer.panel.state import decided_how, is_settled
from reviewer.terms import Category, DecisionMethod, Verdict

if TYPE_CHECKING:  # pandas loads with the first table (0.3 s): the window's first paint needs none
    import pandas as pd

UNANIMOUS_FINAL = "unanimous_final"  # project setting: "on" (default) or "off"


def _unanimous(snapshot: PanelSnapshot, item: Item, names: tuple[str, ...]) -> dict | None:
    """{field: value} when every panelist voted every field of `names` alike, else None."""
    out = {}
    for name in names:
        if not snapshot.complete(item, name):
            return None
        values = set(snapshot.values(item, name).values())
        if len(values) != 1:
            return None
        out[name] = values.pop()
    return out


def _carried_wrong(snapshot: PanelSnapshot, item: Item) -> bool:
    """A mistake judged wrong before the panel (a wrong label of the image, a published
    review) and never reopened: it skips the correctness vote."""
    facts = snapshot.facts.get(item)
    latest = snapshot.decisions.get(item)
    return facts is not None and not facts.novel and item not in snapshot.reopened and (
        latest is None or is_settled(latest))


def final_decision(snapshot: PanelSnapshot, item: Item) -> Decision | None:
    """The item's final decision (module docstring), or None while it is undecided. A
    unanimous one is an unsaved Decision of method "unanimous" (no chair, no id)."""
    locked = snapshot.locked(item)
    rated = locked is not None and (locked.severity is not None or locked.category is not None)
    if locked is not None and (locked.verdict != Verdict.WRONG or rated):
        return locked
    if not snapshot.unanimous_final:
        return locked
    if locked is not None:
        verdict, problematic, voted = locked.verdict, bool(locked.problematic), False
    elif _carried_wrong(snapshot, item):
        verdict, problematic, voted = Verdict.WRONG, False, False
    else:
        phase_1 = _unanimous(snapshot, item, ("verdict", "problematic"))
        if phase_1 is None:
            return None
        verdict, problematic, voted = phase_1["verdict"], bool(phase_1["problematic"]), True
    severity = category = oov_name = None
    if verdict == Verdict.WRONG:
        phase_2 = _unanimous(snapshot, item, ("severity", "category"))
        if phase_2 is not None:
            severity, category = phase_2["severity"], phase_2["category"]
            if Category(category).needs_name:
                names = Counter(v.oov_name for v in snapshot.votes.get(item, {}).values() if v.oov_name)
                oov_name = names.most_common(1)[0][0] if names else None
    if not voted and severity is None:
        return locked  # nothing the panel settled unanimously beyond what stands
    votes = snapshot.votes.get(item, {}).values()
    unanimous = f"unanimous: all {len(snapshot.panelists)} panelists"
    created_at = max((v.created_at for v in votes), default=None)
    if locked is not None:
        # The chair locked the verdict (a majority, a tie) and the panel then rated it alike: the
        # decision is still the lock's (the manifest says "majority", not "unanimous"), rated.
        return Decision.model_construct(
            image_id=item.image_id, predicted=item.predicted, verdict=verdict, problematic=problematic,
            severity=severity, category=category, oov_name=oov_name, method=locked.method,
            reason="; ".join(filter(None, (locked.reason, f"severity and category {unanimous}"))),
            decided_by=locked.decided_by,
            created_at=max((t for t in (created_at, locked.created_at) if t is not None), default=None))
    # Built without validation (the values come from stored rows): thousands of unanimous decisions are read
    # at every count, and a validated table object cost 0.36 ms each.
    return Decision.model_construct(
        image_id=item.image_id, predicted=item.predicted, verdict=verdict, problematic=problematic,
        severity=severity, category=category, oov_name=oov_name, method=DecisionMethod.UNANIMOUS,
        reason=unanimous, decided_by=None, created_at=created_at)


def final_decisions(snapshot: PanelSnapshot, items: Iterable[Item] | None = None) -> dict[Item, Decision]:
    """The final decision of every decided item (of `items`, or of the snapshot)."""
    out = {}
    # Every item with a decision row too: a decision on an imported review's item has no Mistake row.
    everything = sorted(set(snapshot.facts) | set(snapshot.decisions), key=lambda i: (i.image_id, i.predicted))
    for item in everything if items is None else items:
        decision = final_decision(snapshot, item)
        if decision is not None:
            out[item] = decision
    return out


def read_final_decisions(*, session: Session, items: Iterable[Item] | None = None) -> dict[Item, Decision]:
    """`final_decisions` of a fresh snapshot (of `items` only, when given).

    Given items, only those with a vote or a decision row are read into a snapshot: a final
    decision is a decision row or the panel's unanimous votes, so the others have none. The
    review page asks this of every class in each run's top-5 of the image it shows, most of
    them never voted on; their snapshot was half the time of reading a mistake's facts."""
    wanted = None if items is None else _with_history(session, list(items))
    if wanted is not None and not wanted:
        return {}
    snapshot = load_snapshot(session=session, items=wanted)
    return final_decisions(snapshot, wanted if wanted is not None else None)


def _with_history(session: Session, items: list[Item]) -> list[Item]:
    """Of `items`, those with a vote (undone ones included) or a decision row, in their order."""
    images = sorted({item.image_id for item in items})
    found: set[Item] = set()
    for table in (Vote, Decision):
        for start in range(0, len(images), 900):  # SQLite's bound-parameter limit
            found.update(Item(i, p) for i, p in session.execute(
                select(table.image_id, table.predicted).where(table.image_id.in_(images[start:start + 900])).distinct()))
    return [item for item in items if item in found]


def undecided_with_votes(snapshot: PanelSnapshot) -> list[Item]:
    """Items some panelist has voted on that have no final decision: what the export
    and the report leave out, and say so."""
    return [item for item in snapshot.items if snapshot.votes.get(item) and final_decision(snapshot, item) is None]


@dataclass(frozen=True)
class DecisionNote:
    """An item's final decision as a panelist is told it: the value, how it was decided,
    by whom (the chair; None for a unanimous panel) and why."""

    verdict: str
    severity: str | None
    category: str | None
    problematic: bool
    how: DecidedHow
    by: str | None
    reason: str

    def words(self) -> str:
        """'unclear, by the chair's override (ann): both readings hold'."""
        return ", ".join((self.verdict, *self.details(), self.how_words()))

    def details(self) -> tuple[str, ...]:
        """What the decision says beside the verdict: severity, category, problematic."""
        return tuple(x for x in (self.severity, self.category) if x) + (("problematic",) if self.problematic else ())

    def how_words(self) -> str:
        """'by the chair's override (ann): both readings hold'."""
        how = {DecidedHow.UNANIMOUS: "by the whole panel, unanimously",
               DecidedHow.MAJORITY: "by the majority, locked by the chair",
               DecidedHow.TIE_UNCLEAR: "'unclear' on a tie, locked by the chair",
               DecidedHow.OVERRIDE: "by the chair's override"}[self.how]
        who = f" ({self.by})" if self.by and self.how != DecidedHow.UNANIMOUS else ""
        why = f": {self.reason}" if self.reason and self.how == DecidedHow.OVERRIDE else ""
        return f"{how}{who}{why}"


def decision_note(decision: Decision, names: dict[int, str]) -> DecisionNote:
    return DecisionNote(verdict=str(decision.verdict), severity=decision.severity, category=decision.category,
                        problematic=bool(decision.problematic), how=decided_how(decision),
                        by=names.get(decision.decided_by) if decision.decided_by is not None else None,
                        reason=decision.reason or "")


DECISION_COLUMNS = ["image_id", "predicted", "verdict", "problematic", "severity", "category", "oov_name",
                    "method", "decided_how", "reason", "decided_by", "chair", "created_at"]


def decisions_table(*, session: Session, snapshot: PanelSnapshot | None = None) -> pd.DataFrame:
    """The final decisions as a table, one row per decided item (the analysis, the export
    and the split read this): `DECISION_COLUMNS`, `chair` the chair's name (none for
    a unanimous decision), `decided_how` as `decided_how` says."""
    import pandas as pd

    snapshot = load_snapshot(session=session) if snapshot is None else snapshot
    names = {p.id: p.name for p in snapshot.panelists}
    if any(d.decided_by not in names for d in snapshot.decisions.values() if d.decided_by is not None):
        from sqlalchemy import select

        from db.tables import Panelist

        names.update(dict(session.execute(select(Panelist.id, Panelist.name)).all()))
    rows = [(d.image_id, d.predicted, d.verdict, bool(d.problematic), d.severity, d.category, d.oov_name,
             str(d.method), str(decided_how(d)), d.reason, d.decided_by,
             names.get(d.decided_by) if d.method != DecisionMethod.UNANIMOUS else None, d.created_at)
            for d in final_decisions(snapshot).values()]
    frame = pd.DataFrame(rows, columns=DECISION_COLUMNS).astype(
        {"image_id": "int64", "predicted": "int64", "problematic": bool})
    return frame.sort_values(["image_id", "predicted"], ignore_index=True)
