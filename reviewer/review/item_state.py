"""Where the panel stands on one item, as one panelist sees it: what the review
queue shows on a row and filters on.

`ItemState` carries the panelist's own verdict, the final decision's value and how it
came about (`reviewer.panel.final`, the one meaning of decided), a dispute (every
panelist voted a phase's fields and they differ: `phases.status` is AWAITS_GROUP), the
phases still waiting for this panelist's vote (`phases.to_do`), and how many
discussion notes the item has.

Blind review (`reviewer.panel.rules`): nothing here reveals another panelist's value.
A decision is everyone's to see; a dispute is known only once every panelist voted,
the viewer included, so it tells the viewer nothing the blind rule hides (a viewer off
the panel sees disputes only when the panel is not blind).
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewer.items import Item
from reviewer.panel.final import DecidedHow, decided_how, final_decision
from reviewer.panel.phases import PhaseStatus, correctness, in_phase, status, to_do, unanimous
from reviewer.panel.snapshot import PHASE_FIELDS, PanelSnapshot
from reviewer.terms import Category, Phase, Severity, StrEnum, Verdict

_HOW_WORDS = {
    DecidedHow.UNANIMOUS: "the whole panel voted alike",
    DecidedHow.MAJORITY: "the chair locked the majority's assessment",
    DecidedHow.TIE_UNCLEAR: "the verdicts were tied, so the chair locked 'unclear'",
    DecidedHow.OVERRIDE: "the chair overrode the votes",
}
_FIELD_WORDS = {"verdict": "verdict", "problematic": "problematic flag", "severity": "severity",
                "category": "category"}


class Standing(StrEnum):
    """The one word an item's standing comes to in the queue's counts, which add up:
    decided (a final decision stands), disputed (undecided, the group must meet), open
    (undecided, the panel is still voting)."""

    DECIDED = "decided"
    DISPUTED = "disputed"
    OPEN = "open"


@dataclass(frozen=True)
class DecidedValue:
    """What the item's final decision says, and how it came about."""

    verdict: str | None
    how: DecidedHow
    problematic: bool = False
    severity: str | None = None
    category: str | None = None

    def caption(self) -> str:
        """"Wrong · Major · Fine-grained", "Unclear"."""
        parts = [Verdict(self.verdict).caption if self.verdict else "no verdict"]
        if self.severity:
            parts.append(Severity(self.severity).caption)
        if self.category:
            parts.append(Category(self.category).caption)
        return " · ".join(parts)

    def describe(self) -> str:
        """In words, for a tooltip: the value, how it was decided, the problematic flag."""
        text = f"Decided: {self.caption()} ({_HOW_WORDS[self.how]})"
        if self.verdict == Verdict.WRONG and not self.severity:
            text += "; severity and category not decided yet"
        if self.problematic:
            text += "; the ground truth label is problematic"
        return text


@dataclass(frozen=True)
class Dispute:
    """Every panelist voted the phase's fields, and they differ on these."""

    phase: Phase
    fields: tuple[str, ...]

    def describe(self) -> str:
        names = ", ".join(_FIELD_WORDS[f] for f in self.fields)
        return (f"Disputed in phase {self.phase}: every panelist voted, and the votes differ on the {names}; "
                "the group decides")


@dataclass(frozen=True)
class ItemState:
    """What changes on an item while the panel works (module docstring)."""

    my_verdict: str | None = None
    decision: DecidedValue | None = None
    dispute: Dispute | None = None
    to_do: frozenset[Phase] = frozenset()  # the phases waiting for this panelist's vote (`phases.to_do`)
    stands_wrong: bool = False  # its correctness stands as wrong: severity and category are rated (phase 2)
    notes: int = 0  # discussion notes (reviewer.panel.discussion)

    @property
    def decided(self) -> bool:
        return self.decision is not None

    @property
    def awaits_my_rating(self) -> bool:
        """The verdict stands wrong and this panelist's severity and category are still to give."""
        return Phase.RATING in self.to_do

    @property
    def problematic(self) -> bool | None:
        """The final decision's problematic flag; None while undecided (nothing to say yet)."""
        return None if self.decision is None else self.decision.problematic

    @property
    def standing(self) -> Standing:
        if self.decision is not None:
            return Standing.DECIDED
        return Standing.DISPUTED if self.dispute is not None else Standing.OPEN


def dispute(snapshot: PanelSnapshot, item: Item) -> Dispute | None:
    """The item's first phase where every panelist voted and the votes differ, or None."""
    for phase in Phase:
        if in_phase(snapshot, item, phase) and status(snapshot, item, phase) == PhaseStatus.AWAITS_GROUP:
            fields = tuple(name for name in PHASE_FIELDS[phase] if unanimous(snapshot, item, name) is False)
            if fields:  # unanimous but waiting for the chair's lock (unanimous_final off) is no dispute
                return Dispute(phase, fields)
    return None


def item_state(snapshot: PanelSnapshot, item: Item, panelist_id: int | None, *, notes: int = 0,
               show_disputes: bool = True) -> ItemState:
    """The item's state for this panelist (`show_disputes` False: a viewer off a blind panel)."""
    mine = snapshot.votes.get(item, {}).get(panelist_id) if panelist_id is not None else None
    decision = final_decision(snapshot, item)
    value = None if decision is None else DecidedValue(
        verdict=decision.verdict, how=decided_how(decision), problematic=bool(decision.problematic),
        severity=decision.severity, category=decision.category)
    return ItemState(my_verdict=mine.verdict if mine is not None else None, decision=value,
                     dispute=dispute(snapshot, item) if show_disputes else None,
                     to_do=to_do(snapshot, item, panelist_id),
                     stands_wrong=correctness(snapshot, item) == Verdict.WRONG, notes=notes)
