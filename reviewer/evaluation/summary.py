"""What `reviewer report` shows: every run and imported review with its metrics,
counts and its mistakes' category and severity shares. `project_summary`
returns them as typed records (`ProjectSummary`); its `as_dict()` is the stable
JSON of `reviewer report --json`, key for key."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field

import numpy as np
from sqlalchemy import Integer, cast, func, select
from sqlmodel import Session

from db.tables import Image, ImportedReview, ImportedReviewItem, Mistake, Model, ProjectSetting, Run
from reviewer import __version__
from reviewer.evaluation.metrics import (
    GroupScores,
    Score,
    mla_images,
    multilabel_accuracy,
    real_accuracy,
    top1_accuracy,
)
from reviewer.evaluation.patchml import PatchMLSet, patchml_sets, run_patchml
from reviewer.evaluation.topk import VariableTopK, multilabel_variable_topk, real_variable_topk
from reviewer.labels.labelset import CORRECT, LabelSet
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.project import Project
from reviewer.runs.predictions import RunPredictions, load_predictions, ranked_classes, run_probabilities
from reviewer.runs.records import fast_decoded, images_of_run, run_precision
from reviewer.terms import Category, RunStatus, Severity, values

TOPK_FOR_VARIABLE = 10  # ReaL lists at most 9 labels of an image


@dataclass(frozen=True)
class MetricsBeforeReview:
    """A complete run's figures against the labels before the panel's review: all of
    `RunMetrics` but `mla_after_review`. They read the run and the labels only, not the
    panel's decisions, so `reviewer.analysis` keeps them per run (`metrics_before_review`)."""

    predictions: int
    top1: Score
    mla: GroupScores
    real: Score
    variable_topk: VariableTopK
    variable_topk_multilabel: VariableTopK
    variable_topk_patchml: dict[str, VariableTopK] = field(default_factory=dict)


@dataclass(frozen=True)
class RunMetrics:
    """A complete run's metrics (`run_metrics`): before the review but `mla_after_review`."""

    predictions: int
    top1: Score
    mla: GroupScores
    mla_after_review: GroupScores  # with the panel's final decisions
    real: Score
    variable_topk: VariableTopK  # ReaL labels (Anzaku et al.)
    variable_topk_multilabel: VariableTopK  # the multi-label set's correct labels (this tool's variant)
    # Per PatchML set the run predicted images of (Anzaku et al. §3.2; reviewer.evaluation.patchml)
    variable_topk_patchml: dict[str, VariableTopK] = field(default_factory=dict)

    @classmethod
    def of(cls, before: MetricsBeforeReview, mla_after_review: GroupScores) -> "RunMetrics":
        return cls(predictions=before.predictions, top1=before.top1, mla=before.mla,
                   mla_after_review=mla_after_review, real=before.real, variable_topk=before.variable_topk,
                   variable_topk_multilabel=before.variable_topk_multilabel,
                   variable_topk_patchml=before.variable_topk_patchml)

    def as_dict(self) -> dict:
        return {"predictions": self.predictions, "top1": self.top1.as_dict(), "mla": self.mla.as_dict(),
                "mla_after_review": self.mla_after_review.as_dict(), "real": self.real.as_dict(),
                "variable_topk": self.variable_topk.as_dict(),
                "variable_topk_multilabel": self.variable_topk_multilabel.as_dict(),
                "variable_topk_patchml": {name: v.as_dict() for name, v in self.variable_topk_patchml.items()}}


@dataclass(frozen=True)
class MistakeCounts:
    total: int
    novel: int  # the prediction is not a wrong label of the image before the review


@dataclass(frozen=True)
class RunSummary:
    """One run of the project, complete or not; `metrics` None unless complete."""

    id: int
    model: str
    source: str
    status: str  # RunStatus
    image_slice: str | None
    limit: int | None  # reviewer predict --limit
    images_covered: str  # `reviewer.runs.records.images_of_run`: 'all', 'first N' or a slice
    device: str | None
    fast_decode: bool  # large JPEGs decoded in draft mode: not timm's exact preprocessing (--fast-decode)
    precision: str  # number format of the forward passes (reviewer predict --precision)
    created_at: str | None  # ISO 8601
    mistakes: MistakeCounts
    metrics: RunMetrics | None

    def as_dict(self) -> dict:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["mistakes"] = asdict(self.mistakes)
        out["metrics"] = self.metrics.as_dict() if self.metrics is not None else None
        return out


@dataclass(frozen=True)
class LevelCount:
    count: int
    share: float  # of the review's items; nan when it has none


