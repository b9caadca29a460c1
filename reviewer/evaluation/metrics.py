"""Accuracy metrics of a run over a labelled set, vectorised with numpy.

All functions take the project's `LabelSet`, the positions in it of the
predicted images and the predicted classes (no Python loop over images).

- **top-1 accuracy**: the prediction equals the image's original ImageNet
  label, over the predicted images whose original label is known (the
  reference notebook's `imagenet_val_accuracy`, google-research/imagenet-mistakes).
- **multi-label accuracy (MLA)**, exactly as the reference evaluation of the
  multi-label set (the TFDS `imagenet2012_multilabel` description and the
  ImageNet-M evaluation notebook of google-research/imagenet-mistakes,
  `imagenet_multilabel_accuracy`): only images of the multi-label set that are
  ImageNet validation images (the notebook keeps `ILSVRC2012_val_` names);
  problematic images skipped; a top-1 prediction is correct when it is among
  the image's correct or unclear labels; the score is the mean over classes
  (of the original label) of the per-class accuracy. No collapsed class
  mappings by default, as the reference (the v3 labels already hold the
  paper's Appendix C merges); `collapsed=True` applies them and the report
  records it. A project without a multi-label set, or one whose set lacks
  original labels, gets no number but a reason (`Score.reason`).
- **ReaL accuracy** (Beyer et al. 2020, google-research/reassessed-imagenet):
  top-1 in the image's ReaL labels, images with an empty ReaL set skipped.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from reviewer.classes.wordnet import organism_mask
from reviewer.labels.labelset import LabelSet, accepted

NO_MULTILABEL_SET = ("the project has no multi-label set: import the TFDS imagenet2012_multilabel labels "
                     "(the v3 JSON or its CSV dump) with 'reviewer import-labels'")


@dataclass(frozen=True)
class Score:
    value: float  # in [0, 1]; nan when nothing was evaluated
    correct: int
    total: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class GroupScores:
    """A metric over all classes, organism classes and object classes; `reason` says
    why there is no value (None when there is one)."""

    all: Score
    organisms: Score
    objects: Score
    reason: str | None = None

    def as_dict(self) -> dict:
        return {"all": self.all.as_dict(), "organisms": self.organisms.as_dict(), "objects": self.objects.as_dict(),
                "reason": self.reason}


def mla_images(labels: LabelSet, positions: np.ndarray) -> np.ndarray:
    """bool [M]: images MLA counts: validation images of the multi-label set, not problematic."""
    ok = labels.multilabel & labels.validation & ~labels.problematic
    return ok[np.asarray(positions, dtype=np.int64)]


def top1_accuracy(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray) -> Score:
    """Top-1 against the original label, over the predicted images that have one."""
    original = labels.original[positions]
    known = original >= 0
    correct = int(np.count_nonzero(original[known] == np.asarray(predicted)[known]))
    return _score(correct, int(known.sum()))


def multilabel_accuracy(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray, *,
                        collapsed: bool = False) -> GroupScores:
    """MLA over all / organism / object classes (classes of the original label), as the
    reference notebook computes it (module docstring)."""
    positions = np.asarray(positions, dtype=np.int64)
    predicted = np.asarray(predicted, dtype=np.int64)
    if labels.original_only:
        return _no_mla(NO_MULTILABEL_SET)
    use = mla_images(labels, positions)
    if not use.any():
        return _no_mla("the run predicted none of the multi-label set's validation images")
    original = labels.original[positions[use]].astype(np.int64)
    unknown = int((original < 0).sum())
    if unknown:
        return _no_mla(f"{unknown} images of the multi-label set have no original label (MLA averages per "
                       "original class): import the validation labels, e.g. the TFDS CSV dump or "
                       "LOC_val_solution.csv")
    ok = accepted(labels, positions[use], predicted[use], collapsed=collapsed)
    organisms = organism_mask()[original]
    return GroupScores(
        all=_per_class_mean(original, ok),
        organisms=_per_class_mean(original[organisms], ok[organisms]),
        objects=_per_class_mean(original[~organisms], ok[~organisms]),
    )


def _no_mla(reason: str) -> GroupScores:
    nothing = Score(float("nan"), 0, 0)
    return GroupScores(nothing, nothing, nothing, reason=reason)


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
