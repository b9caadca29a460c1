"""The panel's own agreement for the report: per field the statistics of
`reviewer.panel.agreement` (percent agreement, Krippendorff's alpha, Fleiss' kappa,
Gwet's AC1, bootstrap 95 % intervals), each panelist's reliability
(`reviewer.panel.panelist_reliability`: agreement with the final decisions, with Wilson
95 % intervals as `source_agreement` computes them, and Dawid–Skene's estimate of their
verdict accuracy), and how many current votes were cast in each queue order
(`Vote.queue_order`: an order that picks items, such as the most informative next,
changes which mistakes were decided first).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

from reviewer.analysis.source_agreement import wilson_interval
from reviewer.panel.agreement import FieldAgreement, agreement_report
from reviewer.panel.panelist_reliability import (
    RELIABILITY_FIELDS,
    PanelistReliability,
    PanelReliability,
    panel_reliability,
)
from reviewer.panel.snapshot import PanelSnapshot

NOT_RECORDED = "not recorded"  # votes cast outside the review page, or before migration 0010


@dataclass(frozen=True)
class PanelistRow:
    reliability: PanelistReliability
    intervals: dict[str, tuple[float, float] | None]  # field -> Wilson 95 % interval of the agreement share


@dataclass
class PanelAgreement:
    fields: list[FieldAgreement] = field(default_factory=list)
    panelists: list[PanelistRow] = field(default_factory=list)
    reliability: PanelReliability = field(default_factory=PanelReliability)
    resamples: int = 0
    votes_by_order: dict[str, int] = field(default_factory=dict)  # queue order -> current votes cast in it

    @property
    def note(self) -> str:
        """Why the section has no tables ('' when it has)."""
        if not self.panelists:
            return "No panelist yet: the panel's agreement waits for the first votes."
        if not any(r.items for r in self.fields):
            return "No item has two votes on any field yet: no agreement to measure."
        return ""

    def as_dict(self) -> dict:
        """The `panel` key of `reviewer report --json`."""
        return {"fields": [asdict(r) for r in self.fields], "resamples": self.resamples,
                "decided": self.reliability.decided, "dawid_skene_items": self.reliability.items,
                "panelists": [{"name": row.reliability.name, "panelist_id": row.reliability.panelist_id,
                               **{f"{name}_agreement": {"agreements": row.reliability.matches[name].agreements,
                                                        "n": row.reliability.matches[name].n,
                                                        "interval": row.intervals[name]}
                                  for name in RELIABILITY_FIELDS},
                               "dawid_skene_accuracy": row.reliability.accuracy,
                               "verdict_votes": row.reliability.verdict_votes} for row in self.panelists],
                "votes_by_queue_order": dict(self.votes_by_order)}


def panel_agreement(snapshot: PanelSnapshot, *, resamples: int = 1000, seed: int = 0) -> PanelAgreement:
    """Every figure of the report's panel section, from one snapshot (module docstring)."""
    reliability = panel_reliability(snapshot)
    rows = [PanelistRow(p, {name: wilson_interval(p.matches[name].agreements, p.matches[name].n)
                            for name in RELIABILITY_FIELDS}) for p in reliability.panelists]
    orders = Counter(vote.queue_order or NOT_RECORDED for per_item in snapshot.votes.values()
                     for vote in per_item.values())
    return PanelAgreement(fields=agreement_report(snapshot, resamples=resamples, seed=seed) if snapshot.panelists
                          else [], panelists=rows, reliability=reliability, resamples=resamples,
                          votes_by_order=dict(sorted(orders.items())))
