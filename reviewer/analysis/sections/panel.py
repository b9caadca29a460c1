"""The panel's agreement and each panelist's reliability (`reviewer.analysis.panel_agreement`):
per field percent agreement, Krippendorff's alpha, Fleiss' kappa and Gwet's AC1; per
panelist agreement with the final decisions and Dawid–Skene's accuracy; the queue orders
the votes were cast in."""

from __future__ import annotations

import pandas as pd

from reviewer.analysis.panel_agreement import NOT_RECORDED, PanelAgreement
from reviewer.analysis.sections.cells import pct, share
from reviewer.analysis.sections.section import Section
from reviewer.panel.agreement import Estimate
from reviewer.panel.panelist_reliability import RELIABILITY_FIELDS


def estimate_cell(estimate: Estimate | None) -> str:
    """'0.48 [0.11, 0.84]'; '–' when undefined."""
    if estimate is None or estimate.value is None:
        return "–"
    if estimate.low is None:
        return f"{estimate.value:.3f}"
    return f"{estimate.value:.3f} [{estimate.low:.2f}, {estimate.high:.2f}]"


def _agreement_cell(agreements: int, n: int, interval: tuple[float, float] | None) -> str:
    if not n or interval is None:
        return share(agreements, n)
    return f"{share(agreements, n)}, 95% CI {100 * interval[0]:.1f}-{100 * interval[1]:.1f}%"


def panel_section(panel: PanelAgreement) -> Section:
    """The panel's agreement per field, each panelist against the decisions, and the queue orders used."""
    section = Section("Panel agreement and panelist reliability", short="Panel")
    if panel.note:
        section.text = panel.note
        return section
    section.text = (
        "Per field, over the items of its phase with two or more votes: percent agreement (the mean share of "
        "agreeing pairs), Krippendorff's alpha, Fleiss' kappa (over the items every panelist voted) and Gwet's AC1 "
        "(Gwet 2008; Handbook of Inter-Rater Reliability, 2014), with bootstrap 95% intervals "
        f"({panel.resamples} resamples of the items). Kappa and alpha fall towards 0 when nearly every vote is one "
        "value even if the panel agrees; AC1 does not. Per panelist: how often their vote is the final decision "
        "(Wilson 95% intervals; a unanimous decision includes their own vote) and Dawid and Skene's (1979) "
        f"estimate of their verdict accuracy from the votes alone, over {panel.reliability.items} items.")
    fields = [{"field": r.field, "phase": str(r.phase), "items": str(r.items), "raters": str(r.raters),
               "percent agreement": estimate_cell(r.percent), "alpha (nominal)": estimate_cell(r.alpha_nominal),
               "alpha (ordinal)": estimate_cell(r.alpha_ordinal), "Fleiss' kappa": estimate_cell(r.fleiss_kappa),
               "Gwet's AC1": estimate_cell(r.gwet_ac1)} for r in panel.fields]
    section.tables.append(("Agreement per field", pd.DataFrame(fields)))
    rows = []
    for row in panel.panelists:
        p = row.reliability
        rows.append({"panelist": p.name,
                     **{f"{name} = decision": _agreement_cell(p.matches[name].agreements, p.matches[name].n,
                                                              row.intervals[name]) for name in RELIABILITY_FIELDS},
                     "Dawid–Skene verdict accuracy": pct(p.accuracy),
                     "verdict votes": str(p.verdict_votes)})
    section.tables.append((f"Each panelist against the {panel.reliability.decided} final decisions",
                           pd.DataFrame(rows)))
    total = sum(panel.votes_by_order.values())
    orders = [{"queue order": order, "current votes": share(count, total)}
              for order, count in panel.votes_by_order.items()]
    section.tables.append(("The queue order each current vote was cast in ('" + NOT_RECORDED + "': the command line, "
                           "a batch, the meeting, or before the order was recorded)", pd.DataFrame(orders)))
    if panel.reliability.note:
        section.warnings.append(panel.reliability.note)
    return section
