"""Error types per run (issue 37): each complete run's shares of the paper's four categories, "no
explanation found" and each severity among its mistakes, with the count of each answer by where
it came from (the panel, a published review, the categoriser's suggestion), and the shares
against MLA across runs (`reviewer.analysis.error_types`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reviewer.analysis import plots
from reviewer.analysis.error_types import ErrorTypes
from reviewer.analysis.plots import ERROR_TYPE_TITLES, PlotStyle
from reviewer.analysis.sections.cells import pct, plot_names, share
from reviewer.analysis.sections.section import Section
from reviewer.review.categorise import ERROR_TYPES, SEVERITIES, SOURCES
from reviewer.terms import SEVERITY_TITLES

PLOT = "error_types.png"
SOURCE_WORDS = {"panel": "the panel", "published": "a published review", "suggested": "suggested"}


def _level_cells(shares: dict, table: str, levels: tuple[str, ...]) -> dict[str, str]:
    total = sum(shares[table][level]["count"] for level in levels)
    return {level: share(shares[table][level]["count"], total) for level in levels}


def error_types_table(error_types: ErrorTypes) -> pd.DataFrame:
    """One row per run: its MLA, the mistakes counted, each error type's and severity's share
    with count and denominator, and how many answers each source gave."""
    rows = []
    for run in error_types.runs:
        s = run.shares
        row = {"run": str(run.run_id), "model": run.model, "MLA after review": pct(run.mla),
               "mistakes counted": f"{s['counted']} of {s['mistakes']}"}
        types = _level_cells(s, "error_types", ERROR_TYPES)
        row.update({ERROR_TYPE_TITLES[t]: types[t] for t in ERROR_TYPES})
        severities = _level_cells(s, "severity", SEVERITIES)
        row.update({SEVERITY_TITLES[v]: severities[v] for v in SEVERITIES})
        row["answers from"] = ", ".join(f"{SOURCE_WORDS[k]} {n}" for k, n in s["sources"].items())
        rows.append(row)
    return pd.DataFrame(rows)


def by_source_table(error_types: ErrorTypes) -> pd.DataFrame:
    """One row per run and source that gave answers: the count of each error type and severity."""
    rows = []
    for run in error_types.runs:
        s = run.shares
        for source in SOURCES:
            if not s["sources"][source]:
                continue
            rows.append({"run": str(run.run_id), "model": run.model, "answers from": SOURCE_WORDS[source],
                         "counted": str(s["sources"][source]),
                         **{ERROR_TYPE_TITLES[t]: str(s["error_types"][t]["by_source"][source]) for t in ERROR_TYPES},
                         **{SEVERITY_TITLES[v]: str(s["severity"][v]["by_source"][source]) for v in SEVERITIES}})
    return pd.DataFrame(rows)


def plot_table(error_types: ErrorTypes) -> pd.DataFrame:
    """What the plot draws: per run its MLA, the suggestions' share of its answers and each share."""
    rows = []
    for run in error_types.runs:
        counted = run.shares["counted"]
        rows.append({"run_id": run.run_id, "model": run.model, "mla": run.mla,
                     "suggested": run.shares["sources"]["suggested"] / counted if counted else 0.0,
                     **{t: run.share(t) for t in ERROR_TYPES}, "major": run.share("major")})
    return pd.DataFrame(rows, columns=["run_id", "model", "mla", "suggested", *ERROR_TYPES, "major"])


def error_types_section(error_types: ErrorTypes, out_dir: Path, style: PlotStyle) -> Section:
    section = Section("Error types per run", short="Error types")
    if not error_types.runs:
        section.text = "No complete run yet: error types are counted among a run's mistakes."
        return section
    section.text = (
        "Each complete run's mistakes (its top-1 outside the image's correct and unclear labels before the review), "
        "each counted with the panel's final decision where there is one, else a published review's answer on the "
        "same image and prediction, else the categoriser's suggestion (never a vote: docs/suggestions.md gives its "
        "rules and its agreement with the paper's panel). 'No explanation found' is the categoriser's fifth answer "
        "(Peychev et al., NeurIPS 2023: model failure); the panel and the published reviews answer with the paper's "
        "four. Not counted: mistakes the panel judged correct or unclear, and those on images whose ground truth is "
        "problematic. Borderline counts as Minor. The second table gives every count by where the answer came "
        "from; the plot, the shares against each run's MLA after the review.")
    unrated = [f"run {r.run_id}: {r.shares['unrated']['error_type']} without category, "
               f"{r.shares['unrated']['severity']} without severity" for r in error_types.runs
               if r.shares["unrated"]["error_type"] or r.shares["unrated"]["severity"]]
    if unrated:
        section.text += " Left out of the shares where the deciding answer set no value: " + "; ".join(unrated) + "."
    mostly = [str(r.run_id) for r in error_types.runs
              if r.shares["counted"] and r.shares["sources"]["suggested"] > r.shares["counted"] / 2]
    if mostly:
        section.warnings.append(
            f"Most answers of run{'s' if len(mostly) > 1 else ''} {', '.join(mostly)} are the categoriser's "
            "suggestions, not decisions: their shares are estimates (docs/suggestions.md: how often the suggestions "
            "agree with a panel).")
    section.tables = [("Shares of each error type and severity", error_types_table(error_types)),
                      ("Counts by where the answer came from", by_source_table(error_types))]
    table = plot_table(error_types)
    section.images = plot_names(plots.plot_error_types(table, out_dir / PLOT, style=style))
    unplaced = table.loc[table["mla"].isna(), "run_id"].astype(str).tolist()
    if unplaced and section.images:
        section.text += f" Not on the plot (no MLA): run{'s' if len(unplaced) > 1 else ''} {', '.join(unplaced)}."
    elif not section.images:
        section.text += " No plot: no run has an MLA (a project without multi-labels)."
    return section
