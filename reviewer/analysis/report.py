"""The analysis report: the paper's tables for any model and any panel.

`build_report` gathers, from the project as it stands (each module's
docstring gives the definition and its source):
- MLA before and after the review for all / organism / object classes per run
  (Table 1), from `reviewer.evaluation.summary.project_summary` (`reviewer.evaluation.metrics`);
- category and severity counts and shares of each model's reviewed mistakes
  (Table 2; imported reviews and the panel's final decisions), with chi-square
  tests of independence between every two models, marked with an exact test
  where an expected count is below 5 (`tables`); how many of the panel's items
  are locked and how many have votes only (`provisional.decision_status`),
  and, with `ReportOptions.provisional`, the same counts with the current
  majority of the votes of the items not locked, marked provisional
  (`provisional`);
- confused class pairs with frequencies; category shares per WordNet distance
  per model, to the original label and to the nearest correct label (`tables`);
- model against model: the overlap of their mistakes, the share of novel
  predictions judged correct, and its chi-square test (`comparison`);
- source reliability: how often each imported evidence source agrees with the
  panel's final decisions (and, with `ReportOptions.provisional`, with the
  provisional ones), with Wilson 95 % intervals (`source_agreement`);
- the zoom probe: per model, the probed mistakes that some crop corrects, by
  the panel's verdict, severity and category and by zoom group (`zoom_section`);
- variable top-k / ASMA per label-count subgroup (`reviewer.evaluation.topk`);
  QUBA's calibration (ECE, ACE, CE) and class balance per run, and the
  multi-label ECE (`calibration`, `class_balance`);
- the leaderboard on the curated slice.
`report_json` is the machine-readable form (the `analysis` key of `reviewer
report --json`); `reviewer.analysis.render` writes Markdown or HTML with plots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd
from sqlalchemy import select
from sqlmodel import Session

from db.tables import Run
from reviewer.analysis.calibration import ECE_BINS, Calibration, multilabel_calibration, run_calibration
from reviewer.analysis.class_balance import ClassBalance, run_class_balance
from reviewer.analysis.comparison import compared_runs, mistake_overlap, novel_judgements, novel_share_tests
from reviewer.analysis.provisional import (
    PROVISIONAL,
    DecisionStatus,
    decision_status,
    provisional_decisions,
    with_provisional,
)
from reviewer.analysis.source_agreement import SourceReliability, source_agreement
from reviewer.analysis.tables import (
    FINE_GRAINED_INCL_OOV,
    PAPER_FINE_GRAINED_SHARE,
    category_by_distance,
    category_severity_counts,
    chi_square_tests,
    confused_pairs,
    shares,
)
from reviewer.analysis.zoom_section import ZoomReport, zoom_report
from reviewer.evaluation.leaderboard import leaderboard
from reviewer.evaluation.summary import project_summary
from reviewer.labels.labelset import load_labelset
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.panel.final import decisions_table
from reviewer.panel.snapshot import load_snapshot
from reviewer.project import Project
from reviewer.review.reviewed_mistakes import reviewed_mistakes
from reviewer.runs.predictions import load_predictions, run_probabilities
from reviewer.terms import RunStatus


@dataclass(frozen=True)
class ReportOptions:
    keep_borderline: bool = False  # count Borderline apart instead of as Minor
    yates: bool = False  # Yates' continuity correction on 2 x 2 chi-square tables
    slice_name: str = "imagenet_m"
    ece_bins: int = ECE_BINS
    # Score with the paper's Appendix C collapsed class mappings (the reference applies none).
    collapsed_mappings: bool = False
    # Also count the items not locked yet, by the majority of their current votes, in tables marked provisional.
    provisional: bool = False


@dataclass
class AnalysisReport:
    options: ReportOptions
    summary: dict  # project_summary(): the stable JSON of `reviewer report --json`
    reviewed: pd.DataFrame  # reviewer.review.reviewed_mistakes.reviewed_mistakes()
    categories: pd.DataFrame  # counts, model x category
    severities: pd.DataFrame  # counts, model x severity
    chi_categories: pd.DataFrame
    chi_severities: pd.DataFrame
    confusions: pd.DataFrame
    by_distance: pd.DataFrame  # per (model, distance to the original label)
    by_distance_nearest: pd.DataFrame  # per (model, distance to the nearest correct label)
    mla: pd.DataFrame
    topk: pd.DataFrame
    calibration: dict[int, Calibration] = field(default_factory=dict)  # QUBA, original labels
    calibration_multilabel: dict[int, Calibration] = field(default_factory=dict)
    class_balance: dict[int, ClassBalance] = field(default_factory=dict)
    overlap: pd.DataFrame = field(default_factory=pd.DataFrame)
    novel: pd.DataFrame = field(default_factory=pd.DataFrame)
    novel_tests: pd.DataFrame = field(default_factory=pd.DataFrame)
    leaderboard: pd.DataFrame = field(default_factory=pd.DataFrame)
    status: DecisionStatus = DecisionStatus(0, 0, 0, 0)
    # With options.provisional: the reviewed mistakes as if the provisional decisions were locked
    # (source "provisional" for those items), and the counts of the models they change.
    provisional_reviewed: pd.DataFrame = field(default_factory=pd.DataFrame)
    provisional_categories: pd.DataFrame = field(default_factory=pd.DataFrame)
    provisional_severities: pd.DataFrame = field(default_factory=pd.DataFrame)
    # Each evidence source against the final decisions; with options.provisional, against the final
    # and provisional decisions (None without the option).
    source_reliability: SourceReliability = field(default_factory=SourceReliability)
    provisional_source_reliability: SourceReliability | None = None
    # Per model, the probed mistakes some crop of the zoom probe corrects, by the final decisions.
    zoom: ZoomReport = field(default_factory=ZoomReport)

    @property
    def note(self) -> str:
        """What the final tables leave out of the panel's work ('' when nothing)."""
        return self.status.note(provisional_shown=self.options.provisional)

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
        row = {"run_id": run["id"], "model": run["model"], "image_slice": run["image_slice"],
               "images_covered": run["images_covered"]}
        for when, key in (("before", "mla"), ("after", "mla_after_review")):
            for group in ("all", "organisms", "objects"):
                row[f"{group}_{when}"] = metrics[key][group]["value"]
        rows.append(row)
    columns = ["run_id", "model", "image_slice", "images_covered"] + [f"{g}_{w}" for w in ("before", "after")
                                                    for g in ("all", "organisms", "objects")]
    return pd.DataFrame(rows, columns=columns)


