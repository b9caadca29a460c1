"""Provisional decisions: what the chair's lock would make of the current votes.

The report counts the panel's own mistakes only once the chair has locked a
final decision ("panel" rows of `reviewed_mistakes`). Before that the tables
say nothing of the panel's work; `decision_status` says so, and, when asked,
`provisional_decisions` gives each item not yet locked the decision the panel's
majority rule gives its current votes, for tables marked provisional:

- the rule is `reviewer.panel.decisions.majority_of`, the one `lock_decision`
  applies (verdict: the most voted, unclear on a tie; problematic: more than
  half; severity: the most voted, major on a tie; category: the most voted,
  none on a tie);
- the verdict is voted only in phase 1 (`reviewer.panel.phases.in_phase`: a
  novel mistake, or a reopened one); a mistake already judged wrong keeps
  "wrong", as `lock_decision` carries it;
- an item locked "wrong" whose severity and category are still being rated
  (phase 2 open) keeps its locked verdict and takes the majority of the
  ratings cast so far.

Unlike a lock, nothing waits for every panelist: the majority is over the
votes cast so far, which is what makes it provisional.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from reviewer.panel.decisions import majority_of
from reviewer.panel.final import DECISION_COLUMNS, final_decision
from reviewer.panel.phases import in_phase
from reviewer.panel.snapshot import PanelSnapshot
from reviewer.terms import Verdict

PROVISIONAL = "provisional"  # the `source` of a reviewed mistake (and the `method` of a decision) from votes


@dataclass(frozen=True)
class DecisionStatus:
    """How much of the panel's work the final tables count."""

    items: int  # the panel's items (mistakes of the project's runs)
    locked: int  # items with a final decision (locked, or unanimous: reviewer.panel.final)
    voted: int  # items with votes and no final decision (not counted in the final tables)
    provisional: int  # items with a provisional decision (the voted ones, and locked "wrong" ones still rated)
    # Items with votes or decisions that count nowhere (reviewer.panel.snapshot): no longer mistakes under
    # the current labels, or made only by runs outside the panel's scope.
    no_longer_mistakes: int = 0
    outside_scope: int = 0

    def note(self, *, provisional_shown: bool) -> str:
        """What the final tables leave out, in words ('' when they count all the panel has done)."""
        kept = [f"{n} item{'s' if n != 1 else ''} with votes or decisions: {what}; not counted (reviewer show "
                "gives their history)." for n, what in ((self.no_longer_mistakes, "no longer a mistake under the "
                                                        "current labels"),
                                                       (self.outside_scope, "outside the panel's scope")) if n]
        head = self._head(provisional_shown=provisional_shown)
        return " ".join(filter(None, [head, *kept]))

    def _head(self, *, provisional_shown: bool) -> str:
        have = f"{self.voted} item{'s have' if self.voted != 1 else ' has'} votes"
        if not self.items or (self.locked and not self.voted):
            return ""
        if not self.locked:
            head = ("No final decision yet: the panel's own mistakes are not counted; "
                    + (f"{have}." if self.voted else "no item has votes yet."))
        else:
            head = (f"{self.locked} final decision{'s' if self.locked != 1 else ''}; {have} but no final decision: "
                    "not counted.")
        if not self.provisional:
            return head
        if provisional_shown:
            return head + (" Rows marked provisional count the majority of the current votes (the panel's rule, "
                           "not locked by the chair).")
        return head + " To see shares from the votes, marked provisional: the Provisional option (--provisional)."


def decision_status(snapshot: PanelSnapshot, provisional: pd.DataFrame) -> DecisionStatus:
    """`provisional`: `provisional_decisions(snapshot)`."""
    decided = {item for item in snapshot.facts if final_decision(snapshot, item) is not None}
    locked = len(decided)
    voted = sum(bool(snapshot.votes.get(item)) and item not in decided for item in snapshot.facts)
    return DecisionStatus(items=len(snapshot.facts), locked=locked, voted=voted,
                          provisional=len(provisional), no_longer_mistakes=len(snapshot.retired),
                          outside_scope=len(snapshot.outside_scope))


def _phase_2_open(decision) -> bool:
    return decision.verdict == Verdict.WRONG and decision.severity is None and decision.category is None


def provisional_decisions(snapshot: PanelSnapshot) -> pd.DataFrame:
    """One row per item whose current votes give a decision the chair has not locked
    (module docstring), in the columns of `reviewer.panel.final.decisions_table`
    (method and reviewer "provisional", no chair, no time)."""
    rows = []
    for item in snapshot.items:
        votes = snapshot.votes.get(item)
        if not votes:
            continue
        locked = final_decision(snapshot, item)
        majority = majority_of(votes.values())
        if locked is not None:
            if not _phase_2_open(locked) or (majority.severity is None and majority.category is None):
                continue
            verdict, problematic = locked.verdict, bool(locked.problematic)
        else:
            verdict = majority.verdict if in_phase(snapshot, item, 1) else Verdict.WRONG
            problematic = majority.problematic
        if verdict is None:
            continue
        wrong = verdict == Verdict.WRONG
        rows.append((item.image_id, item.predicted, str(verdict), problematic,
                     majority.severity if wrong else None, majority.category if wrong else None,
                     majority.oov_name if wrong else None, PROVISIONAL, PROVISIONAL, majority.describe(), None,
                     PROVISIONAL, None))
    frame = pd.DataFrame(rows, columns=DECISION_COLUMNS)
    return frame.astype({"image_id": "int64", "predicted": "int64", "problematic": bool})


def with_provisional(decisions: pd.DataFrame, provisional: pd.DataFrame) -> pd.DataFrame:
    """The standing decisions with the provisional ones in place of those of the same item."""
    if provisional.empty:
        return decisions
    items = pd.MultiIndex.from_frame(provisional[["image_id", "predicted"]])
    kept = decisions[~pd.MultiIndex.from_frame(decisions[["image_id", "predicted"]]).isin(items)]
    return pd.concat([kept, provisional], ignore_index=True).sort_values(["image_id", "predicted"],
                                                                          ignore_index=True)
