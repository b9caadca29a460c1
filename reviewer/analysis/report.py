"""The analysis report: the paper's tables for any model and any panel.

`build_report` gathers, from the project as it stands (each module's
docstring gives the definition and its source):
- MLA before and after the review for all / organism / object classes per run
  (Table 1), from `reviewer.evaluation.summary.project_summary` (`reviewer.evaluation.metrics`),
  one row per run (`run_tables`);
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
- the panel's agreement per field (percent, alpha, kappa, Gwet's AC1) and each
  panelist's reliability (agreement with the decisions, Dawid–Skene accuracy), and
  the queue orders the votes were cast in (`panel_agreement`);
- error types per run (issue 37): the shares of each category, "no explanation found" and
  each severity among a run's mistakes, the panel's answers where they exist, a published
  review's where imported, the categoriser's suggestion elsewhere, counted per source, and
  against MLA across runs (`error_types`);
- the zoom probe: per model, the probed mistakes that some crop corrects, by
  the panel's verdict, severity and category and by zoom group (`zoom_probe`);
- variable top-k / ASMA per label-count subgroup (`reviewer.evaluation.topk`,
  `run_tables`);
  QUBA's calibration (ECE, ACE, CE) and class balance per run, and the
  multi-label ECE (`calibration`, `class_balance`);
- the leaderboard on the curated slice;
- validation images leaked into the training set (§4.5, Table 4) from the duplicates
  `reviewer index` found, with each run's top-1 and MLA on them (`leakage`).
Every figure is a typed result (`AnalysisReport`, its tables and records); the
renderings read them: `reviewer.analysis.report_json` (the `analysis` key of
`reviewer report --json`), `reviewer.analysis.sections` (one module per section)
and `reviewer.analysis.render` (Markdown or HTML with plots).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TypeVar

import pandas as pd
from sqlalchemy import select
from sqlmodel import Session

from db.tables import Model, Run
from reviewer.analysis.cache import FigureCache, digest
from reviewer.analysis.calibration import ECE_BINS, Calibration, multilabel_calibration
from reviewer.analysis.class_balance import ClassBalance
from reviewer.analysis.comparison import (
    compared_runs,
    mistake_overlap,
    novel_judgements,
    novel_share_tests,
    run_mistakes,
)
from reviewer.analysis.error_types import ErrorTypes, run_error_types, suggestions_inputs
from reviewer.analysis.inputs import evidence_inputs, label_inputs, panel_inputs, report_inputs, run_inputs
from reviewer.analysis.leakage import Leakage, project_leakage
from reviewer.analysis.panel_agreement import PanelAgreement, panel_agreement
from reviewer.analysis.provisional import (
    PROVISIONAL,
    DecisionStatus,
    decision_status,
    provisional_decisions,
    with_provisional,
)
from reviewer.analysis.run_figures import run_figure_inputs, run_figures
from reviewer.analysis.run_tables import mla_table, topk_table
from reviewer.analysis.source_agreement import SourceReliability, source_agreement
from reviewer.analysis.tables import category_by_distance, category_severity_counts, chi_square_tests, confused_pairs
from reviewer.analysis.zoom_probe import ZoomReport, zoom_report
from reviewer.evaluation.leaderboard import leaderboard
from reviewer.evaluation.patchml import patchml_sets
from reviewer.evaluation.summary import ProjectSummary, project_summary
from reviewer.labels.labelset import load_labelset
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.panel.final import decisions_table
from reviewer.panel.snapshot import load_snapshot
from reviewer.project import Project
from reviewer.review.categorise import SuggestionMemo, decided_answers, suggested_run
from reviewer.review.reviewed_mistakes import reviewed_mistakes
from reviewer.runs.predictions import load_predictions
from reviewer.terms import RunStatus

T = TypeVar("T")
Progress = Callable[[str, int, int], None]  # (the step that starts, steps done, steps in all)


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
    agreement_resamples: int = 1000  # bootstrap resamples of the panel's agreement statistics


@dataclass(frozen=True)
class Unrated:
    """A model's reviewed mistakes (panel items) left without a category or a severity."""

    category: int
    severity: int