def _topk_table(summary: dict) -> pd.DataFrame:
    """One row per run, label set ("real": Anzaku et al.'s; "multilabel": the variant) and
    label count; `labels` 0 is the row of the images with more than `max_labels` labels.
    Per row the subgroup's mean of both per-image scores (`mean_jaccard` |Y∩Ŷ|/|Y∪Ŷ|,
    `mean_hit_rate` m/k); per run and label set both ASMAs and the top-1 accuracy on the
    images with 1..max_labels labels, repeated on each row (`reviewer.evaluation.topk`)."""
    rows = []
    for run in summary["runs"]:
        metrics = run["metrics"]
        if not metrics:
            continue
        for key in ("variable_topk", "variable_topk_multilabel"):
            vt = metrics[key]
            if vt["reason"]:
                continue
            groups = sorted(vt["by_label_count"].items(), key=lambda kv: int(kv[0]))
            for k, group in groups + ([("0", vt["over_max"])] if vt["over_max"]["images"] else []):
                rows.append({"run_id": run["id"], "model": run["model"], "label_set": vt["label_set"],
                             "labels": int(k), **group, "asma": vt["asma"],
                             "asma_share_found": vt["asma_share_found"],
                             "real_accuracy_1_to_5": vt["real_accuracy_1_to_5"]})
    return pd.DataFrame(rows, columns=["run_id", "model", "label_set", "labels", "images", "mean_jaccard",
                                       "mean_hit_rate", "all_in_topk", "asma", "asma_share_found",
                                       "real_accuracy_1_to_5"])


