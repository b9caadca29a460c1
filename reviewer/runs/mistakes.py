"""The mistakes of a run: images whose top-1 prediction is not among their
correct or unclear labels (the reference rule; no collapsed mappings).

A mistake is *novel* when its prediction was never reviewed before: it is
not a wrong label of the image and no imported review has judged it. The
panel's own decisions do not change novelty (they change the status).
Problematic images are not counted, as in MLA; in a project with a
multi-label set, only its images are in scope.

`stored_mistakes` is the one reader of the stored mistakes (of one run or
of all), with what every consumer needs of the image; the queue, the panel,
the split, the comparison and the reviewed mistakes all read through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import delete, insert, select
from sqlmodel import Session

from db.tables import Image, Mistake
from reviewer.classes.wordnet import hierarchy_levels
from reviewer.items import Item
from reviewer.labels.labelset import CORRECT, WRONG, LabelSet, accepted, evaluable
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.runs.predictions import RunPredictions, load_predictions

if TYPE_CHECKING:  # pandas loads with the first table (0.3 s): the window's first paint needs none
    import pandas as pd


@dataclass(frozen=True)
class StoredMistake:
    mistake_id: int
    run_id: int
    image_id: int
    predicted: int
    probability: float
    novel: bool
    hierarchy_distance: int | None
    file_name: str
    original_label: int | None
    has_file: bool

    @property
    def item(self) -> Item:
        return Item(self.image_id, self.predicted)


def stored_mistakes(*, session: Session, run_id: int | None = None) -> list[StoredMistake]:
    """The stored mistakes of a run (or of every run), by run and image."""
    query = (select(Mistake.id, Mistake.run_id, Mistake.image_id, Mistake.predicted, Mistake.probability,
                    Mistake.novel, Mistake.hierarchy_distance, Image.file_name, Image.original_label, Image.path)
             .join(Image, Image.id == Mistake.image_id).order_by(Mistake.run_id, Mistake.image_id))
    if run_id is not None:
        query = query.where(Mistake.run_id == run_id)
    return [StoredMistake(r[0], r[1], r[2], r[3], float(r[4]), bool(r[5]), r[6], r[7], r[8], r[9] is not None)
            for r in session.connection().execute(query)]


MISTAKE_COLUMNS = ["mistake_id", "run_id", "image_id", "predicted", "probability", "novel", "hierarchy_distance",
                   "file_name", "original_label", "has_file"]


def mistakes_frame(mistakes: list[StoredMistake]) -> pd.DataFrame:
    """The same mistakes as a table (`MISTAKE_COLUMNS`)."""
    import pandas as pd

    frame = pd.DataFrame([tuple(m.__dict__.values()) for m in mistakes], columns=MISTAKE_COLUMNS)
    return frame.astype({"image_id": "int64", "predicted": "int64", "run_id": "int64", "novel": bool})


def find_mistakes(labels: LabelSet, predictions: RunPredictions) -> np.ndarray:
    """Indices into `predictions` of its mistakes."""
    positions = labels.positions(predictions.image_ids)
    known = positions >= 0
    idx = np.flatnonzero(known)
    pos = positions[known]
    wrong = evaluable(labels, pos) & ~accepted(labels, pos, predictions.top1[known])
    return idx[wrong]


def novel_mask(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """bool: the prediction is not a wrong label of its image."""
    wrong_keys = labels.rows[labels.kinds == WRONG].astype(np.int64) * 1000 + labels.classes[labels.kinds == WRONG]
    return ~np.isin(np.asarray(positions, np.int64) * 1000 + predicted, wrong_keys)


def distances_to_labels(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray) -> list[int | None]:
    """WordNet hierarchy distance from each prediction to the nearest correct label
    of its image (the original label where the image has no correct label)."""
    correct = labels.kinds == CORRECT
    order = np.argsort(labels.rows[correct], kind="stable")
    rows, classes = labels.rows[correct][order], labels.classes[correct][order]
    starts = np.searchsorted(rows, positions, side="left")
    ends = np.searchsorted(rows, positions, side="right")
    out: list[int | None] = []
    classes, original = classes.tolist(), labels.original
    # The levels alone (cached per pair): the same number as hierarchy_distance(...).distance,
    # without the paths, which cost 0.7 s of a 20,000-image run's end (8,000 mistakes).
    for pos, pred, lo, hi in zip(positions.tolist(), predicted.tolist(), starts.tolist(), ends.tolist()):
        targets = classes[lo:hi] or ([int(original[pos])] if original[pos] >= 0 else [])
        out.append(min(hierarchy_levels(pred, t) for t in targets) if targets else None)
    return out


def store_mistakes(*, session: Session, run_id: int) -> int:
    """Compute the run's mistakes and store them (replacing earlier ones); returns their count."""
    labels = reviewed_labelset(session=session, after_review=False)
    predictions = load_predictions(session=session, run_id=run_id)
    idx = find_mistakes(labels, predictions)
    positions = labels.positions(predictions.image_ids[idx])
    predicted = predictions.top1[idx].astype(np.int64)
    novel = novel_mask(labels, positions, predicted)
    distances = distances_to_labels(labels, positions, predicted)
    rows = [
        {"run_id": run_id, "image_id": int(predictions.image_ids[i]), "predicted": int(p),
         "probability": float(predictions.probs[i, 0]), "novel": bool(n), "hierarchy_distance": d}
        for i, p, n, d in zip(idx, predicted, novel, distances)
    ]
    session.execute(delete(Mistake).where(Mistake.run_id == run_id))
    if rows:
        session.connection().execute(insert(Mistake.__table__), rows)
    return len(rows)
