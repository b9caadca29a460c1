"""A leaderboard of every run: full-set top-1 and MLA, and the score on a slice.

Top-1 and MLA (after the review) are reported for runs over the whole set
only (a run on a slice has no full-set accuracy); the slice score is the count
of correct predictions on the slice's images with a Clopper-Pearson 95%
interval (`reviewer.evaluation.split.score_on_images`). `top1_scope` says
what a run's top-1 is over: "validation" when the run covers all 50,000
validation images, else its own images (`reviewer.analysis.plots.plot_trend`
draws slice score against top-1 and says which).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sqlalchemy import select
from sqlmodel import Session

from db.tables import Model, Run
from reviewer.evaluation.metrics import multilabel_accuracy, top1_accuracy
from reviewer.evaluation.slices import slice_image_ids, slice_names
from reviewer.evaluation.split import score_on_images
from reviewer.labels.labelset import LabelSet, load_labelset
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.runs.predictions import RunPredictions, load_predictions
from reviewer.runs.records import images_of_run, run_precision
from reviewer.terms import VALIDATION_IMAGES, RunStatus

COLUMNS = ["run_id", "model", "image_slice", "images_covered", "predictions", "top1", "top1_correct", "top1_total", "top1_scope", "mla",
           "slice_correct", "slice_total", "slice_score", "slice_low", "slice_high", "precision"]
FULL_VALIDATION = "validation"


def leaderboard(*, session: Session, slice_name: str | None = "imagenet_m", before: LabelSet | None = None,
                after: LabelSet | None = None, predictions: dict[int, RunPredictions] | None = None
                ) -> pd.DataFrame:
    """One row per complete run, best slice score first (then top-1).

    `slice_name` None, or a slice the project does not have, leaves the slice
    columns empty (NaN). `before`, `after` (labels) and `predictions` (run id ->
    predictions) are loaded unless the caller has them.
    """
    predictions = predictions or {}
    if before is None or after is None:
        base = load_labelset(session=session)
        before = reviewed_labelset(session=session, after_review=False, base=base) if before is None else before
        after = reviewed_labelset(session=session, after_review=True, base=base) if after is None else after
    slice_ids = (slice_image_ids(session=session, name=slice_name) if slice_name in slice_names(session=session)
                 else None)
    runs = session.execute(select(Run, Model.name).join(Model, Model.id == Run.model_id)
                           .where(Run.status == RunStatus.COMPLETE).order_by(Run.id)).all()
    rows = []
    for run, model in runs:
        run_id, image_slice = run.id, run.image_slice
        preds = predictions[run_id] if run_id in predictions else load_predictions(session=session, run_id=run_id)
        top1 = preds.top1.astype(np.int64)
        row = dict.fromkeys(COLUMNS, np.nan)
        row.update(run_id=run_id, model=model, image_slice=image_slice, images_covered=images_of_run(run),
                   predictions=len(preds), precision=run_precision(run))
        if image_slice is None:
            pos_b, pos_a = before.positions(preds.image_ids), after.positions(preds.image_ids)
            known = pos_b >= 0
            score = top1_accuracy(before, pos_b[known], top1[known])
            validation = int(before.validation[pos_b[known]].sum())
            row.update(top1=score.value, top1_correct=score.correct, top1_total=score.total,
                       top1_scope=FULL_VALIDATION if validation == VALIDATION_IMAGES else f"{score.total} images",
                       mla=multilabel_accuracy(after, pos_a[known], top1[known]).all.value)
        if slice_ids is not None:
            s = score_on_images(after, slice_ids, preds.image_ids, top1)
            row.update(slice_correct=s.correct, slice_total=s.total, slice_score=s.value, slice_low=s.low,
                       slice_high=s.high)
        rows.append(row)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return frame.sort_values(["slice_score", "top1", "run_id"], ascending=[False, False, True],
                             na_position="last", ignore_index=True)


def why_empty(*, session: Session) -> str:
    """Why the leaderboard has no row, and what to do: it ranks the project's model runs,
    and a project may hold none (made from label files, with published reviews only)."""
    from sqlalchemy import func

    from db.tables import Image, ImportedReview

    images = session.execute(select(func.count(Image.id))).scalar_one()
    with_files = session.execute(select(func.count(Image.id)).where(Image.path.is_not(None))).scalar_one()
    reviews = session.execute(select(Model.name).join(ImportedReview, ImportedReview.model_id == Model.id)
                              .order_by(ImportedReview.id)).scalars().all()
    unfinished = session.execute(select(func.count(Run.id)).where(Run.status != RunStatus.COMPLETE)).scalar_one()
    head = (f"no complete model run in this project ({images} images, {with_files} with a file"
            + (f"; {unfinished} run(s) not finished" if unfinished else "")
            + (f"; published reviews of {', '.join(reviews)}" if reviews else "") + "): the leaderboard ranks runs")
    if unfinished:
        todo = "finish a run: the same 'reviewer predict' command resumes it ('reviewer report' lists the runs)"
    elif with_files:
        todo = "run a model with 'reviewer predict PROJECT --model NAME'"
    else:
        todo = ("its images have no files to run a model on: import a run's logits computed elsewhere with "
                "'reviewer import-logits PROJECT FILE --model NAME', or add the images with 'reviewer "
                "import-images PROJECT FOLDER' and run 'reviewer predict'")
    if reviews:
        todo += ("; the published reviews' mistakes are in 'reviewer report' and 'reviewer show', and a "
                 "'reviewer split --runs' of them makes a major-error slice")
    return f"{head}. To fill it, {todo}."


def off_trend(frame: pd.DataFrame) -> list[str]:
    """Runs with a slice score but no full-set top-1 to place them by ("model (#id)"): a run
    over the slice only, of a model never run over the whole set."""
    placed = set(frame.dropna(subset=["top1"])["model"])
    rows = frame[frame["slice_score"].notna() & frame["top1"].isna() & ~frame["model"].isin(placed)]
    return [f"{row.model} (#{row.run_id})" for row in rows.itertuples(index=False)]
