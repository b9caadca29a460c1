"""Accuracy metrics of a run over a labelled set, vectorised with numpy.

All functions take the project's `LabelSet`, the positions in it of the
predicted images and the predicted classes (no Python loop over images).

- top-1 accuracy: prediction equals the original label;
- multi-label accuracy (MLA), as the published evaluation computes it: the
  top-1 is correct if it is in the image's correct or unclear labels (after
  the paper's collapsed class mappings); problematic images are skipped; the
  score is the mean of per-class accuracies over the original-label classes;
- ReaL accuracy: top-1 in the image's ReaL labels, images with none skipped.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from reviewer.collapsed import acceptance_matrix
from reviewer.labelset import WRONG, LabelSet
from reviewer.wordnet import organism_mask


@dataclass(frozen=True)
class Score:
    value: float  # in [0, 1]; nan when nothing was evaluated
    correct: int
    total: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class GroupScores:
    """A metric over all classes, organism classes and object classes."""

    all: Score
    organisms: Score
    objects: Score

    def as_dict(self) -> dict:
        return {"all": self.all.as_dict(), "organisms": self.organisms.as_dict(), "objects": self.objects.as_dict()}


def accepted(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """bool [M]: each prediction is among its image's correct or unclear labels,
    with the collapsed class mappings (a label also accepts the classes it subsumes)."""
    positions = np.asarray(positions, dtype=np.int64)
    predicted = np.asarray(predicted, dtype=np.int64)
    pred_at = np.full(len(labels), -1, dtype=np.int64)
    pred_at[positions] = predicted
    valid = labels.kinds != WRONG
    rows, classes = labels.rows[valid], labels.classes[valid].astype(np.int64)
    has_pred = pred_at[rows] >= 0
    rows, classes = rows[has_pred], classes[has_pred]
    hit = acceptance_matrix()[classes, pred_at[rows]]
    ok = np.zeros(len(labels), bool)
    ok[rows[hit]] = True
    return ok[positions]


def evaluable(labels: LabelSet, positions: np.ndarray) -> np.ndarray:
    """bool [M]: images MLA counts: not problematic, with a known original label
    and at least one correct or unclear label."""
    ok = ~labels.problematic & (labels.original >= 0) & labels.has_multilabels()
    return ok[np.asarray(positions, dtype=np.int64)]


def top1_accuracy(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray) -> Score:
    original = labels.original[positions]
    known = original >= 0
    correct = int(np.count_nonzero(original[known] == np.asarray(predicted)[known]))
    return _score(correct, int(known.sum()))


def multilabel_accuracy(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray) -> GroupScores:
    """MLA over all / organism / object classes (classes of the original label)."""
    positions = np.asarray(positions, dtype=np.int64)
    use = evaluable(labels, positions)
    ok = accepted(labels, positions, predicted)[use]
    original = labels.original[positions[use]].astype(np.int64)
    organisms = organism_mask()[original]
    return GroupScores(
        all=_per_class_mean(original, ok),
        organisms=_per_class_mean(original[organisms], ok[organisms]),
        objects=_per_class_mean(original[~organisms], ok[~organisms]),
    )


def _per_class_mean(classes: np.ndarray, ok: np.ndarray) -> Score:
    counts = np.bincount(classes, minlength=1000)
    hits = np.bincount(classes, weights=ok, minlength=1000)
    present = counts > 0
    value = float(np.mean(hits[present] / counts[present])) if present.any() else float("nan")
    return Score(value, int(ok.sum()), int(len(ok)))


def real_accuracy(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray) -> Score:
    """ReaL accuracy: top-1 in the ReaL set, over images whose ReaL set is not empty."""
    positions = np.asarray(positions, dtype=np.int64)
    pred_at = np.full(len(labels), -1, dtype=np.int64)
    pred_at[positions] = predicted
    hit_rows = labels.real_rows[labels.real_classes == pred_at[labels.real_rows]]
    ok = np.zeros(len(labels), bool)
    ok[hit_rows] = True
    has = labels.has_real()[positions]
    return _score(int(ok[positions][has].sum()), int(has.sum()))


def _score(correct: int, total: int) -> Score:
    return Score(correct / total if total else float("nan"), correct, total)
