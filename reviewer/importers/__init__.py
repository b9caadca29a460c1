"""Importers of image sets, label files and published reviews.

Each importer validates the whole input first and writes it in one
transaction: malformed input raises an `InputError` naming the file, the
record and the problem, and nothing is imported.
"""

from __future__ import annotations

from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers import annotated, folders, real, tfds, tfds_csv
from reviewer.importers._plan import ImportPlan, ImportSummary, apply_plan
from reviewer.importers._read import read_json, shown
from reviewer.importers.reviews import import_review
from reviewer.project import Project

__all__ = ["import_images", "import_labels", "import_review", "init_project", "parse_labels", "ImportSummary"]


def parse_labels(path: str | Path, *, project_images: set[str] | None = None) -> ImportPlan:
    """Read a label file of any supported format, told apart by its content."""
    path = Path(path)
    if path.suffix.lower() == ".json" or _starts_like_json(path):
        data = read_json(path)
        if tfds.looks_like(data):
            return tfds.parse(path, data)
        if annotated.looks_like(data):
            return annotated.parse(path, data)
        if real.looks_like(data):
            return real.parse(path, data, only=project_images or None)
        if isinstance(data, dict) and data and all(
                isinstance(v, dict) and "top_prediction" in v for v in list(data.values())[:10]):
            raise InputError(str(path), "this is a published model review, not a label file",
                             hint="import it with 'reviewer import-review PROJECT FILE --model NAME'")
        found = (f"an object with keys {shown(list(data)[:5])}" if isinstance(data, dict)
                 else f"a list of {len(data)} items" if isinstance(data, list) else f"the value {shown(data)}")
        raise InputError(str(path), f"unrecognised JSON label file: {found}",
                         hint="expected a TFDS multilabel annotation file, the 20k annotated-image list, "
                              "or ReaL labels")
    header = _csv_header(path)
    if header and tfds_csv.looks_like(header):
        return tfds_csv.parse(path)
    if header and {"id", "proposed_labels"} <= set(header):
        raise InputError(str(path), f"a CSV of proposed labels without the multi-label columns "
                                    f"({', '.join(header)}), e.g. a Flaws of ImageNet correction",
                         hint="ground truth comes from the TFDS multi-label file (its CSV dump has "
                              "unclear_multi_labels, wrong_multi_labels and is_problematic)")
    return folders.parse_label_file(path)


def _csv_header(path: Path) -> list[str] | None:
    """The first line's comma-separated fields when it looks like a CSV header."""
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            first = fh.readline(4096)
    except OSError:
        return None  # the label-file reader says what is wrong
    if "," not in first:
        return None
    import csv

    return [c.strip() for c in next(csv.reader([first]), [])]


def _starts_like_json(path: Path) -> bool:
    """Whether a file without a .json name holds JSON (e.g. ReaL labels saved as .txt)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return False  # the label-file reader says what is wrong
    return head[:1] in (b"{", b"[")


def import_labels(project: Project, path: str | Path) -> ImportSummary:
    from sqlalchemy import select

    from db.engine import read_session
    from db.tables import Image

    with read_session(project.engine) as session:
        names = set(session.execute(select(Image.file_name)).scalars())
    return apply_plan(project, parse_labels(path, project_images=names))


def import_images(project: Project, directory: str | Path) -> ImportSummary:
    """Add the images of a folder.

    The first folder becomes the project's images root and its paths are kept
    relative to it (the project survives moving the folder with the root
    setting). A later folder elsewhere keeps its images' paths absolute, so
    the images of the first one still resolve.
    """
    plan = folders.scan(directory)
    root = project.images_root
    if root is None:
        summary = apply_plan(project, plan)
        project.set_setting("images_root", plan.source_path)
        return summary
    for entry in plan.images.values():
        path = Path(plan.source_path) / entry.path
        entry.path = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    return apply_plan(project, plan)


def init_project(root: str | Path, *, images: str | Path | None = None, labels: list[str | Path] = (),
                 db_url: str | None = None) -> tuple[Project, list[ImportSummary]]:
    """Create a project and import its images and label files (`reviewer init`).

    All inputs are parsed before the project folder is made, so a bad file
    leaves no half-made project behind.
    """
    plans = [folders.scan(images)] if images is not None else []
    names: set[str] = set(plans[0].images) if plans else set()
    for path in labels:
        plan = parse_labels(path, project_images=names)
        names.update(plan.images)
        plans.append(plan)
    project = Project.create(root, db_url=db_url)
    summaries = [apply_plan(project, plan) for plan in plans]
    if images is not None:
        project.set_setting("images_root", plans[0].source_path)
    return project, summaries
