"""Published panel reviews in the imagenet-mistakes metadata format:
{"ILSVRC2012_val_00001529.JPEG": {"top_prediction": 304, "failure category":
"Fine-grained error", "failure severity": "Minor"}, ...}."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import insert, select
from sqlmodel import Session

from db.tables import Image, ImportedReview, ImportedReviewItem, Model
from reviewer._files import sha256_file
from reviewer.errors import InputError, UserError
from reviewer.importers import real
from reviewer.importers._plan import val_index
from reviewer.importers._read import class_of_index, read_json, shown
from reviewer.importers.folders import IMAGE_SUFFIXES
from reviewer.terms import VALIDATION_IMAGES, normalise_category, normalise_severity


@dataclass(frozen=True)
class ReviewRecord:
    file_name: str
    predicted: int
    category: str
    severity: str
    category_raw: str
    severity_raw: str


CATEGORY_HINT = ("expected one of 'Fine-grained error', 'Fine-grained error with OOV', "
                 "'Spurious Correlation', 'Non-prototypical'")
FIELDS = ("top_prediction", "failure category", "failure severity")


def parse(path: str | Path) -> list[ReviewRecord]:
    """Validate a whole published review file; InputError naming the record on any fault."""
    source = str(path)
    data = read_json(path)
    if isinstance(data, dict) and ("initial_annots" in data or "image_filenames" in data):
        raise InputError(source, "this is a label file, not a published model review",
                         hint="import it with 'reviewer import-labels PROJECT FILE'")
    if real.looks_like(data):
        raise InputError(source, "these are ReaL labels, not a published model review",
                         hint="import them with 'reviewer import-labels PROJECT FILE'")
    if isinstance(data, list) and data and all(isinstance(x, list) and len(x) == 3 and isinstance(x[0], str)
                                               and isinstance(x[1], str) for x in data[:100]):
        raise InputError(source, "this is a list of confused class pairs [wnid, wnid, count] (the paper's class "
                                 "confusions), not a published model review",
                         hint="a review maps image names to records of top_prediction, failure category and "
                              "failure severity")
    if not isinstance(data, dict):
        raise InputError(source, "expected an object mapping image names to review records",
                         hint='e.g. {"ILSVRC2012_val_00001529.JPEG": {"top_prediction": 304, '
                              '"failure category": "Fine-grained error", "failure severity": "Minor"}}')
    if not data:
        raise InputError(source, "holds no review records", hint="is it the right file?")
    records = []
    for name, rec in data.items():
        if Path(name).suffix.lower() not in IMAGE_SUFFIXES:
            raise InputError(source, f"{name!r} is not an image file name", record=name,
                             hint="records are keyed by image file names such as ILSVRC2012_val_00001529.JPEG")
        index = val_index(name)
        if index is not None and not 0 <= index < VALIDATION_IMAGES:
            raise InputError(source, f"{name!r} is not an ImageNet validation image (they run from "
                                     f"ILSVRC2012_val_00000001.JPEG to ILSVRC2012_val_{VALIDATION_IMAGES:08d}.JPEG)",
                             record=name, hint="is the file name mistyped?")
        if not isinstance(rec, dict):
            raise InputError(source, f"expected a record object, got {shown(rec)}", record=name,
                             hint=f"a record holds {', '.join(FIELDS)}")
        missing = [key for key in FIELDS if key not in rec]
        if missing:
            raise InputError(source, f"missing {', '.join(repr(k) for k in missing)}", record=name,
                             hint=f"a record holds {', '.join(FIELDS)}")
        predicted = class_of_index(rec["top_prediction"], source=source, record=name)
        cat_raw, sev_raw = rec["failure category"], rec["failure severity"]
        category = normalise_category(cat_raw) if isinstance(cat_raw, str) else None
        severity = normalise_severity(sev_raw) if isinstance(sev_raw, str) else None
        if category is None:
            raise InputError(source, f"unknown failure category {shown(cat_raw)}", record=name, hint=CATEGORY_HINT)
        if severity is None:
            raise InputError(source, f"unknown failure severity {shown(sev_raw)}", record=name,
                             hint="expected Major, Minor or Borderline")
        records.append(ReviewRecord(name, predicted, category, severity, cat_raw, sev_raw))
    return records


@dataclass(frozen=True)
class PublishedReview:
    """A review file read and checked, not yet stored."""

    path: Path
    sha256: str
    records: list[ReviewRecord]


def read_review(path: str | Path) -> PublishedReview:
    """Parse and check a published review (nothing is written)."""
    records = parse(path)
    return PublishedReview(path=Path(path).resolve(), sha256=sha256_file(path), records=records)


def store_review(*, session: Session, review: PublishedReview, model: str) -> int:
    """Store a published review of `model`; returns the number of records.

    Images the project does not have yet are added (without a file), so the
    review is kept whole. In the caller's transaction: a refused review stores nothing.
    """
    model_row = session.execute(select(Model).where(Model.name == model)).scalars().first()
    if model_row is None:
        model_row = Model(name=model, source="review")
        session.add(model_row)
        session.flush()
    earlier = session.execute(select(ImportedReview.id).where(
        ImportedReview.model_id == model_row.id, ImportedReview.sha256 == review.sha256)).scalars().first()
    if earlier is not None:  # a second copy would count every reviewed mistake twice
        raise UserError(f"{review.path} is already imported as review {earlier} of {model}; nothing was changed")
    row = ImportedReview(model_id=model_row.id, path=str(review.path), sha256=review.sha256)
    session.add(row)
    session.flush()
    records = review.records
    ids = dict(session.execute(select(Image.file_name, Image.id)).all())
    missing = sorted({r.file_name for r in records} - set(ids))
    if missing:
        session.connection().execute(insert(Image.__table__), [
            {"file_name": n, "path": None, "original_label": None, "problematic": False, "val_index": val_index(n)}
            for n in missing])
        ids = dict(session.execute(select(Image.file_name, Image.id)).all())
    if records:
        session.connection().execute(insert(ImportedReviewItem.__table__), [
            {"review_id": row.id, "image_id": ids[r.file_name], "predicted": r.predicted,
             "category": r.category, "severity": r.severity, "category_raw": r.category_raw,
             "severity_raw": r.severity_raw} for r in records])
    return len(records)
