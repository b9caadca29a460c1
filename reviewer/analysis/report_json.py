"""The analysis report as plain JSON: the `analysis` key of `reviewer report --json`
(the README lists its keys). It reads the typed results of `build_report`; NaN
becomes null, numpy scalars Python numbers."""

from __future__ import annotations

import math
from dataclasses import asdict

import pandas as pd

from reviewer.analysis.calibration import Calibration
from reviewer.analysis.provisional import PROVISIONAL
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.tables import FINE_GRAINED_INCL_OOV, PAPER_FINE_GRAINED_SHARE, shares


def json_records(frame: pd.DataFrame) -> list[dict]:
    """A table's rows as JSON objects, column by column."""
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


def distance_json(table: pd.DataFrame) -> dict:
    """{model: {distance: {category shares, mistakes}}}."""
    out: dict = {}
    for (model, distance), row in table.iterrows():
        out.setdefault(str(model), {})[str(int(distance))] = {k: _plain(v) for k, v in row.items()}
    return out


def _calibration_json(c: Calibration) -> dict:
    return {"ece": _plain(c.ece), "ace": _plain(c.ace), "ce": _plain(c.ce), "images": c.images,
            "bins": json_records(c.bins)}


def report_json(report: AnalysisReport, *, max_pairs: int = 100) -> dict:
    """The report's tables as plain JSON (the `analysis` key of `reviewer report --json`)."""
    o = report.options
    return {
        "options": {"keep_borderline": o.keep_borderline, "yates": o.yates, "slice": o.slice_name,
                    "ece_bins": o.ece_bins, "collapsed_mappings": o.collapsed_mappings,
                    "provisional": o.provisional},
        "decision_status": {"panel_items": report.status.items, "locked": report.status.locked,
                            "voted_not_locked": report.status.voted,
                            "provisional_items": report.status.provisional,
                            # Items with votes or decisions that no longer count (kept, not counted).
                            "no_longer_mistakes_with_history": report.status.no_longer_mistakes,
                            "outside_scope_with_history": report.status.outside_scope, "note": report.note},
        "reviewed_mistakes": {str(m): {"total": int(len(g)), "imported": int((g["source"] == "imported").sum()),
                                       "panel": int((g["source"] == "panel").sum())}
                              for m, g in report.reviewed.groupby("model")},
        "unrated": {model: asdict(u) for model, u in report.unrated.items()},
        "categories": _count_table(report.categories),
        "severities": _count_table(report.severities),
        "provisional": {
            "reviewed_mistakes": {str(m): {"total": int(len(g)), PROVISIONAL: int((g["source"] == PROVISIONAL).sum())}
                                  for m, g in report.provisional_reviewed.groupby("model")},
            "categories": _count_table(report.provisional_categories),
            "severities": _count_table(report.provisional_severities)} if o.provisional else None,
        "chi_square": {"categories": json_records(report.chi_categories),
                       "severities": json_records(report.chi_severities)},
        "confused_pairs": {str(m): json_records(g.drop(columns="model").head(max_pairs))
                           for m, g in report.confusions.groupby("model")},
        "category_by_distance": distance_json(report.by_distance),
        "category_by_distance_nearest_correct": distance_json(report.by_distance_nearest),
        "paper_fine_grained_share": {str(d): v for d, v in PAPER_FINE_GRAINED_SHARE.items()},
        "paper_fine_grained_share_compares_with": FINE_GRAINED_INCL_OOV,  # fine-grained in-vocabulary or OOV
        "model_comparison": {"overlap": json_records(report.overlap), "novel": json_records(report.novel),
                             "chi_square": json_records(report.novel_tests)},
        "source_reliability": {
            **report.source_reliability.as_dict(),
            PROVISIONAL: (report.provisional_source_reliability.as_dict()
                          if report.provisional_source_reliability is not None else None)},
        "error_types": report.error_types.as_dict(),
        "zoom_probe": report.zoom.as_dict(),
        "panel": report.panel.as_dict(),
        "leakage": report.leakage.as_dict(),
        "mla": json_records(report.mla),
        "variable_topk": json_records(report.topk),
        "calibration": {str(run_id): _calibration_json(c) for run_id, c in report.calibration.items()},
        "calibration_multilabel": {str(run_id): _calibration_json(c)
                                   for run_id, c in report.calibration_multilabel.items()},
        "class_balance": {str(run_id): {k: _plain(v) if not isinstance(v, dict) else
                                        {kk: _plain(vv) for kk, vv in v.items()} for k, v in b.as_dict().items()}
                          for run_id, b in report.class_balance.items()},
        "leaderboard": json_records(report.leaderboard),
    }
