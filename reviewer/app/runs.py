"""Model runs for any front end: run a model, import scores, list runs and slices.

A run is computed as many units of work by design (each batch is committed
so a killed run resumes); its act returns the run's result and a change
record naming the run, whose mistakes are new questions for the panel.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from db.tables import Model, Run
from reviewer.app.changes import Changes, Done
from reviewer.evaluation.slices import slice_names
from reviewer.project import Project
from reviewer.runs.records import RunResult, top1_counts
from reviewer.terms import RunStatus


def run_model(project: Project, model: str, **options) -> Done[RunResult]:
    """Run (or resume) a model over the project's images (`reviewer.runs.compute.predict`)."""
    from reviewer.runs.compute import predict

    result = predict(project, model, **options)
    return Done(result, Changes(runs=frozenset([result.run_id])))


def run_models(project: Project, models: list[str], **options) -> Done[list[RunResult]]:
    """Run several models in one pass, each image decoded once per data config
    (`reviewer.runs.compute.predict_models`); one run each."""
    from reviewer.runs.compute import predict_models

    results = predict_models(project, models, **options)
    return Done(results, Changes(runs=frozenset(r.run_id for r in results)))


def auto_device() -> str:
    """The type of device a run with device "auto" computes on: cuda, mps or cpu (what a
    precision's explanation depends on). Loads torch: off the UI thread."""
    from models import resolve_device

    return resolve_device("auto").type


def import_scores(project: Project, path: str | Path, *, model: str, kind: str = "auto",
                  progress=None) -> Done[RunResult]:
    """A run from precomputed logits or probabilities (`reviewer.runs.logits`; `progress` hears
    its steps)."""
    from reviewer.runs.logits import import_logits

    result = import_logits(project, path, model=model, kind=kind, progress=progress)
    return Done(result, Changes(runs=frozenset([result.run_id])))


def run_list(project: Project) -> list[tuple[int, str, str, int]]:
    """(run id, model name, status, images) of the project's runs, newest first."""
    with project.read() as session:
        return runs_in(session=session)


def runs_in(*, session) -> list[tuple[int, str, str, int]]:
    """`run_list` through the caller's session."""
    return [tuple(r) for r in session.execute(
        select(Run.id, Model.name, Run.status, Run.num_images).join(Model, Model.id == Run.model_id)
        .order_by(Run.id.desc())).all()]


def default_run(runs: list[tuple[int, str, str, int]], remembered: int | None) -> int | None:
    """The run a window opens on (`runs` as `run_list` gives them): the one the panelist
    had open last, else the newest complete run, else the newest run."""
    ids = [run[0] for run in runs]
    if remembered in ids:
        return remembered
    complete = [run[0] for run in runs if run[2] == RunStatus.COMPLETE]
    return (complete or ids or [None])[0]


def slices(project: Project) -> dict[str, int]:
    """{slice name: images} of the project."""
    with project.read() as session:
        return slice_names(session=session)


def top1_of_run(project: Project, run_id: int) -> tuple[int, int]:
    """(correct, labelled) top-1 predictions of a run against the original labels."""
    with project.read() as session:
        return top1_counts(session=session, run_id=run_id)


def pending_summary(project: Project, run_id: int) -> dict:
    """How the run's mistakes split between new questions and ones already answered."""
    from reviewer.review.pending import rerun_summary

    with project.read() as session:
        return rerun_summary(session=session, run_id=run_id)


def no_run_words(project: Project, *, run_keys: str = "Ctrl+R", analysis_keys: str = "Ctrl+Shift+A"
                 ) -> tuple[str, str]:
    """(title, text) of the review page of a project without a run: what the project holds
    and what can be done with it. "Run a model over the project's images" cannot work in
    a project made from label files, which has no image files; its published reviews
    are read in the analysis and with `reviewer show`."""
    from sqlalchemy import func

    from db.tables import Image, ImportedReview, ImportedReviewItem

    with project.read() as session:
        images = session.execute(select(func.count(Image.id))).scalar_one()
        with_files = session.execute(select(func.count(Image.id)).where(Image.path.is_not(None))).scalar_one()
        reviews = session.execute(
            select(Model.name, func.count(ImportedReviewItem.id))
            .join(ImportedReview, ImportedReview.model_id == Model.id)
            .join(ImportedReviewItem, ImportedReviewItem.review_id == ImportedReview.id)
            .group_by(ImportedReview.id, Model.name).order_by(ImportedReview.id)).all()
    held = f"This project holds {images} images, {'none' if not with_files else with_files} with an image file"
    if reviews:
        held += ", and published reviews of " + ", ".join(f"{model} ({n} reviewed mistakes)" for model, n in reviews)
    read = (f" The reviews' verdicts, categories and severities are in the analysis (Analysis…, {analysis_keys}) and, per "
            "image, in 'reviewer show PROJECT --image FILE --predicted CLASS'." if reviews else "")
    if with_files:
        return "No model run yet", f"{held}. Run a model over its images (Run model…, {run_keys}).{read}"
    return ("No model run: the images have no files",
            f"{held}: a model needs image files to run. Add them with 'reviewer import-images PROJECT FOLDER' "
            f"(the validation images), or import a run's logits computed elsewhere with 'reviewer import-logits "
            f"PROJECT FILE --model NAME'.{read}")
