"""Where the panel stands on an item, in one word: decided, disputed or open. One
function (`panel_standing`) that every view and count reads: the review queue's rows,
its header's counts and its Show filters (reviewer.review), the meeting's rows and
header (the meeting), and `reviewer panel-status`.

- **disputed**: in a phase the item is in, every panelist has voted the phase's
  fields, they differ on some, and no decision settles that phase
  (`phases.status` is AWAITS_GROUP): the group meets about it. A verdict decided
  "wrong" (unanimously, or locked) whose severity or category the panel then splits
  on is disputed in phase 2 ("disputed in phase 2: severity") until the chair locks
  it: the meeting has work left on it, so it is not counted decided as well.
- **decided**: a final decision stands (`reviewer.panel.final`, the one meaning of
  decided) and nothing waits for the group.
- **open**: neither; the panel is still voting (or, with `unanimous_final` off, a
  unanimous item waits for the chair's lock).

So the counts add up (decided + disputed + open = items), an item is in exactly one
of the queue's Decided and Disputed filters or neither, and a row marked disputed is
counted disputed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from db.tables import Decision
from reviewer.items import Item
from reviewer.panel.final import final_decision
from reviewer.panel.phases import PhaseStatus, in_phase, status, unanimous
from reviewer.panel.snapshot import PHASE_FIELDS, PanelSnapshot
from reviewer.terms import Phase, StrEnum

FIELD_WORDS = {"verdict": "verdict", "problematic": "problematic flag", "severity": "severity",
               "category": "category"}


class Standing(StrEnum):
    """The one word an item's standing comes to (module docstring)."""

    DECIDED = "decided"
    DISPUTED = "disputed"
    OPEN = "open"


@dataclass(frozen=True)
class Dispute:
    """Every panelist voted the phase's fields, and they differ on these."""

    phase: Phase
    fields: tuple[str, ...]

    def words(self) -> str:
        """'disputed in phase 2: severity, category'."""
        return f"disputed in phase {int(self.phase)}: {', '.join(FIELD_WORDS[f] for f in self.fields)}"

    def describe(self) -> str:
        """In a sentence, for a tooltip."""
        return f"D{self.words()[1:]} (every panelist voted, and the votes differ; the group decides)"


@dataclass(frozen=True)
class PanelStanding:
    """An item's standing, the final decision it rests on (None: undecided) and its dispute."""

    standing: Standing
    decision: Decision | None = None
    dispute: Dispute | None = None

    @property
    def open(self) -> bool:
        """Not decided: the meeting's "next open item" and the queue's Undecided filter."""
        return self.standing != Standing.DECIDED


def dispute(snapshot: PanelSnapshot, item: Item) -> Dispute | None:
    """The item's first phase where every panelist voted and the votes differ, not settled
    by a decision, or None. Unanimous but waiting for the chair's lock (`unanimous_final`
    off) is no dispute."""
    for phase in Phase:
        if in_phase(snapshot, item, phase) and status(snapshot, item, phase) == PhaseStatus.AWAITS_GROUP:
            fields = tuple(name for name in PHASE_FIELDS[phase] if unanimous(snapshot, item, name) is False)
            if fields:
                return Dispute(phase, fields)
    return None


def panel_standing(snapshot: PanelSnapshot, item: Item) -> PanelStanding:
    """The item's standing (module docstring)."""
    decision = final_decision(snapshot, item)
    split = dispute(snapshot, item)
    if split is not None:
        return PanelStanding(Standing.DISPUTED, decision, split)
    return PanelStanding(Standing.DECIDED if decision is not None else Standing.OPEN, decision)


def standing_counts(snapshot: PanelSnapshot, items: Iterable[Item] | None = None) -> dict[Standing, int]:
    """{standing: items} over `items` (default: the snapshot's items, the panel's scope)."""
    counted = Counter(panel_standing(snapshot, item).standing
                      for item in (snapshot.items if items is None else items))
    return {s: counted.get(s, 0) for s in Standing}


def describe_counts(counts: dict[Standing, int], *, open_if_none: bool = True) -> str:
    """'8 decided · 3 disputed · 35 open' (`open_if_none` False: '8 decided · 3 disputed' when none is open,
    as in the meeting, whose rows the whole panel has voted)."""
    return " · ".join(f"{counts.get(s, 0):,} {s}" for s in Standing
                      if s != Standing.OPEN or open_if_none or counts.get(s, 0))
