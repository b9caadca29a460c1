"""Importing into an open project: images, label files, published reviews. Each act
checks all its input first, then writes it in one transaction (all of it or nothing),
and says what changed: the facts shown for any item may be new."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from sqlalchemy import select
from sqlmodel import Session

from db.tables import Model, Run
from reviewer.app.changes import Changes, Done
from reviewer.errors import UserError
from reviewer.importers import (
    ImportSummary,
    add_images,
    apply_plan,
    folders,
    image_names,
    images_with_files,
    parse_label_files,
)
from reviewer.importers.reviews import read_review, store_review
from reviewer.project import Project, write_setting
from reviewer.runs.mistakes import MistakeDiff, follow_labels

_LABELS = Changes(labels=True)


def _labels_changed(diffs: list[MistakeDiff]) -> Changes:
    """A label import's change record: the labels, and the runs whose mistakes it changed."""
    return Changes(labels=True, runs=frozenset(d.run_id for d in diffs if d.any))


Progress = Callable[[int, int], None]  # (runs done, runs): a label import brings every run in line


def _follow_labels(session: Session, progress: Progress | None = None) -> list[MistakeDiff]:
    """Every stored run's mistakes under the labels just written, in the import's own unit of work."""
    return follow_labels(session=session, progress=progress)


def followed_lines(project: Project, diffs: list[MistakeDiff]) -> list[str]:
    """What a label import did to each run's mistakes, one line per run that changed:
    'run #3 (resnet50): 6,824 mistakes now (+12, -11,225: no longer mistakes under the current labels)'."""
    changed = [d for d in diffs if d.any]
    if not changed:
        return []
    with project.read() as session:
        names = dict(session.execute(select(Run.id, Model.name).join(Model, Model.id == Run.model_id)).all())
    lines = []
    for d in changed:
        parts = [f"+{d.gained:,} new"] if d.gained else []
        if d.lost:
            parts.append(f"-{d.lost:,} no longer mistakes under the current labels")
        if d.changed:
            parts.append(f"{d.changed:,} with a new novelty or WordNet distance")
        lines.append(f"run #{d.run_id} ({names.get(d.run_id, '?')}): {d.mistakes:,} "
                     f"mistake{'s' if d.mistakes != 1 else ''} now ({'; '.join(parts)})")
    return lines


def import_images(project: Project, directory: str | Path, *, progress: Progress | None = None) -> Done[ImportSummary]:
    plan = folders.scan(directory)

    def work(session: Session) -> tuple[ImportSummary, list[MistakeDiff]]:
        return add_images(session=session, plan=plan), _follow_labels(session, progress)

    summary, diffs = project.write(work)
    summary.notes.extend(followed_lines(project, diffs))
    return Done(summary, _labels_changed(diffs))


class MissingImagesError(UserError):
    """A file names images the project does not have, in a project of image files: adding
    them without a file is asked for explicitly (`add_missing_images`), never done silently."""


def import_labels(project: Project, paths: list[str | Path], *, add_missing_images: bool = False,
                  progress: Progress | None = None) -> Done[list[ImportSummary]]:
    """Every file checked before any is written; all imported in one transaction.
    Images a file names that the project lacks are added without a file only where the
    project has no image files at all (made from label files) or `add_missing_images`."""
    with project.read() as session:
        names = image_names(session=session)
        with_files = images_with_files(session=session)
    plans = parse_label_files(list(paths), project_images=names)
    if with_files and not add_missing_images:
        known = set(names)
        for plan in plans:
            _refuse_missing(plan.source_path, plan.images_without_file(known), len(plan.referenced_images()),
                            with_files, len(names), kind="label file")
            known |= plan.referenced_images()
    def work(session: Session) -> tuple[list[ImportSummary], list[MistakeDiff]]:
        return [apply_plan(session=session, plan=plan) for plan in plans], _follow_labels(session, progress)

    summaries, diffs = project.write(work)
    if summaries:
        summaries[-1].notes.extend(followed_lines(project, diffs))
    if with_files:
        for summary in summaries:
            if summary.images_added:
                summary.notes.append(f"{summary.images_added} of the images added have no file "
                                     "(--add-missing-images): their labels count, no model runs on them")
    return Done(summaries, _labels_changed(diffs))


@dataclass(frozen=True)
class ReviewImport:
    items: int  # reviewed mistakes stored
    images_added: int  # images the project lacked, added without a file
    project_has_files: bool
    runs_changed: tuple[str, ...] = ()  # `followed_lines`: what the review changed in the runs' mistakes (novelty)


def import_review(project: Project, path: str | Path, *, model: str, add_missing_images: bool = False,
                  progress: Progress | None = None) -> Done[ReviewImport]:
    """A published review of `model`: how many reviewed mistakes it holds. Its images the
    project lacks are added without a file as `import_labels` says."""
    review = read_review(path)
    with project.read() as session:
        names = image_names(session=session)
        with_files = images_with_files(session=session)
    reviewed = {r.file_name for r in review.records}
    if with_files and not add_missing_images:
        _refuse_missing(str(review.path), reviewed - names, len(reviewed), with_files, len(names), kind="review")
    def work(session: Session) -> tuple[int, list[MistakeDiff]]:
        return store_review(session=session, review=review, model=model), _follow_labels(session, progress)

    items, diffs = project.write(work)
    return Done(ReviewImport(items, len(reviewed - names), bool(with_files), tuple(followed_lines(project, diffs))),
                _labels_changed(diffs))


def _refuse_missing(source: str, missing: set[str], total: int, with_files: int, images: int, *, kind: str) -> None:
    if not missing:
        return
    shown = ", ".join(sorted(missing)[:3]) + (", ..." if len(missing) > 3 else "")
    raise MissingImagesError(
        f"{source}: {len(missing)} of the {total} images this {kind} names are not in the project ({shown}). "
        f"The project has image files ({with_files} of its {images} images), so adding these without a file would mix images a "
        f"model cannot run on into it. Nothing was imported. To add them without a file, run the same command "
        f"with --add-missing-images; to review them with their pictures, add their files first ('reviewer "
        f"import-images PROJECT FOLDER').")


def init_project(root: str | Path, *, images: str | Path | None = None, labels: list[str | Path] = (),
                 db_url: str | None = None, settings: dict[str, str] | None = None
                 ) -> tuple[Project, list[ImportSummary]]:
    """Create a project and import its images and label files (`reviewer init`).

    All inputs are parsed before the project folder is made, so a bad file
    leaves no half-made project behind. `settings` (e.g. its name) are written in
    the same unit of work as the import.
    """
    folder = folders.scan(images) if images is not None else None
    plans = parse_label_files(list(labels), project_images=set(folder.images) if folder else set())
    project = Project.create(root, db_url=db_url)

    def work(session: Session) -> list[ImportSummary]:
        first = [add_images(session=session, plan=folder)] if folder is not None else []
        summaries = first + [apply_plan(session=session, plan=plan) for plan in plans]
        for key, value in (settings or {}).items():
            write_setting(session=session, key=key, value=value)
        return summaries

    summaries = project.write(work)
    if folder is not None:  # label files naming images beyond the folder: say they have no file
        for summary in summaries[1:]:
            if summary.images_added:
                summary.notes.append(f"{summary.images_added} of the images added are not in {images}: they have "
                                     "no file (their labels count, no model runs on them)")
    return project, summaries
