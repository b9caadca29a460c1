"""Importing into an open project: images, label files, published reviews. Each act
checks all its input first, then writes it in one transaction (all of it or nothing),
and says what changed: the facts shown for any item may be new."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import Session

from reviewer.app.changes import Changes, Done
from reviewer.importers import ImportSummary, add_images, apply_plan, folders, image_names, parse_label_files
from reviewer.importers.reviews import read_review, store_review
from reviewer.project import Project

_LABELS = Changes(labels=True)


def import_images(project: Project, directory: str | Path) -> Done[ImportSummary]:
    plan = folders.scan(directory)
    return Done(project.write(lambda s: add_images(session=s, plan=plan)), _LABELS)


def import_labels(project: Project, paths: list[str | Path]) -> Done[list[ImportSummary]]:
    """Every file checked before any is written; all imported in one transaction."""
    with project.read() as session:
        names = image_names(session=session)
    plans = parse_label_files(list(paths), project_images=names)
    return Done(project.write(lambda s: [apply_plan(session=s, plan=plan) for plan in plans]), _LABELS)


def import_review(project: Project, path: str | Path, *, model: str) -> Done[int]:
    """A published review of `model`; returns how many reviewed mistakes it holds."""
    review = read_review(path)
    return Done(project.write(lambda s: store_review(session=s, review=review, model=model)), _LABELS)


def init_project(root: str | Path, *, images: str | Path | None = None, labels: list[str | Path] = (),
                 db_url: str | None = None) -> tuple[Project, list[ImportSummary]]:
    """Create a project and import its images and label files (`reviewer init`).

    All inputs are parsed before the project folder is made, so a bad file
    leaves no half-made project behind.
    """
    folder = folders.scan(images) if images is not None else None
    plans = parse_label_files(list(labels), project_images=set(folder.images) if folder else set())
    project = Project.create(root, db_url=db_url)

    def work(session: Session) -> list[ImportSummary]:
        first = [add_images(session=session, plan=folder)] if folder is not None else []
        return first + [apply_plan(session=session, plan=plan) for plan in plans]

    return project, project.write(work)
