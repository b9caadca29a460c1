"""The labels as they stand: imported labels, plus what reviews have judged.

- Imported reviews (published panel reviews of a model) judged each listed
  prediction wrong: those classes count as wrong labels where the image has
  no label of that class yet.
- The panel's final decisions (latest per image and predicted class) set the
  predicted class to correct / wrong / unclear, and may flag the image as
  problematic. `after_review=False` leaves them out (MLA before the review).
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import select
from sqlmodel import Session

from db.tables import ImportedReviewItem
from reviewer.labels.labelset import KIND_CODES, WRONG, LabelSet, load_labelset
from reviewer.panel.final import read_final_decisions


def imported_review_items(*, session: Session) -> np.ndarray:
    """[n, 2] int64 (image_id, predicted) of every imported review item."""
    rows = session.connection().execute(
        select(ImportedReviewItem.image_id, ImportedReviewItem.predicted).distinct()).all()
    return np.array(rows, dtype=np.int64).reshape(len(rows), 2)


def reviewed_labelset(*, session: Session, after_review: bool = True, base: LabelSet | None = None,
                      image_ids: list[int] | None = None) -> LabelSet:
    """The labels as they stand (module docstring); with `image_ids`, those images' only."""
    labels = base if base is not None else load_labelset(session=session, image_ids=image_ids)
    items = imported_review_items(session=session)
    if len(items):
        pos = labels.positions(items[:, 0])
        existing = labels.rows.astype(np.int64) * 1000 + labels.classes
        new = (pos >= 0) & ~np.isin(pos * 1000 + items[:, 1], existing)
        if new.any():
            labels = labels.with_judgements(items[new, 0], items[new, 1], np.full(int(new.sum()), WRONG))
    if after_review:
        decisions = list(read_final_decisions(session=session).values())
        if decisions:
            labels = labels.with_judgements(
                np.array([d.image_id for d in decisions]), np.array([d.predicted for d in decisions]),
                np.array([KIND_CODES[d.verdict] for d in decisions]),
                problematic_ids=np.array([d.image_id for d in decisions if d.problematic], dtype=np.int64),
            )
    return labels
