"""Where the panel stands on one item, as one panelist sees it: what the review
queue shows on a row and filters on.

`ItemState` carries the panelist's own verdict, the final decision's value and how it
came about (`reviewer.panel.final`, the one meaning of decided), the item's standing
(decided, disputed or open) and its dispute as the domain computes them
(`reviewer.panel.standing.panel_standing`: a disputed row is counted disputed, never
decided as well), the phases still waiting for this panelist's vote (`phases.to_do`),
and how many discussion notes the item has.

Blind review (`reviewer.panel.rules`): nothing here reveals another panelist's value.
A decision is everyone's to see; a dispute is known only once every panelist voted,
the viewer included, so it tells the viewer nothing the blind rule hides (a viewer off
the panel sees disputes only when the panel is not blind).
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewer.items import Item
from reviewer.panel.final import DecidedHow, decided_how
from reviewer.panel.phases import correctness, to_do
from reviewer.panel.snapshot import PanelSnapshot
from reviewer.panel.standing import Dispute as Dispute  # (re-exported: the queue's rows show it)
from reviewer.panel.standing import PanelStanding, Standing, panel_standing
from reviewer.terms import Category, Phase, Severity, Verdict

_HOW_WORDS = {
    DecidedHow.UNANIMOUS: "the whole panel voted alike",
    DecidedHow.MAJORITY: "the chair locked the majority's assessment",
    DecidedHow.TIE_UNCLEAR: "the verdicts were tied, so the chair locked 'unclear'",
    DecidedHow.OVERRIDE: "the chair overrode the votes",
}


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
class ItemState:
    """What changes on an item while the panel works (module docstring)."""

    my_verdict: str | None = None
    decision: DecidedValue | None = None
    dispute: Dispute | None = None
    to_do: frozenset[Phase] = frozenset()  # the phases waiting for this panelist's vote (`phases.to_do`)
    stands_wrong: bool = False  # its correctness stands as wrong: severity and category are rated (phase 2)
    notes: int = 0  # discussion notes (reviewer.panel.discussion)
    # Decided, disputed or open: the domain's one word (reviewer.panel.standing), which the rows, the header's
    # counts and the Show filters all read.
    standing: Standing = Standing.OPEN

    @property
    def decided(self) -> bool:
        """Decided and nothing waits for the group (a verdict decided whose rating is disputed is not)."""
        return self.standing == Standing.DECIDED

    @property
    def awaits_my_rating(self) -> bool:
        """The verdict stands wrong and this panelist's severity and category are still to give."""
        return Phase.RATING in self.to_do

    @property
    def problematic(self) -> bool | None:
        """The final decision's problematic flag; None while undecided (nothing to say yet)."""
        return None if self.decision is None else self.decision.problematic


def item_state(snapshot: PanelSnapshot, item: Item, panelist_id: int | None, *, notes: int = 0,
               show_disputes: bool = True) -> ItemState:
    """The item's state for this panelist (`show_disputes` False: a viewer off a blind panel)."""
    mine = snapshot.votes.get(item, {}).get(panelist_id) if panelist_id is not None else None
    standing = panel_standing(snapshot, item)
    decision = standing.decision
    if standing.dispute is not None and not show_disputes:  # blind: the viewer may not know of the split
        standing = PanelStanding(Standing.DECIDED if decision is not None else Standing.OPEN, decision)
    value = None if decision is None else DecidedValue(
        verdict=decision.verdict, how=decided_how(decision), problematic=bool(decision.problematic),
        severity=decision.severity, category=decision.category)
    return ItemState(my_verdict=mine.verdict if mine is not None else None, decision=value,
                     dispute=standing.dispute, to_do=to_do(snapshot, item, panelist_id),
                     stands_wrong=correctness(snapshot, item) == Verdict.WRONG, notes=notes,
                     standing=standing.standing)
