"""The mistakes of a run: images whose top-1 prediction is not among their
correct or unclear labels (after the collapsed mappings).

A mistake is *novel* when its prediction was never reviewed before: it is
not a wrong label of the image and no imported review has judged it. The
panel's own decisions do not change novelty (they change the status).
Problematic images are not counted, as in MLA.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import delete, insert

from db.engine import write_session
from db.tables import Mistake
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.labels.labelset import CORRECT, WRONG, LabelSet
from reviewer.evaluation.metrics import accepted, evaluable
from reviewer.runs.predictions import RunPredictions, load_predictions
from reviewer.project import Project
from reviewer.classes.wordnet import hierarchy_distance


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
    for pos, pred, lo, hi in zip(positions.tolist(), predicted.tolist(), starts.tolist(), ends.tolist()):
        targets = classes[lo:hi].tolist() or ([int(labels.original[pos])] if labels.original[pos] >= 0 else [])
        out.append(min(hierarchy_distance(pred, t).distance for t in targets) if targets else None)
    return out


def store_mistakes(project: Project, run_id: int) -> int:
    """Compute the run's mistakes and store them (replacing earlier ones); returns their count."""
    labels = reviewed_labelset(project, after_review=False)
    predictions = load_predictions(project, run_id)
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
    with write_session(project.engine) as session:
        session.execute(delete(Mistake).where(Mistake.run_id == run_id))
        if rows:
            session.connection().execute(insert(Mistake.__table__), rows)
    return len(rows)
