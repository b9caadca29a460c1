"""Confused class pairs per model: each reviewed mistake's prediction with every correct
label of its image (`reviewer.analysis.tables.confused_pairs`); the full list as CSV."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reviewer.analysis import plots
from reviewer.analysis.plots import PlotStyle
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.cells import plot_names, safe_name
from reviewer.analysis.sections.section import Section


def confusions_section(report: AnalysisReport, out_dir: Path, style: PlotStyle) -> Section:
    """The top 20 pairs of each model and its plot; writes confused_pairs.csv (every pair) into `out_dir`."""
    report.confusions.to_csv(out_dir / "confused_pairs.csv", index=False, lineterminator="\n")
    section = Section("Confused class pairs", "Each reviewed mistake pairs its prediction with every correct label of "
                      "its image (after the review); unordered pairs, the smaller wnid first. Top 20 per model; the "
                      "full long-tailed list is in confused_pairs.csv.", short="Confusions")
    for model, group in report.confusions.groupby("model"):
        top = group.head(20)
        section.tables.append((f"{model}: {len(group)} pairs over {int(group['frequency'].sum())} "
                               "prediction-label links", pd.DataFrame({
                                   "class A": [f"{n} ({w})" for n, w in zip(top["name_a"], top["wnid_a"])],
                                   "class B": [f"{n} ({w})" for n, w in zip(top["name_b"], top["wnid_b"])],
                                   "frequency": top["frequency"].astype(str)})))
        section.images += plot_names(plots.plot_confusions(
            report.confusions, out_dir / f"confusions_{safe_name(model)}.png", model=str(model), style=style))
    return section
