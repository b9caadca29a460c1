"""What `reviewer report` shows: every run and imported review with its metrics,
counts and its mistakes' category and severity shares. The dict returned by
`project_summary` is the stable JSON of `reviewer report --json`."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
from sqlalchemy import Integer, cast, func, select
from sqlmodel import Session

from db.tables import Image, ImportedReview, ImportedReviewItem, Mistake, Model, ProjectSetting, Run
from reviewer import __version__
from reviewer.evaluation.metrics import mla_images, multilabel_accuracy, real_accuracy, top1_accuracy
from reviewer.evaluation.topk import multilabel_variable_topk, real_variable_topk
from reviewer.labels.labelset import LabelSet
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.project import Project
from reviewer.runs.predictions import RunPredictions, load_predictions, ranked_classes
from reviewer.runs.records import fast_decoded, images_of_run, run_precision
from reviewer.terms import Category, RunStatus, Severity, values

TOPK_FOR_VARIABLE = 10  # ReaL lists at most 9 labels of an image


def _counts_and_shares(counts: Counter, keys: tuple[str, ...]) -> dict:
    total = sum(counts.values())
    return {k: {"count": counts.get(k, 0), "share": counts.get(k, 0) / total if total else math.nan} for k in keys}


def run_metrics(project: Project, run: Run, before: LabelSet, after: LabelSet, *, session: Session,
                predictions: RunPredictions | None = None, collapsed: bool = False) -> dict:
    """A complete run's metrics. `project` gives the run's probability file, `session` the rest."""
    preds = load_predictions(session=session, run_id=run.id) if predictions is None else predictions
    pos_b = before.positions(preds.image_ids)
    known = pos_b >= 0
    pos_b, top1 = pos_b[known], preds.top1[known]
    pos_a = after.positions(preds.image_ids[known])
    ranked = ranked_classes(project, run, preds, TOPK_FOR_VARIABLE)[known]
    return {
        "predictions": int(len(preds)),
        "top1": top1_accuracy(before, pos_b, top1).as_dict(),
        "mla": multilabel_accuracy(before, pos_b, top1, collapsed=collapsed).as_dict(),
        "mla_after_review": multilabel_accuracy(after, pos_a, top1, collapsed=collapsed).as_dict(),
        "real": real_accuracy(before, pos_b, top1).as_dict(),
        "variable_topk": real_variable_topk(before, pos_b, ranked).as_dict(),
        "variable_topk_multilabel": multilabel_variable_topk(before, pos_b, ranked).as_dict(),
    }


def project_summary(project: Project, *, session: Session, before: LabelSet | None = None,
                    after: LabelSet | None = None, predictions: dict[int, RunPredictions] | None = None,
                    collapsed: bool = False) -> dict:
    """The report's JSON, read with `session` (one snapshot). `before`/`after` (the labels
    before and after the review) and `predictions` (run id -> predictions) save reloading
    what the caller has."""
    before = reviewed_labelset(session=session, after_review=False) if before is None else before
    after = reviewed_labelset(session=session, after_review=True) if after is None else after
    predictions = predictions or {}
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
    out_runs = []
    for run, model in runs:
        total, novel = mistake_counts.get(run.id, (0, 0))
        entry = {
            "id": run.id, "model": model.name, "source": model.source, "status": run.status,
            "image_slice": run.image_slice, "limit": (run.report or {}).get("limit"),
            "images_covered": images_of_run(run), "device": run.device,
            # Large JPEGs decoded in draft mode: not timm's exact preprocessing (reviewer predict --fast-decode).
            "fast_decode": fast_decoded(run),
            "precision": run_precision(run),  # number format of the forward passes (reviewer predict --precision)
            "created_at": run.created_at.isoformat() if run.created_at else None,
            "mistakes": {"total": int(total or 0), "novel": int(novel or 0)},
        }
        entry["metrics"] = (run_metrics(project, run, before, after, session=session,
                                        predictions=predictions.get(run.id), collapsed=collapsed)
                            if run.status == RunStatus.COMPLETE else None)
        out_runs.append(entry)
    out_reviews = []
    for review, model in reviews:
        items = review_items[review.id]
        out_reviews.append({
            "id": review.id, "model": model.name, "path": review.path, "sha256": review.sha256,
            "items": len(items),
            "categories": _counts_and_shares(Counter(c for c, _ in items), values(Category)),
            "severities": _counts_and_shares(Counter(s for _, s in items), values(Severity)),
        })
    return {
        "app_version": __version__,
        "project": {"name": name.value if name and name.value else project.root.name, "root": str(project.root),
                    "images": int(n_images),
                    "images_with_files": int(n_files), "problematic": int(n_problematic),
                    "multilabel_set": int(before.multilabel.sum()),
                    "evaluable": int(mla_images(before, np.arange(len(before))).sum())},
        "runs": out_runs,
        "imported_reviews": out_reviews,
    }
