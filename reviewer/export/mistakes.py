"""Each model's reviewed mistakes in the imagenet-mistakes metadata format.

{"ILSVRC2012_val_00001529.JPEG": {"top_prediction": 304, "failure category":
"Fine-grained error", "failure severity": "Minor"}, ...}, the layout of the
files published with the paper, so they and ours are interchangeable. Items
from an imported file keep their published spelling and order (exporting an
imported review gives the same bytes); the panel's own items follow, by file
name, in the published spelling of `reviewer.terms`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from sqlmodel import Session

from reviewer._files import atomic_write_text
from reviewer.errors import UserError
from reviewer.review.reviewed_mistakes import reviewed_mistakes
from reviewer.terms import Category, Severity


@dataclass
class ModelMistakes:
    """One model's reviewed mistakes, ready to write."""

    model: str
    records: dict[str, dict] = field(default_factory=dict)
    # Decided mistakes left out: no category or severity set, or a second
    # prediction on an image already written (the format has one per image).
    incomplete: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        # The published files are json.dumps of the dict: one line, default separators.
        return json.dumps(self.records)


def _record(row) -> dict:
    return {"top_prediction": int(row.predicted),
            "failure category": row.category_raw or Category(row.category).published,
            "failure severity": row.severity_raw or Severity(row.severity).caption}


def model_mistakes(*, model: str, reviewed: pd.DataFrame) -> ModelMistakes:
    """The reviewed mistakes of `model` (imported and the panel's), in export order
    (`reviewed`: `reviewed_mistakes`)."""
    rows = reviewed[reviewed["model"] == model]
    if rows.empty and model not in set(reviewed["model"]):
        known = ", ".join(sorted(set(reviewed["model"]))) or "none"
        raise UserError(f"model {model!r} has no reviewed mistakes in this project (models with reviewed "
                        f"mistakes: {known})")
    out = ModelMistakes(model)
    for row in rows.itertuples(index=False):
        if row.category is None or row.severity is None:
            out.incomplete.append(row.file_name)
        elif row.file_name in out.records:
            out.duplicates.append(row.file_name)
        else:
            out.records[row.file_name] = _record(row)
    return out


def write_model_mistakes(model: str, path: str | Path, *, session: Session) -> ModelMistakes:
    """Write `model`'s reviewed mistakes to `path` atomically; returns what was written."""
    result = model_mistakes(model=model, reviewed=reviewed_mistakes(session=session))
    try:
        atomic_write_text(path, result.to_json())
    except OSError as exc:  # the old file, if any, is untouched (atomic write)
        raise UserError(f"could not write {path}: {exc.strerror or exc}; nothing was written") from exc
    return result


def models_with_reviews(reviewed: pd.DataFrame) -> list[str]:
    return sorted(set(reviewed["model"]))
