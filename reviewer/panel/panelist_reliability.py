"""How reliable each panelist is, two ways.

- Agreement with the panel's final decisions (`reviewer.panel.final`, the one meaning of
  "decided"): per field (verdict, severity, category), over the decided items the panelist
  voted that field on and the decision settles, the share where their current vote is the
  decision's value. A unanimous decision includes every panelist's own vote, so this share
  reads "how often the panel ended where I stood", not an independent test; the chair's
  locks and overrides are where it says most.
- Dawid–Skene's estimate of each panelist's accuracy on the verdict (Dawid and Skene 1979;
  `reviewer.panel.dawid_skene`): EM over every current verdict vote of phase 1, decided or
  not, without looking at the decisions, estimates each panelist's confusion matrix (their
  vote given the item's true verdict) and the verdicts' priors; accuracy = Σ_k prior_k ·
  P(votes k | true k). With few items or a panel that always agrees it is near 1 for
  everyone and says little: read it with the number of items it rests on.

Per panelist also the Dawid–Skene confusion matrix itself, rows the true verdict
(correct, wrong, unclear), columns their vote: a panelist who says "unclear" where the
others see "wrong" shows it there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reviewer.panel.agreement import FIELD_VALUES, field_ratings
from reviewer.panel.dawid_skene import fit_dawid_skene
from reviewer.panel.final import final_decisions
from reviewer.panel.snapshot import PanelSnapshot

RELIABILITY_FIELDS = ("verdict", "severity", "category")
VERDICTS = tuple(str(v) for v in FIELD_VALUES["verdict"])


@dataclass(frozen=True)
class Match:
    """How often a panelist's vote on a field is the final decision's: `agreements` of `n`."""

    agreements: int = 0
    n: int = 0

    @property
    def share(self) -> float | None:
        return self.agreements / self.n if self.n else None


@dataclass(frozen=True)
class PanelistReliability:
    panelist_id: int
    name: str
    matches: dict[str, Match]  # field -> agreement with the final decisions
    verdict_votes: int  # the panelist's verdict votes in the Dawid–Skene fit
    accuracy: float | None  # Dawid–Skene's estimate on the verdict; None without a vote
    # P(their vote | true verdict): rows and columns in VERDICTS order; None without a vote.
    confusion: tuple[tuple[float, ...], ...] | None = None


@dataclass(frozen=True)
class PanelReliability:
    panelists: list[PanelistReliability] = field(default_factory=list)
    decided: int = 0  # items with a final decision
    items: int = 0  # items with a verdict vote: what the Dawid–Skene fit rests on
    iterations: int = 0
    converged: bool = False

    @property
    def note(self) -> str:
        """Why a figure is missing ('' when none is)."""
        if not self.panelists:
            return "No panelist yet."
        if not self.items:
            return "No verdict voted yet: nothing to estimate a panelist's reliability from."
        if not self.decided:
            return "No final decision yet: the agreement with the decisions waits for the first."
        return ""


def panel_reliability(snapshot: PanelSnapshot) -> PanelReliability:
    """Each panelist's agreement with the final decisions and Dawid–Skene accuracy (module docstring)."""
    decisions = final_decisions(snapshot)
    matches: dict[int, dict[str, Match]] = {p.id: {} for p in snapshot.panelists}
    for pid in matches:
        for name in RELIABILITY_FIELDS:
            agreements = n = 0
            for item, decision in decisions.items():
                settled = getattr(decision, name)
                vote = snapshot.values(item, name).get(pid)
                if settled is None or vote is None:
                    continue
                n += 1
                agreements += str(vote) == str(settled)
            matches[pid][name] = Match(agreements, n)
    fit, ids, answered = _fit_verdicts(snapshot)
    out = []
    for position, p in enumerate(snapshot.panelists):
        votes = int(answered[position]) if fit is not None else 0
        accuracy = confusion = None
        if votes:
            accuracy = float(fit.accuracy()[position])
            confusion = tuple(tuple(round(float(x), 6) for x in row) for row in fit.confusion[position])
        out.append(PanelistReliability(panelist_id=p.id, name=p.name, matches=matches[p.id], verdict_votes=votes,
                                       accuracy=accuracy, confusion=confusion))
    return PanelReliability(panelists=out, decided=len(decisions), items=len(ids),
                            iterations=fit.iterations if fit is not None else 0,
                            converged=fit.converged if fit is not None else False)


def _fit_verdicts(snapshot: PanelSnapshot):
    """Dawid–Skene over the current verdict votes of phase 1 (panelists in the snapshot's order)."""
    ratings = field_ratings(snapshot, "verdict")
    position = {p.id: i for i, p in enumerate(snapshot.panelists)}
    items = sorted({item for per in ratings.values() for item in per}, key=lambda i: (i.image_id, i.predicted))
    task = {item: i for i, item in enumerate(items)}
    rows = [(task[item], position[pid], VERDICTS.index(str(value)))
            for pid, per in ratings.items() for item, value in per.items()]
    if not rows:
        return None, items, np.zeros(len(position), dtype=int)
    tasks, raters, answers = np.array(rows).T
    fit = fit_dawid_skene(tasks, raters, answers, classes=len(VERDICTS), n_tasks=len(items),
                          n_raters=len(position), max_iter=200, tol=1e-7)
    return fit, items, fit.answered
