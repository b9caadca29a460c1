"""Published panel reviews in the imagenet-mistakes metadata format:
{"ILSVRC2012_val_00001529.JPEG": {"top_prediction": 304, "failure category":
"Fine-grained error", "failure severity": "Minor"}, ...}."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import insert, select

from db.engine import write_session
from db.tables import Image, ImportedReview, ImportedReviewItem, Model
from reviewer._files import sha256_file
from reviewer.errors import InputError
from reviewer.importers._plan import val_index
from reviewer.importers._read import class_of_index, read_json
from reviewer.project import Project
from reviewer.terms import normalise_category, normalise_severity


@dataclass(frozen=True)
class ReviewRecord:
    file_name: str
    predicted: int
    category: str
    severity: str
    category_raw: str
    severity_raw: str


def parse(path: str | Path) -> list[ReviewRecord]:
    source = str(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(source, "expected an object mapping image names to review records")
    if "initial_annots" in data or "image_filenames" in data:
        raise InputError(source, "this is a label file, not a published model review",
                         hint="import it with 'reviewer import-labels PROJECT FILE'")
    records = []
    for name, rec in data.items():
        if not isinstance(rec, dict):
            raise InputError(source, "expected a record object", record=name)
        missing = {"top_prediction", "failure category", "failure severity"} - set(rec)
        if missing:
            raise InputError(source, f"missing {sorted(missing)}", record=name)
        predicted = class_of_index(rec["top_prediction"], source=source, record=name)
        cat_raw, sev_raw = str(rec["failure category"]), str(rec["failure severity"])
        category, severity = normalise_category(cat_raw), normalise_severity(sev_raw)
        if category is None:
            raise InputError(source, f"unknown failure category {cat_raw!r}", record=name)
        if severity is None:
            raise InputError(source, f"unknown failure severity {sev_raw!r} (expected Major, Minor or Borderline)",
                             record=name)
        records.append(ReviewRecord(name, predicted, category, severity, cat_raw, sev_raw))
    return records


def import_review(project: Project, path: str | Path, *, model: str) -> int:
    """Import a published review of `model`; returns the number of records.

    Images the project does not have yet are added (without a file), so the
    review is kept whole. One transaction: a bad record imports nothing.
    """
    records = parse(path)
    with write_session(project.engine) as session:
        model_row = session.execute(select(Model).where(Model.name == model)).scalars().first()
        if model_row is None:
            model_row = Model(name=model, source="review")
            session.add(model_row)
            session.flush()
        review = ImportedReview(model_id=model_row.id, path=str(Path(path).resolve()), sha256=sha256_file(path))
        session.add(review)
        session.flush()
        ids = dict(session.execute(select(Image.file_name, Image.id)).all())
        missing = sorted({r.file_name for r in records} - set(ids))
        if missing:
            session.connection().execute(insert(Image.__table__), [
                {"file_name": n, "path": None, "original_label": None, "problematic": False, "val_index": val_index(n)}
                for n in missing])
            ids = dict(session.execute(select(Image.file_name, Image.id)).all())
        if records:
            session.connection().execute(insert(ImportedReviewItem.__table__), [
                {"review_id": review.id, "image_id": ids[r.file_name], "predicted": r.predicted,
                 "category": r.category, "severity": r.severity, "category_raw": r.category_raw,
                 "severity_raw": r.severity_raw} for r in records])
    return len(records)
