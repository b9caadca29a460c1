"""The analysis report: the paper's tables for any model and any panel.

`build_report` gathers, from the project as it stands:
- MLA before and after the review for all / organism / object classes per run
  (Table 1), from `reviewer.summary.project_summary`;
- category and severity counts and shares of each model's reviewed mistakes
  (Table 2; imported reviews and the panel's decisions), with chi-square tests
  of independence between every two models;
- confused class pairs with frequencies; category shares per WordNet distance;
- variable top-k / ASMA per label-count subgroup, and calibration (ECE,
  reliability diagram) per run;
- the leaderboard on the curated slice.
`report_json` is the machine-readable form (the `analysis` key of `reviewer
report --json`); `reviewer.analysis.render` writes Markdown or HTML with plots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd
from sqlalchemy import select

from db.engine import read_session
from db.tables import Run
from reviewer.analysis.calibration import ECE_BINS, Calibration, run_calibration
from reviewer.analysis.tables import (category_by_distance, category_severity_counts, chi_square_tests,
                                      confused_pairs, shares)
from reviewer.judgements import reviewed_labelset
from reviewer.labelset import load_labelset
from reviewer.leaderboard import leaderboard
from reviewer.predictions import load_predictions
from reviewer.project import Project
from reviewer.reviewed import reviewed_mistakes
from reviewer.summary import project_summary


@dataclass(frozen=True)
class ReportOptions:
    keep_borderline: bool = False  # count Borderline apart instead of as Minor
    yates: bool = False  # Yates' continuity correction on 2 x 2 chi-square tables
    slice_name: str = "imagenet_m"
    ece_bins: int = ECE_BINS


@dataclass
class AnalysisReport:
    options: ReportOptions
    summary: dict  # project_summary(): the stable JSON of `reviewer report --json`
    reviewed: pd.DataFrame  # reviewer.reviewed.reviewed_mistakes()
    categories: pd.DataFrame  # counts, model x category
    severities: pd.DataFrame  # counts, model x severity
    chi_categories: pd.DataFrame
    chi_severities: pd.DataFrame
    confusions: pd.DataFrame
    by_distance: pd.DataFrame
    mla: pd.DataFrame
    topk: pd.DataFrame
    calibration: dict[int, Calibration] = field(default_factory=dict)
    leaderboard: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def unrated(self) -> dict[str, dict[str, int]]:
        """Per model, reviewed mistakes left without a category or severity (panel items)."""
        out = {}
        for model, group in self.reviewed.groupby("model"):
            out[str(model)] = {"category": int(group["category"].isna().sum()),
                               "severity": int(group["severity"].isna().sum())}
        return out


def _mla_table(summary: dict) -> pd.DataFrame:
    rows = []
    for run in summary["runs"]:
        metrics = run["metrics"]
        if not metrics:
            continue
        row = {"run_id": run["id"], "model": run["model"], "image_slice": run["image_slice"]}
        for when, key in (("before", "mla"), ("after", "mla_after_review")):
            for group in ("all", "organisms", "objects"):
                row[f"{group}_{when}"] = metrics[key][group]["value"]
        rows.append(row)
    columns = ["run_id", "model", "image_slice"] + [f"{g}_{w}" for w in ("before", "after")
                                                    for g in ("all", "organisms", "objects")]
    return pd.DataFrame(rows, columns=columns)


def _topk_table(summary: dict) -> pd.DataFrame:
    rows = []
    for run in summary["runs"]:
        metrics = run["metrics"]
        if not metrics:
            continue
        vt = metrics["variable_topk"]
        for k, group in sorted(vt["by_label_count"].items(), key=lambda kv: int(kv[0])):
            rows.append({"run_id": run["id"], "model": run["model"], "labels": int(k), **group,
                         "asma": vt["asma"]})
    return pd.DataFrame(rows, columns=["run_id", "model", "labels", "images", "mean_hit_rate", "all_in_topk",
                                       "asma"])


def build_report(project: Project, options: ReportOptions = ReportOptions()) -> AnalysisReport:
    """Compute every table of the report (nothing is written)."""
    base = load_labelset(project)  # loaded once: both label views derive from it
    before = reviewed_labelset(project, after_review=False, base=base)
    after = reviewed_labelset(project, after_review=True, base=base)
    with read_session(project.engine) as session:
        runs = session.execute(select(Run.id).where(Run.status == "complete").order_by(Run.id)).scalars().all()
    predictions = {run_id: load_predictions(project, run_id) for run_id in runs}
    summary = project_summary(project, before=before, after=after, predictions=predictions)
    reviewed = reviewed_mistakes(project)
    categories, severities = category_severity_counts(reviewed, keep_borderline=options.keep_borderline)
    calibrations = {run_id: run_calibration(after, preds, bins=options.ece_bins)
                    for run_id, preds in predictions.items()}
    return AnalysisReport(
        options=options, summary=summary, reviewed=reviewed, categories=categories, severities=severities,
        chi_categories=chi_square_tests(categories, yates=options.yates),
        chi_severities=chi_square_tests(severities, yates=options.yates),
        confusions=confused_pairs(reviewed, after), by_distance=category_by_distance(reviewed, after),
        mla=_mla_table(summary), topk=_topk_table(summary), calibration=calibrations,
        leaderboard=leaderboard(project, slice_name=options.slice_name, before=before, after=after,
                                predictions=predictions),
    )


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _plain(value):
    """numpy scalars to Python, NaN to None (JSON has no NaN)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _count_table(counts: pd.DataFrame) -> dict:
    share = shares(counts)
    return {str(model): {str(level): {"count": int(counts.loc[model, level]), "share": _plain(share.loc[model, level])}
                         for level in counts.columns} for model in counts.index}


def report_json(report: AnalysisReport, *, max_pairs: int = 100) -> dict:
    """The report's tables as plain JSON (the `analysis` key of `reviewer report --json`)."""
    o = report.options
    return {
        "options": {"keep_borderline": o.keep_borderline, "yates": o.yates, "slice": o.slice_name,
                    "ece_bins": o.ece_bins},
        "reviewed_mistakes": {str(m): {"total": int(len(g)), "imported": int((g["source"] == "imported").sum()),
                                       "panel": int((g["source"] == "panel").sum())}
                              for m, g in report.reviewed.groupby("model")},
        "unrated": report.unrated,
        "categories": _count_table(report.categories),
        "severities": _count_table(report.severities),
        "chi_square": {"categories": _records(report.chi_categories),
                       "severities": _records(report.chi_severities)},
        "confused_pairs": {str(m): _records(g.drop(columns="model").head(max_pairs))
                           for m, g in report.confusions.groupby("model")},
        "category_by_distance": {str(int(d)): {k: _plain(v) for k, v in row.items()}
                                 for d, row in report.by_distance.iterrows()},
        "mla": _records(report.mla),
        "variable_topk": _records(report.topk),
        "calibration": {str(run_id): {"ece": _plain(c.ece), "images": c.images, "bins": _records(c.bins)}
                        for run_id, c in report.calibration.items()},
        "leaderboard": _records(report.leaderboard),
    }
