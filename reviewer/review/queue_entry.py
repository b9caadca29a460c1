"""One mistake of a run as the review queue holds it (`QueueEntry`): the stored mistake, the
item's state for the panelist (`reviewer.review.item_state`: their own verdict, the decided
value and how, a dispute, the phases waiting for them, the discussion notes) and what the
imported evidence sources say of the prediction.

An item is decided when it has a standing final decision (`reviewer.panel.final`), the same
rule everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewer.review.item_state import DecidedValue, ItemState
from reviewer.runs.mistakes import StoredMistake


@dataclass(frozen=True)
class QueueEntry(StoredMistake):
    """One mistake of the run, with what the queue filters and shows on it besides the
    mistake itself: the panel's state of the item for this panelist (`state`)."""

    state: ItemState = ItemState()  # what changes while the panel works (the rest is the run's)
    # What the imported evidence sources say of the prediction (reviewer.evidence.evidence_by_pair):
    # how many accept it, how many reject it, how many have a row on the image.
    sources_accepting: int = 0
    sources_rejecting: int = 0
    sources_covering: int = 0
    consensus: float | None = None  # ReaL's raters' consensus that the prediction is in the image

    @property
    def my_verdict(self) -> str | None:
        return self.state.my_verdict

    @property
    def decided(self) -> bool:
        return self.state.decided

    @property
    def decision(self) -> DecidedValue | None:
        return self.state.decision

    @property
    def to_do(self) -> frozenset[int]:
        return self.state.to_do

    @property
    def stands_wrong(self) -> bool:
        return self.state.stands_wrong