@dataclass
class AnalysisReport:
    options: ReportOptions
    summary: ProjectSummary  # every run and imported review; its as_dict() is `reviewer report --json`
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
    # Validation images with exact (and near) duplicates in the training folder of `reviewer index`.
    leakage: Leakage = field(default_factory=Leakage)
    # The panel's agreement per field, each panelist's reliability, the queue orders of the votes.
    panel: PanelAgreement = field(default_factory=PanelAgreement)
    # Per complete run, the shares of each error type and severity among its mistakes, by source.
    error_types: ErrorTypes = field(default_factory=ErrorTypes)

    @property
    def note(self) -> str:
        """What the final tables leave out of the panel's work ('' when nothing)."""
        return self.status.note(provisional_shown=self.options.provisional)

    @property
    def unrated(self) -> dict[str, Unrated]:
        """Per model, reviewed mistakes left without a category or severity (panel items)."""
        return {str(model): Unrated(category=int(group["category"].isna().sum()),
                                    severity=int(group["severity"].isna().sum()))
                for model, group in self.reviewed.groupby("model")}


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


class Steps:
    """The report's progress: each step named as it starts, with how many are done of how
    many (`progress(what, done, total)`; a front end shows it, e.g. `reviewer report`'s bar)."""

    def __init__(self, progress: Progress | None, total: int):
        self.progress, self.total, self.done = progress, total, -1

    def __call__(self, what: str) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(what, self.done, self.total)


def build_report(project: Project, options: ReportOptions = ReportOptions(), *, session: Session,
                 cache: FigureCache | None = None, progress: Progress | None = None) -> AnalysisReport:
    """Compute every table of the report (nothing is written to the database), all through
    `session`: pass a read session, one consistent snapshot of the database, so that a vote
    committed while the report is computed is in every table or in none
    (`reviewer.app.report.build_report` is the act that opens it).

    With `cache`, figures are kept between reports (`reviewer.analysis.cache`): the whole
    report under the key of everything it reads (`inputs.report_inputs`) and the options,
    and apart from it what costs: each complete run's predictions (under the run's key),
    its figures before the review (`run_figures`, under the run's and the labels' keys) and
    the panel's agreement (under the panel's key), so that a vote recomputes neither a
    run's calibration nor its variable top-k, and a new run computes only its own."""
    if cache is None:
        return _build(project, options, session=session, cache=None, keys=None, progress=progress)
    keys = {"labels": label_inputs(session=session), "panel": panel_inputs(session=session),
            "evidence": evidence_inputs(session=session)}
    whole = {"report": report_inputs(project, session=session, labels=keys["labels"], panel=keys["panel"],
                                     evidence=keys["evidence"]),
             "options": asdict(options)}
    report = cache.get(f"report-{digest(asdict(options))[:16]}", whole,
                       lambda: _build(project, options, session=session, cache=cache, keys=keys, progress=progress))
    runs = {str(run.id) for run in report.summary.runs if run.metrics is not None}  # the complete ones
    cache.forget(lambda name: not name.startswith(("run-", "predictions-", "suggested-"))
                 or name.split("-")[1] in runs)
    return report


def _kept(cache: FigureCache | None, name: str, inputs, compute: Callable[[], T]) -> T:
    return compute() if cache is None else cache.get(name, inputs, compute)


def _error_types(session: Session, runs: dict, before, decisions: pd.DataFrame, summary: ProjectSummary, *,
                 cache: FigureCache | None, keys: dict | None, run_keys: dict) -> ErrorTypes:
    """Each complete run's error types; its suggestions kept per run (they read no vote)."""
    memo = SuggestionMemo()  # a mistake two runs made is suggested once, an image's evidence read once
    suggested = {}
    for run_id in runs:
        inputs = suggestions_inputs(labels=keys["labels"], run=run_keys[run_id],
                                    mistakes=keys["panel"]["mistake"].get(str(run_id)),
                                    evidence=keys["evidence"]) if cache is not None else None
        suggested[run_id] = _kept(cache, f"suggested-{run_id}", inputs,
                                  lambda: suggested_run(session=session, run_id=run_id, labels=before, memo=memo))
    return run_error_types(suggested, decided_answers(session=session, decisions=decisions), mla_table(summary))