@dataclass(frozen=True)
class ReviewSummary:
    """An imported published review: its items' category and severity counts, every level listed."""

    id: int
    model: str
    path: str
    sha256: str
    items: int
    categories: dict[str, LevelCount]  # by Category value
    severities: dict[str, LevelCount]  # by Severity value

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ProjectCounts:
    name: str
    root: str
    images: int
    images_with_files: int
    problematic: int
    multilabel_set: int  # images of the multi-label set
    evaluable: int  # images MLA counts: the multi-label set's validation images, not problematic


@dataclass(frozen=True)
class ProjectSummary:
    """Every run and imported review of a project with its figures (`project_summary`)."""

    app_version: str
    project: ProjectCounts
    runs: tuple[RunSummary, ...]
    imported_reviews: tuple[ReviewSummary, ...]
    patchml_sets: tuple[PatchMLSet, ...] = ()  # `reviewer patchml`'s sets; each run's figures are in its metrics

    def as_dict(self) -> dict:
        """The stable JSON of `reviewer report --json` (NaN where nothing was evaluated)."""
        return {"app_version": self.app_version, "project": asdict(self.project),
                "runs": [run.as_dict() for run in self.runs],
                "imported_reviews": [review.as_dict() for review in self.imported_reviews],
                "patchml_sets": [s.as_dict() for s in self.patchml_sets]}


def _counts_and_shares(counts: Counter, keys: list[str]) -> dict[str, LevelCount]:
    total = sum(counts.values())
    return {k: LevelCount(count=counts.get(k, 0), share=counts.get(k, 0) / total if total else math.nan)
            for k in keys}


def run_metrics(project: Project, run: Run, before: LabelSet, after: LabelSet, *, session: Session,
                predictions: RunPredictions | None = None, collapsed: bool = False,
                patchml: dict[str, PatchMLSet] | None = None) -> RunMetrics:
    """A complete run's metrics. `project` gives the run's probability file, `session` the rest;
    `patchml` the project's PatchML sets, when the caller has them."""
    preds = load_predictions(session=session, run_id=run.id) if predictions is None else predictions
    patchml = patchml_sets(session=session) if patchml is None else patchml
    metrics = metrics_before_review(project, run, before, preds, collapsed=collapsed, patchml=patchml)
    return RunMetrics.of(metrics, mla_after_review(after, preds, collapsed=collapsed))


def metrics_before_review(project: Project, run: Run, before: LabelSet, predictions: RunPredictions, *,
                          collapsed: bool = False, patchml: dict[str, PatchMLSet]) -> MetricsBeforeReview:
    """Every metric of a complete run but MLA after the review (`MetricsBeforeReview`)."""
    pos_b = before.positions(predictions.image_ids)
    known = pos_b >= 0
    pos_b, top1 = pos_b[known], predictions.top1[known]
    ranked = _ranked(project, run, before, predictions, known, patchml)
    return MetricsBeforeReview(
        predictions=int(len(predictions)),
        top1=top1_accuracy(before, pos_b, top1),
        mla=multilabel_accuracy(before, pos_b, top1, collapsed=collapsed),
        real=real_accuracy(before, pos_b, top1),
        variable_topk=real_variable_topk(before, pos_b, ranked),
        variable_topk_multilabel=multilabel_variable_topk(before, pos_b, ranked),
        variable_topk_patchml=run_patchml(before, pos_b, ranked, patchml),
    )


def mla_after_review(after: LabelSet, predictions: RunPredictions, *, collapsed: bool = False) -> GroupScores:
    """MLA with the panel's final decisions (`after`: the labels after the review)."""
    pos_a = after.positions(predictions.image_ids)
    known = pos_a >= 0
    return multilabel_accuracy(after, pos_a[known], predictions.top1[known], collapsed=collapsed)


def _ranked(project: Project, run: Run, labels: LabelSet, predictions: RunPredictions, known: np.ndarray,
            patchml: dict[str, PatchMLSet]) -> np.ndarray:
    """The ranked classes variable top-k reads ([images known to `labels`, TOPK_FOR_VARIABLE]).
    An image with k valid labels reads its first k ranks only, and ranks 1-5 are the stored
    top-5, so the probability file is read for the images with more than 5 valid labels in
    some label set, not for all (`ranked_classes` on those); the other images' ranks 6+ are
    -1, a class no label has, never read. Without a probability file: the stored top-5."""
    stored = predictions.topk.astype(np.int64)[known]
    if run_probabilities(project, run) is None:
        return ranked_classes(project, run, predictions, TOPK_FOR_VARIABLE)[known]
    n = len(labels)
    correct = labels.kinds == CORRECT
    most = np.maximum.reduce([np.bincount(labels.real_rows, minlength=n), np.bincount(labels.patchml_rows, minlength=n),
                              np.bincount(labels.rows[correct], minlength=n)])
    wide = np.flatnonzero(known)[most[labels.positions(predictions.image_ids[known])] > 5]
    out = np.full((len(stored), TOPK_FOR_VARIABLE), -1, dtype=np.int64)
    out[:, :5] = stored
    if len(wide):
        subset = RunPredictions(run_id=predictions.run_id, image_ids=predictions.image_ids[wide],
                                topk=predictions.topk[wide], probs=predictions.probs[wide], rows=predictions.rows[wide])
        out[np.searchsorted(np.flatnonzero(known), wide)] = ranked_classes(project, run, subset, TOPK_FOR_VARIABLE)
    return out


