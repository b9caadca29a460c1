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
from sqlalchemy import func, select

from db.engine import read_session
from db.tables import Decision, ImportedReviewItem
from reviewer.labels.labelset import KIND_CODES, WRONG, LabelSet, load_labelset
from reviewer.project import Project


def imported_review_items(project: Project) -> np.ndarray:
    """[n, 2] int64 (image_id, predicted) of every imported review item."""
    with read_session(project.engine) as session:
        rows = session.connection().execute(
            select(ImportedReviewItem.image_id, ImportedReviewItem.predicted).distinct()).all()
    return np.array(rows, dtype=np.int64).reshape(len(rows), 2)


def latest_decisions(project: Project) -> list:
    """The current final decision of every decided (image, predicted) item."""
    with read_session(project.engine) as session:
        latest = (select(func.max(Decision.id)).group_by(Decision.image_id, Decision.predicted)).scalar_subquery()
        return list(session.connection().execute(
            select(Decision.image_id, Decision.predicted, Decision.verdict, Decision.problematic)
            .where(Decision.id.in_(latest))).all())


def reviewed_labelset(project: Project, *, after_review: bool = True, base: LabelSet | None = None) -> LabelSet:
    labels = base if base is not None else load_labelset(project)
    items = imported_review_items(project)
    if len(items):
        pos = labels.positions(items[:, 0])
        existing = labels.rows.astype(np.int64) * 1000 + labels.classes
        new = (pos >= 0) & ~np.isin(pos * 1000 + items[:, 1], existing)
        if new.any():
            labels = labels.with_judgements(items[new, 0], items[new, 1], np.full(int(new.sum()), WRONG))
    if after_review:
        decisions = [d for d in latest_decisions(project) if d.verdict in KIND_CODES]
        if decisions:
            labels = labels.with_judgements(
                np.array([d.image_id for d in decisions]), np.array([d.predicted for d in decisions]),
                np.array([KIND_CODES[d.verdict] for d in decisions]),
                problematic_ids=np.array([d.image_id for d in decisions if d.problematic], dtype=np.int64),
            )
    return labels
