"""The leaderboard on the curated slice, with the trend plot of slice score against
top-1 (`reviewer.evaluation.leaderboard`, the paper's §5.1)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reviewer.analysis import plots
from reviewer.analysis.plots import PlotStyle
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.cells import pct, share
from reviewer.analysis.sections.section import Section
from reviewer.evaluation.leaderboard import off_trend


def leaderboard_section(report: AnalysisReport, out_dir: Path, style: PlotStyle) -> Section:
    o = report.options
    board = report.leaderboard
    table = pd.DataFrame({
        "run": board["run_id"].astype(str), "model": board["model"],
        "images": board["images_covered"].astype(str),
        "top-1": ["–" if pd.isna(t) else share(c, t) for c, t in zip(board["top1_correct"], board["top1_total"])],
        "top-1 over": board["top1_scope"].fillna("–").astype(str),
        "MLA after review": [pct(v) for v in board["mla"]],
        o.slice_name: ["–" if pd.isna(s) else f"{share(c, t)}, CI {pct(lo)}–{pct(hi)}"
                       for c, t, s, lo, hi in zip(board["slice_correct"], board["slice_total"], board["slice_score"],
                                                  board["slice_low"], board["slice_high"])],
        "computed in": board["precision"]})
    trend = plots.plot_trend(board, out_dir / "trend.png", slice_name=o.slice_name, style=style)
    unplaced = off_trend(board)
    return Section(f"Leaderboard on {o.slice_name}", short="Leaderboard",
                   text="Slice score: predictions among the image's correct or unclear labels, with a "
                   "Clopper-Pearson 95% interval." + (
                       f" No run has a score on {o.slice_name!r} (no such slice, or no run predicted its "
                       "images); choose another slice." if len(board) and board["slice_total"].isna().all()
                       else "") + (
                       " Not on the trend plot (run over the slice only, no full-set top-1 of the model): "
                       + ", ".join(unplaced) + "." if unplaced else ""),
                   tables=[("", table)] if len(board) else [],
                   images=["trend.png"] if trend else [])
