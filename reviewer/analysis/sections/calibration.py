"""Calibration (QUBA's ECE, ACE, CE), class balance and the multi-label ECE per run,
with reliability diagrams (`reviewer.analysis.calibration`, `reviewer.analysis.class_balance`)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import pandas as pd

from reviewer.analysis import plots
from reviewer.analysis.plots import PlotStyle
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.cells import pct, plot_names
from reviewer.analysis.sections.section import Section


def calibration_section(report: AnalysisReport, out_dir: Path, style: PlotStyle, *,
                        plot_runs: Collection[int] | None = None) -> Section:
    """The table of every run, and the reliability diagram of each run in `plot_runs` (None:
    every run; a window with twenty runs draws the one model chosen, a second or two each)."""
    o = report.options
    names = {run.id: run.model for run in report.summary.runs}
    section = Section("Calibration and class balance", short="Calibration", text=(
        f"QUBA: ECE with {o.ece_bins} equal-width bins of the top-1 probability against top-1 correctness on the "
        f"original label; ACE with {o.ece_bins} equal-mass bins per class over all classes; CE their geometric "
        "mean (lower is better). Class balance (Eqs. 10-12 as printed; higher is better): 1 − the root mean square "
        "over classes of each class's accuracy minus the accuracy over all images (F_Acc), likewise of each "
        "class's mean true-class confidence minus the mean over all images (F_Conf), and their geometric mean; "
        "on a set with unequal numbers of images per class this is not the spread around the mean of the class "
        "values. The authors' code computes the confidence term as the mean within-class spread, shown apart. "
        "Multi-label ECE: correct = accepted by the multi-labels after the review (this tool's variant)."))
    rows = []
    for run_id, result in report.calibration.items():
        balance = report.class_balance.get(run_id)
        ml = report.calibration_multilabel.get(run_id)
        rows.append({"run": str(run_id), "model": names.get(run_id, ""), "images": str(result.images),
                     "ECE": pct(result.ece, 2), "ACE": pct(result.ace, 3), "CE": pct(result.ce, 2),
                     "class balance": f"{balance.class_balance:.3f}" if balance else "–",
                     "(accuracy, confidence)": (f"{balance.accuracy_balance:.3f}, {balance.confidence_balance:.3f}"
                                                if balance else "–"),
                     "authors' code": f"{balance.code_class_balance:.3f}" if balance else "–",
                     "multi-label ECE": pct(ml.ece, 2) if ml else "–"})
        if plot_runs is not None and run_id not in plot_runs:
            section.runs_not_drawn.append(run_id)
            continue
        drawn = plot_names(plots.plot_reliability(result, out_dir / f"reliability_run{run_id}.png",
                                                  title=f"{names.get(run_id, '')} (run {run_id})", style=style))
        section.images += drawn
        section.image_runs.update(dict.fromkeys(drawn, run_id))
    if rows:
        section.tables.append(("", pd.DataFrame(rows)))
    return section