def _metrics(project: Project, run: Run, before: LabelSet, after: LabelSet, *, session: Session,
             predictions: RunPredictions | None, collapsed: bool, patchml: dict[str, PatchMLSet],
             before_review: MetricsBeforeReview | None) -> RunMetrics:
    if before_review is None:
        return run_metrics(project, run, before, after, session=session, predictions=predictions,
                           collapsed=collapsed, patchml=patchml)
    preds = load_predictions(session=session, run_id=run.id) if predictions is None else predictions
    return RunMetrics.of(before_review, mla_after_review(after, preds, collapsed=collapsed))


def project_summary(project: Project, *, session: Session, before: LabelSet | None = None,
                    after: LabelSet | None = None, predictions: dict[int, RunPredictions] | None = None,
                    collapsed: bool = False, before_review: dict[int, MetricsBeforeReview] | None = None
                    ) -> ProjectSummary:
    """Every run and imported review with its figures, read with `session` (one snapshot).
    `before`/`after` (the labels before and after the review), `predictions` (run id ->
    predictions) and `before_review` (run id -> its `metrics_before_review`, which the caller
    keeps) save reloading and recomputing what the caller has."""
    before = reviewed_labelset(session=session, after_review=False) if before is None else before
    after = reviewed_labelset(session=session, after_review=True) if after is None else after
    predictions = predictions or {}
    before_review = before_review or {}
    conn = session.connection()
    n_images, n_files, n_problematic = conn.execute(select(
        func.count(Image.id), func.count(Image.path),
        func.coalesce(func.sum(cast(Image.problematic, Integer)), 0))).one()
    runs = list(session.exec(select(Run, Model).join(Model, Model.id == Run.model_id).order_by(Run.id)))
    mistake_counts = {r: (t, n) for r, t, n in conn.execute(
        select(Mistake.run_id, func.count(Mistake.id), func.sum(cast(Mistake.novel, Integer)))
        .group_by(Mistake.run_id))}
    reviews = list(session.exec(select(ImportedReview, Model).join(Model, Model.id == ImportedReview.model_id)
                                .order_by(ImportedReview.id)))
    review_items = {}
    for review, _ in reviews:
        review_items[review.id] = list(conn.execute(select(ImportedReviewItem.category, ImportedReviewItem.severity)
                                                    .where(ImportedReviewItem.review_id == review.id)))
    name = session.get(ProjectSetting, "name")
    patchml = patchml_sets(session=session)
    out_runs = []
    for run, model in runs:
        total, novel = mistake_counts.get(run.id, (0, 0))
        out_runs.append(RunSummary(
            id=run.id, model=model.name, source=model.source, status=run.status, image_slice=run.image_slice,
            limit=(run.report or {}).get("limit"), images_covered=images_of_run(run), device=run.device,
            fast_decode=fast_decoded(run), precision=run_precision(run),
            created_at=run.created_at.isoformat() if run.created_at else None,
            mistakes=MistakeCounts(total=int(total or 0), novel=int(novel or 0)),
            metrics=(_metrics(project, run, before, after, session=session, predictions=predictions.get(run.id),
                              collapsed=collapsed, patchml=patchml, before_review=before_review.get(run.id))
                     if run.status == RunStatus.COMPLETE else None)))
    out_reviews = []
    for review, model in reviews:
        items = review_items[review.id]
        out_reviews.append(ReviewSummary(
            id=review.id, model=model.name, path=review.path, sha256=review.sha256, items=len(items),
            categories=_counts_and_shares(Counter(c for c, _ in items), values(Category)),
            severities=_counts_and_shares(Counter(s for _, s in items), values(Severity))))
    return ProjectSummary(
        app_version=__version__,
        project=ProjectCounts(
            name=name.value if name and name.value else project.root.name, root=str(project.root),
            images=int(n_images), images_with_files=int(n_files), problematic=int(n_problematic),
            multilabel_set=int(before.multilabel.sum()),
            evaluable=int(mla_images(before, np.arange(len(before))).sum())),
        runs=tuple(out_runs), imported_reviews=tuple(out_reviews), patchml_sets=tuple(patchml.values()))