def _provisional_tables(session: Session, decisions: pd.DataFrame, provisional: pd.DataFrame,
                        final: tuple[pd.DataFrame, pd.DataFrame], *, keep_borderline: bool
                        ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(reviewed mistakes with the provisional decisions, their category and severity counts
    for the models they change)."""
    reviewed = reviewed_mistakes(session=session, decisions=with_provisional(decisions, provisional))
    items = set(zip(provisional["image_id"], provisional["predicted"]))
    marked = [item in items for item in zip(reviewed["image_id"], reviewed["predicted"])]
    reviewed.loc[marked, "source"] = PROVISIONAL
    counts = category_severity_counts(reviewed, keep_borderline=keep_borderline)
    changed = set(reviewed.loc[marked, "model"])
    for table, before in zip(counts, final):
        old = before.reindex(index=table.index, columns=table.columns, fill_value=0)
        changed |= set(table.index[(table != old).any(axis=1)])
    models = sorted(changed)
    return reviewed, counts[0].loc[models], counts[1].loc[models]


def build_report(project: Project, options: ReportOptions = ReportOptions()) -> AnalysisReport:
    """Compute every table of the report (nothing is written), all from one consistent
    snapshot of the database: a vote committed while the report is computed is in every
    table or in none."""
    with project.read() as session:
        return _build(project, options, session)


def _build(project: Project, options: ReportOptions, session: Session) -> AnalysisReport:
    base = load_labelset(session=session)  # loaded once: both label views derive from it
    before = reviewed_labelset(session=session, after_review=False, base=base)
    after = reviewed_labelset(session=session, after_review=True, base=base)
    runs = {r.id: r for r in session.execute(select(Run).where(Run.status == RunStatus.COMPLETE)
                                                 .order_by(Run.id)).scalars()}
    predictions = {run_id: load_predictions(session=session, run_id=run_id) for run_id in runs}
    summary = project_summary(project, session=session, before=before, after=after, predictions=predictions,
                              collapsed=options.collapsed_mappings)
    decisions = decisions_table(session=session)
    reviewed = reviewed_mistakes(session=session, decisions=decisions)
    categories, severities = category_severity_counts(reviewed, keep_borderline=options.keep_borderline)
    snapshot = load_snapshot(session=session)
    provisional = provisional_decisions(snapshot)
    status = decision_status(snapshot, provisional)
    reliability = source_agreement(session=session, decisions=decisions)
    zoom = zoom_report(session=session, labels=before, decisions=decisions)
    if options.provisional:
        tables = _provisional_tables(session, decisions, provisional, (categories, severities),
                                     keep_borderline=options.keep_borderline)
        provisional_reliability = source_agreement(session=session,
                                                   decisions=with_provisional(decisions, provisional))
    else:
        tables = (reviewed.iloc[:0], categories.iloc[:0], severities.iloc[:0])
        provisional_reliability = None
    calibrations, balance = {}, {}
    for run_id, preds in predictions.items():
        probs = run_probabilities(project, runs[run_id])
        calibrations[run_id] = run_calibration(before, preds, probs, bins=options.ece_bins)
        if probs is not None:
            balance[run_id] = run_class_balance(before, preds, probs)
    compared = compared_runs(session=session)
    novel = novel_judgements(session=session, runs=compared, decisions=decisions)
    return AnalysisReport(
        options=options, summary=summary, reviewed=reviewed, categories=categories, severities=severities,
        chi_categories=chi_square_tests(categories, yates=options.yates),
        chi_severities=chi_square_tests(severities, yates=options.yates),
        confusions=confused_pairs(reviewed, after), by_distance=category_by_distance(reviewed, after),
        by_distance_nearest=category_by_distance(reviewed, after, to="nearest_correct"),
        mla=_mla_table(summary), topk=_topk_table(summary), calibration=calibrations,
        calibration_multilabel={run_id: multilabel_calibration(after, preds, bins=options.ece_bins)
                                for run_id, preds in predictions.items()},
        class_balance=balance, overlap=mistake_overlap(session=session, runs=compared), novel=novel,
        novel_tests=novel_share_tests(novel, yates=options.yates),
        leaderboard=leaderboard(session=session, slice_name=options.slice_name, before=before, after=after,
                                predictions=predictions),
        status=status, provisional_reviewed=tables[0], provisional_categories=tables[1],
        provisional_severities=tables[2], source_reliability=reliability,
        provisional_source_reliability=provisional_reliability, zoom=zoom,
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


def _distance_table(table: pd.DataFrame) -> dict:
    """{model: {distance: {category shares, mistakes}}}."""
    out: dict = {}
    for (model, distance), row in table.iterrows():
        out.setdefault(str(model), {})[str(int(distance))] = {k: _plain(v) for k, v in row.items()}
    return out


def _calibration_json(c: Calibration) -> dict:
    return {"ece": _plain(c.ece), "ace": _plain(c.ace), "ce": _plain(c.ce), "images": c.images,
            "bins": _records(c.bins)}


def report_json(report: AnalysisReport, *, max_pairs: int = 100) -> dict:
    """The report's tables as plain JSON (the `analysis` key of `reviewer report --json`)."""
    o = report.options
    return {
        "options": {"keep_borderline": o.keep_borderline, "yates": o.yates, "slice": o.slice_name,
                    "ece_bins": o.ece_bins, "collapsed_mappings": o.collapsed_mappings,
                    "provisional": o.provisional},
        "decision_status": {"panel_items": report.status.items, "locked": report.status.locked,
                            "voted_not_locked": report.status.voted,
                            "provisional_items": report.status.provisional, "note": report.note},
        "reviewed_mistakes": {str(m): {"total": int(len(g)), "imported": int((g["source"] == "imported").sum()),
                                       "panel": int((g["source"] == "panel").sum())}
                              for m, g in report.reviewed.groupby("model")},
        "unrated": report.unrated,
        "categories": _count_table(report.categories),
        "severities": _count_table(report.severities),
        "provisional": {
            "reviewed_mistakes": {str(m): {"total": int(len(g)), PROVISIONAL: int((g["source"] == PROVISIONAL).sum())}
                                  for m, g in report.provisional_reviewed.groupby("model")},
            "categories": _count_table(report.provisional_categories),
            "severities": _count_table(report.provisional_severities)} if o.provisional else None,
        "chi_square": {"categories": _records(report.chi_categories),
                       "severities": _records(report.chi_severities)},
        "confused_pairs": {str(m): _records(g.drop(columns="model").head(max_pairs))
                           for m, g in report.confusions.groupby("model")},
        "category_by_distance": _distance_table(report.by_distance),
        "category_by_distance_nearest_correct": _distance_table(report.by_distance_nearest),
        "paper_fine_grained_share": {str(d): v for d, v in PAPER_FINE_GRAINED_SHARE.items()},
        "paper_fine_grained_share_compares_with": FINE_GRAINED_INCL_OOV,  # fine-grained in-vocabulary or OOV
        "model_comparison": {"overlap": _records(report.overlap), "novel": _records(report.novel),
                             "chi_square": _records(report.novel_tests)},
        "source_reliability": {
            **report.source_reliability.as_dict(),
            PROVISIONAL: (report.provisional_source_reliability.as_dict()
                          if report.provisional_source_reliability is not None else None)},
        "zoom_probe": report.zoom.as_dict(),
        "mla": _records(report.mla),
        "variable_topk": _records(report.topk),
        "calibration": {str(run_id): _calibration_json(c) for run_id, c in report.calibration.items()},
        "calibration_multilabel": {str(run_id): _calibration_json(c)
                                   for run_id, c in report.calibration_multilabel.items()},
        "class_balance": {str(run_id): {k: _plain(v) if not isinstance(v, dict) else
                                        {kk: _plain(vv) for kk, vv in v.items()} for k, v in b.as_dict().items()}
                          for run_id, b in report.class_balance.items()},
        "leaderboard": _records(report.leaderboard),
    }
