"""The report's sections on what was probed beside the panel's review: how far each
imported evidence source agrees with the panel's decisions (Wilson intervals), and
which mistakes a zoomed crop corrects (Taesiri et al. 2023)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reviewer.analysis import plots
from reviewer.analysis.plots import PlotStyle
from reviewer.analysis.provisional import PROVISIONAL
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.section import Section, pct, plot_names, share
from reviewer.analysis.source_agreement import SourceReliability, agreement_frame
from reviewer.analysis.zoom_section import (
    CATEGORIES,
    GROUPS,
    PAPER_OPTIMAL_ZOOM,
    SEVERITIES,
    UNRATED,
    VERDICTS,
    ZoomReport,
)
from reviewer.runs.zoom.result import ACCEPTED_RULE, TAESIRI_RULE
from reviewer.terms import CATEGORY_TITLES, SEVERITY_TITLES

# The zoom table's two "corrected" columns: this tool's accepted labels and Taesiri et al.'s IN+ReaL.
ZOOM_TOOL_COLUMN = "corrected by some crop (this tool: correct/unclear ∪ ReaL)"
ZOOM_TAESIRI_COLUMN = "corrected by some crop (Taesiri et al.: IN+ReaL, original ∪ ReaL)"


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


def _zoom_tables(zoom: ZoomReport) -> list[tuple[str, pd.DataFrame]]:
    """Per model: corrected by verdict; the wrong ones' severity x category; by zoom group."""
    probed = [m for m in zoom.models if m.probed or m.partial]
    rows = [{"model": m.model, "mistakes": str(m.mistakes), ZOOM_TOOL_COLUMN: share(m.corrected, m.probed),
             ZOOM_TAESIRI_COLUMN: share(m.taesiri_corrected, m.probed),
             **{f"panel: {v}": share(*m.by_verdict[v]) for v in VERDICTS},
             "partial (not in the shares)": (f"{m.partial}, {m.partial_corrected} already corrected"
                                             if m.partial else "0")} for m in probed]
    tables = [(("Mistakes some crop corrects, per model (complete probes), by the panel's verdict (by this tool's "
                "accepted labels, but the Taesiri et al. column)"), pd.DataFrame(rows))]
    titles = {**CATEGORY_TITLES, UNRATED: "unrated"}
    for m in probed:
        if not m.by_verdict[VERDICTS[1]][1]:
            continue
        cross = [{"severity": SEVERITY_TITLES.get(sev, sev),
                  **{titles[c]: share(*m.crosstab[sev][c]) for c in CATEGORIES},
                  "all": share(*m.by_severity[sev])} for sev in SEVERITIES]
        cross.append({"severity": "all", **{titles[c]: share(*m.by_category[c]) for c in CATEGORIES},
                      "all": share(*m.by_verdict[VERDICTS[1]])})
        tables.append(((f"{m.model}: decided wrong, corrected by some crop (this tool's accepted labels), "
                        "severity × category"), pd.DataFrame(cross)))
    tables.append((("Mistakes a crop of each zoom group corrects (this tool's accepted labels; zoom-out S < 224, "
                    "zoom-in S > 224; one mistake may count in several)"),
                   pd.DataFrame([{"model": m.model, **{g: share(m.by_group[g], m.probed) for g in GROUPS}}
                                 for m in probed])))
    return tables


def zoom_section(zoom: ZoomReport) -> Section:
    """Per model, the mistakes that some crop of the zoom probe corrects (Taesiri et al. 2023 §3, §4.1)."""
    section = Section("Zoom probe", short="Zoom")
    if zoom.note:
        section.text = zoom.note
        return section
    paper = PAPER_OPTIMAL_ZOOM
    section.text = (
        "The zoom probe (Taesiri et al. 2023, ImageNet-Hard, §3): the model over 36 scales × a 3×3 grid of 224-px "
        "crops, 324 crops; a mistake counts as corrected when the top-1 of at least one crop is among the image's "
        "accepted labels, the paper's 'correctly classified given the optimal zoom', proper framing. Two rules "
        f"for the accepted labels: '{ZOOM_TOOL_COLUMN}': {ACCEPTED_RULE} (before the review), as the review "
        "window draws them; every other count here uses it. "
        f"'{ZOOM_TAESIRI_COLUMN}': {TAESIRI_RULE} ('For each IN image, we use the union of the IN and ReaL "
        f"labels (IN+ReaL)', §3), the rule of their {pct(paper['share'], 2)} ({paper['model']}, Table 1c), which "
        "is over all ImageNet validation images, not over a model's mistakes. Over each model's mistakes with a "
        "complete stored probe; partial probes (stopped) are counted apart, not in the shares. Split by the "
        "panel's final decision ('undecided': none, or reopened); severity and category for the mistakes decided "
        "wrong.")
    if not zoom.real_labels:
        section.warnings.append("The project has no ReaL labels: both rules go without them (Taesiri et al.'s is "
                                "then the original label alone). Import ReaL (reviewer import-labels) to compare.")
    if zoom.unreadable:
        section.warnings.append(f"{zoom.unreadable} stored zoom result(s) could not be read (a newer probe "
                                "version, or an image without labels) and are left out.")
    section.tables += _zoom_tables(zoom)
    return section
