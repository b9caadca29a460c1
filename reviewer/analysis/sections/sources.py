"""Source reliability: how often each imported evidence source agrees with the panel's
decisions, with Wilson 95% intervals (`reviewer.analysis.source_agreement`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reviewer.analysis import plots
from reviewer.analysis.plots import PlotStyle
from reviewer.analysis.provisional import PROVISIONAL
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.cells import plot_names, share
from reviewer.analysis.sections.section import Section
from reviewer.analysis.source_agreement import SourceReliability, agreement_frame


def agreement_cell(agreements: int, n: int, interval: tuple[float, float] | None) -> str:
    """'83.3% (10/12), 95% CI 55.2-95.3%'; '– (0/0)' for none."""
    if not n or interval is None:
        return share(agreements, n)
    return f"{share(agreements, n)}, 95% CI {100 * interval[0]:.1f}-{100 * interval[1]:.1f}%"


def _source_tables(reliability: SourceReliability, *, suffix: str = "") -> list[tuple[str, pd.DataFrame]]:
    """The agreement table and each source's accepts/rejects x verdict table."""
    rows, confusion = [], []
    for s in reliability.sources:
        if s.n:
            agree = agreement_cell(s.agreements, s.n, s.interval)
        elif not s.covered:
            agree = "no decided mistake covered"
        elif s.unclear:
            agree = "– (0/0): only decisions 'unclear'"
        else:
            agree = "– (0/0): no word on a decided prediction"
        rows.append({"source": f"{s.source}{suffix}", "n": str(s.n), "agree": str(s.agreements),
                     "share agreeing": agree, "unclear": str(s.unclear), "covered": str(s.covered),
                     "no word on the prediction": str(s.no_verdict)})
        confusion.append({"source": f"{s.source}{suffix}",
                          **{f"{says}, panel {verdict}": str(count) for says, by_verdict in s.confusion.items()
                             for verdict, count in by_verdict.items()}})
    return [("Agreement with the panel", pd.DataFrame(rows)),
            ("What each source says (accepts or rejects the prediction), by the panel's verdict",
             pd.DataFrame(confusion))]


def source_section(report: AnalysisReport, out_dir: Path, style: PlotStyle) -> Section:
    """How often each evidence source agrees with the panel's final decisions (Wilson 95% intervals);
    with the Provisional option, also with the majority of the current votes, marked provisional."""
    final, provisional = report.source_reliability, report.provisional_source_reliability
    section = Section("Source reliability", short="Sources")
    shown_provisional = (provisional is not None and bool(provisional.sources) and bool(provisional.decided)
                         and provisional.as_dict() != final.as_dict())
    if final.note and not shown_provisional:
        section.text = final.note  # one line: no evidence imported, or nothing decided
        if provisional is not None and final.sources and not provisional.decided:
            section.text += " Provisional: no item without a final decision has votes that decide it."
        return section
    section.text = (
        "Each imported evidence source against the panel's final decisions, over the decided mistakes (one per "
        "image and prediction) the source accepts or rejects: it agrees when it accepts the prediction and the "
        "panel judged it correct, or rejects it and the panel judged it wrong. n counts the decided mistakes "
        "judged correct or wrong that the source has a word on; those the panel judged unclear are counted "
        "apart, not in the share. 'Covered': decided mistakes whose image the source has a row on; 'no word': "
        "of those, the ones it says nothing about the prediction. 95% interval: Wilson's score interval "
        "(Wilson 1927; Brown, Cai & DasGupta 2001). Class groups say nothing about a prediction and are not "
        "listed.")
    if final.note:
        section.text += " " + final.note
    else:
        section.text += f" Decided mistakes: {final.decided}."
        section.tables += _source_tables(final)
        section.images += plot_names(plots.plot_source_reliability(agreement_frame(final),
                                                              out_dir / "source_reliability.png", style=style))
    if shown_provisional:
        caption = (f"PROVISIONAL, not locked: the final decisions plus the majority of the current votes on "
                   f"{report.status.provisional} items without one; {provisional.decided} decided mistakes")
        section.tables += [(f"{name}, {caption}", table)
                           for name, table in _source_tables(provisional, suffix=f" ({PROVISIONAL})")]
        section.images += plot_names(plots.plot_source_reliability(
            agreement_frame(provisional), out_dir / "source_reliability_provisional.png", style=style,
            title="PROVISIONAL (current votes, not locked): evidence sources' agreement with the panel"))
    elif provisional is not None:
        section.text += " Provisional: the current votes change no source's counts."
    return section