def _build(project: Project, options: ReportOptions, *, session: Session, cache: FigureCache | None,
           keys: dict | None, progress: Progress | None) -> AnalysisReport:
    runs = {r.id: (r, m) for r, m in session.execute(
        select(Run, Model).join(Model, Model.id == Run.model_id).where(Run.status == RunStatus.COMPLETE)
        .order_by(Run.id)).all()}
    step = Steps(progress, 2 * len(runs) + 8)
    step("labels")
    base = load_labelset(session=session)  # loaded once: both label views derive from it
    before = reviewed_labelset(session=session, after_review=False, base=base)
    after = reviewed_labelset(session=session, after_review=True, base=base)
    patchml = patchml_sets(session=session)
    predictions, figures, run_keys = {}, {}, {}
    for run_id, (run, model) in runs.items():
        run_key = run_keys[run_id] = run_inputs(project, run, model) if cache is not None else None
        step(f"run {run_id} ({model.name}): predictions")
        predictions[run_id] = _kept(cache, f"predictions-{run_id}", run_key,
                                    lambda: load_predictions(session=session, run_id=run_id))
        step(f"run {run_id} ({model.name}): metrics and calibration")
        figures[run_id] = _kept(
            cache, f"run-{run_id}-{digest([options.collapsed_mappings, options.ece_bins])[:16]}",
            run_figure_inputs(keys["labels"], run_key, collapsed=options.collapsed_mappings, bins=options.ece_bins)
            if cache is not None else None,
            lambda: run_figures(project, run, before, predictions[run_id], collapsed=options.collapsed_mappings,
                                bins=options.ece_bins, patchml=patchml))
    step("runs' summary")
    summary = project_summary(project, session=session, before=before, after=after, predictions=predictions,
                              collapsed=options.collapsed_mappings,
                              before_review={run_id: f.metrics for run_id, f in figures.items()})
    step("reviewed mistakes")
    decisions = decisions_table(session=session)
    reviewed = reviewed_mistakes(session=session, decisions=decisions)
    categories, severities = category_severity_counts(reviewed, keep_borderline=options.keep_borderline)
    snapshot = load_snapshot(session=session)
    provisional = provisional_decisions(snapshot)
    status = decision_status(snapshot, provisional)
    step("evidence sources and zoom probe")
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
    step("model against model")
    compared = compared_runs(session=session)
    mistakes = run_mistakes(session=session, runs=compared)
    novel = novel_judgements(session=session, runs=compared, decisions=decisions, mistakes=mistakes)
    overlap = mistake_overlap(session=session, runs=compared, mistakes=mistakes,
                              predicted={run_id: p.image_ids for run_id, p in predictions.items()})
    step("error types")
    error_types = _error_types(session, runs, before, decisions, summary, cache=cache, keys=keys, run_keys=run_keys)
    step("the panel's agreement")
    panel = _kept(cache, f"panel-{options.agreement_resamples}",
                  {"panel": keys["panel"], "resamples": options.agreement_resamples} if cache is not None else None,
                  lambda: panel_agreement(snapshot, resamples=options.agreement_resamples))
    step("tables and tests")
    report = AnalysisReport(
        options=options, summary=summary, reviewed=reviewed, categories=categories, severities=severities,
        chi_categories=chi_square_tests(categories, yates=options.yates),
        chi_severities=chi_square_tests(severities, yates=options.yates),
        confusions=confused_pairs(reviewed, after), by_distance=category_by_distance(reviewed, after),
        by_distance_nearest=category_by_distance(reviewed, after, to="nearest_correct"),
        mla=mla_table(summary), topk=topk_table(summary),
        calibration={run_id: f.calibration for run_id, f in figures.items()},
        calibration_multilabel={run_id: multilabel_calibration(after, preds, bins=options.ece_bins)
                                for run_id, preds in predictions.items()},
        class_balance={run_id: f.class_balance for run_id, f in figures.items() if f.class_balance is not None},
        overlap=overlap, novel=novel, novel_tests=novel_share_tests(novel, yates=options.yates),
        leaderboard=leaderboard(session=session, slice_name=options.slice_name, before=before, after=after,
                                predictions=predictions),
        status=status, provisional_reviewed=tables[0], provisional_categories=tables[1],
        provisional_severities=tables[2], source_reliability=reliability,
        provisional_source_reliability=provisional_reliability, zoom=zoom, panel=panel, error_types=error_types,
        leakage=project_leakage(project, session=session, labels=before, predictions=predictions,
                                models={run.id: run.model for run in summary.runs}),
    )
    step("done")
    return report
