"""Importers of image sets, label files and published reviews.

Each importer validates the whole input first (`parse_labels`, `folders.scan`,
`reviews.read_review`: plain data, nothing written), then writes it in the
caller's transaction (`apply_plan`, `add_images`, `reviews.store_review`):
malformed input raises an `InputError` naming the file, the record and the
problem, and nothing is imported. `reviewer.app.imports` holds the acts.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sqlalchemy import func, select
from sqlmodel import Session

from db.tables import Image
from reviewer.errors import InputError
from reviewer.importers import annotated, folders, real, tfds, tfds_csv, val_paths
from reviewer.importers._plan import ImportPlan, ImportSummary, apply_plan
from reviewer.importers._read import read_json, shown
from reviewer.project import read_setting, write_setting

__all__ = ["ImportPlan", "ImportSummary", "add_images", "apply_plan", "image_names", "parse_label_files",
           "parse_labels"]


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
        if val_paths.looks_like(data):
            return val_paths.parse(path, data)
        if isinstance(data, dict) and data and all(
                isinstance(v, dict) and "top_prediction" in v for v in list(data.values())[:10]):
            raise InputError(str(path), "this is a published model review, not a label file",
                             hint="import it with 'reviewer import-review PROJECT FILE --model NAME'")
        found = (f"an object with keys {shown(list(data)[:5])}" if isinstance(data, dict)
                 else f"a list of {len(data)} items" if isinstance(data, list) else f"the value {shown(data)}")
        raise InputError(str(path), f"unrecognised JSON label file: {found}",
                         hint="expected a TFDS multilabel annotation file, the 20k annotated-image list, "
                              "ReaL labels, or a list of image paths in class folders")
    header = _csv_header(path)
    if header and tfds_csv.looks_like(header):
        return tfds_csv.parse(path)
    if header and {"id", "proposed_labels"} <= set(header):
        raise InputError(str(path), f"a CSV of proposed labels without the multi-label columns "
                                    f"({', '.join(header)}), e.g. a Flaws of ImageNet correction",
                         hint="ground truth comes from the TFDS multi-label file (its CSV dump has "
                              "unclear_multi_labels, wrong_multi_labels and is_problematic); import a "
                              "published correction beside it with 'reviewer import-evidence PROJECT FILE'")
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


def image_names(*, session: Session) -> set[str]:
    """The file names of the project's images (what a label file is checked against)."""
    return set(session.execute(select(Image.file_name)).scalars())


def images_with_files(*, session: Session) -> int:
    """How many of the project's images have a file (0: a project made from label files)."""
    return session.execute(select(func.count(Image.id)).where(Image.path.is_not(None))).scalar_one()


def parse_label_files(paths: list[str | Path], *, project_images: set[str]) -> list[ImportPlan]:
    """Parse and check every file before any is written; each later file is checked
    against the project's images and those the earlier files add."""
    names, plans = set(project_images), []
    for path in paths:
        plan = parse_labels(path, project_images=names)
        names.update(plan.images)
        plans.append(plan)
    return plans


def add_images(*, session: Session, plan: ImportPlan) -> ImportSummary:
    """Add the images of a scanned folder (`folders.scan`).

    The first folder becomes the project's images root and its paths are kept
    relative to it (the project survives moving the folder with the root
    setting). A later folder elsewhere keeps its images' paths absolute, so
    the images of the first one still resolve.
    """
    root = read_setting(session=session, key="images_root")
    if root is None:
        write_setting(session=session, key="images_root", value=str(plan.source_path))
        return apply_plan(session=session, plan=plan)
    root = Path(root)
    images = {}
    for name, entry in plan.images.items():  # a copy: the plan stays as scanned if the transaction is retried
        path = Path(plan.source_path) / entry.path
        images[name] = replace(entry, path=path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path))
    return apply_plan(session=session, plan=replace(plan, images=images))
