"""Variable top-k and ASMA, as Anzaku et al. evaluate ImageNet's multi-label images.

Anzaku et al., "Re-assessing ImageNet: How aligned is its single-label
assumption with its multi-label nature?" and "The Impact of the Single-Label
Assumption in Image Recognition Benchmarking" (§3.1, §3.3, §4.1):

- the valid labels of a validation image are its ReaL labels (Beyer et al.
  2020); images whose ReaL set is empty are left out (46,837 of the 50,000
  have at least one label);
- k_i is the number of valid labels of image i, and its prediction is the
  set of the k_i classes with the highest softmax (ties: the lower class index
  first; the run's probabilities are stored as float16);
- the per-image score is the share of the valid labels found in that top-k,
  m_i / k_i. The papers print a Hamming-style formula over all 1000 classes,
  (1/C) Σ_c 1[y_c = ŷ_c], but with |top-k| = k that is 1 - 2(k - m)/1000 >=
  0.99 for k <= 5, which cannot give their tables (ASMA of 45-74 %); m/k
  (equal here to precision@k and recall@k) is what their tables measure;
- images are grouped by label count; ASMA (average subgroup multi-label
  accuracy) is the unweighted mean of the subgroups' mean scores, so the rare
  multi-label images weigh as much as the single-label majority;
- the comparison uses images with 1 to 5 labels, as their protocol ("for
  datapoints with 1-5 labels"); images with more labels are reported apart
  (`over_max`) and are not in ASMA or the means.

`all_in_topk` is the share of images whose valid labels are all in their
top-k. The same figures over the multi-label set (valid labels: the image's
correct labels; problematic images skipped) are a second, separately named
variant (`multilabel_variable_topk`), not Anzaku et al.'s.

`ranked` holds each prediction's classes best first; an image with more
valid labels than `ranked` has columns is scored on the columns there are
and counted in `truncated`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reviewer.evaluation.metrics import NO_MULTILABEL_SET
from reviewer.labels.labelset import CORRECT, LabelSet

MAX_LABELS = 5  # Anzaku et al.'s comparison protocol: images with 1-5 labels
REAL, MULTILABEL = "real", "multilabel"
NO_REAL = ("the project has no ReaL labels: import them with 'reviewer import-labels PROJECT FILE' (timm ships "
           "the file: data/_info/imagenet_real_labels.json)")


@dataclass(frozen=True)
class VariableTopK:
    label_set: str  # "real" (Anzaku et al.) or "multilabel" (the multi-label set's correct labels)
    asma: float
    mean_hit_rate: float  # mean over the 1..max_labels images of m/k
    all_in_topk: float
    images: int  # images with 1..max_labels valid labels
    by_label_count: dict[int, dict] = field(default_factory=dict)  # k -> {images, mean_hit_rate, all_in_topk}
    over_max: dict = field(default_factory=dict)  # images with more labels, reported apart
    max_labels: int = MAX_LABELS
    truncated: int = 0
    reason: str | None = None  # why there is no figure

    def as_dict(self) -> dict:
        return {"label_set": self.label_set, "max_labels": self.max_labels, "asma": self.asma,
                "mean_hit_rate": self.mean_hit_rate, "all_in_topk": self.all_in_topk, "images": self.images,
                "by_label_count": {str(k): v for k, v in self.by_label_count.items()},
                "over_max": self.over_max, "truncated": self.truncated, "reason": self.reason}


def real_variable_topk(labels: LabelSet, positions: np.ndarray, ranked: np.ndarray, *,
                       max_labels: int = MAX_LABELS) -> VariableTopK:
    """Anzaku et al.'s variable top-k and ASMA on the ReaL labels."""
    if not len(labels.real_rows):
        return _nothing(REAL, NO_REAL, max_labels)
    return variable_topk(labels.real_rows, labels.real_classes, len(labels), positions, ranked,
                         usable=np.ones(len(labels), bool), label_set=REAL, max_labels=max_labels)


def multilabel_variable_topk(labels: LabelSet, positions: np.ndarray, ranked: np.ndarray, *,
                             max_labels: int = MAX_LABELS) -> VariableTopK:
    """The same figures over the multi-label set: valid labels are the correct ones."""
    if labels.original_only:
        return _nothing(MULTILABEL, NO_MULTILABEL_SET, max_labels)
    correct = labels.kinds == CORRECT
    return variable_topk(labels.rows[correct], labels.classes[correct], len(labels), positions, ranked,
                         usable=labels.multilabel & ~labels.problematic, label_set=MULTILABEL,
                         max_labels=max_labels)


def variable_topk(label_rows: np.ndarray, label_classes: np.ndarray, n_images: int, positions: np.ndarray,
                  ranked: np.ndarray, *, usable: np.ndarray, label_set: str,
                  max_labels: int = MAX_LABELS) -> VariableTopK:
    """Variable top-k over valid labels given in coordinate form (`label_rows[j]` is the
    image position of valid class `label_classes[j]`, each pair once)."""
    positions = np.asarray(positions, dtype=np.int64)
    ranked = np.asarray(ranked, dtype=np.int64)
    m_images, width = ranked.shape
    k_all = np.bincount(label_rows, minlength=n_images)
    k = k_all[positions]
    use = (k > 0) & usable[positions]
    pred_index = np.full(n_images, -1, dtype=np.int64)
    pred_index[positions] = np.arange(m_images)
    sel = pred_index[label_rows] >= 0
    lab_pred = pred_index[label_rows[sel]]
    lab_cls = np.asarray(label_classes, dtype=np.int64)[sel]
    lab_k = k_all[label_rows[sel]]
    # A valid label is found when its class is among the first k ranked classes of its image.
    match = ranked[lab_pred] == lab_cls[:, None]  # [L, width]
    within = np.arange(width)[None, :] < lab_k[:, None]
    found = (match & within).any(axis=1)
    hits = np.bincount(lab_pred, weights=found, minlength=m_images)
    rate = hits / np.maximum(k, 1)
    full = hits == k
    groups = {}
    for count in range(1, max_labels + 1):
        g = use & (k == count)
        if g.any():
            groups[count] = _group(rate[g], full[g])
    protocol = use & (k <= max_labels)
    over = use & (k > max_labels)
    nan = float("nan")
    if not protocol.any():
        return _nothing(label_set, "no predicted image has valid labels", max_labels)
    return VariableTopK(
        label_set=label_set, asma=float(np.mean([g["mean_hit_rate"] for g in groups.values()])),
        mean_hit_rate=float(rate[protocol].mean()), all_in_topk=float(full[protocol].mean()),
        images=int(protocol.sum()), by_label_count=groups,
        over_max=_group(rate[over], full[over]) if over.any() else {"images": 0, "mean_hit_rate": nan,
                                                                     "all_in_topk": nan},
        max_labels=max_labels, truncated=int((use & (k > width)).sum()))


def _group(rate: np.ndarray, full: np.ndarray) -> dict:
    return {"images": int(len(rate)), "mean_hit_rate": float(rate.mean()), "all_in_topk": float(full.mean())}


def _nothing(label_set: str, reason: str, max_labels: int) -> VariableTopK:
    nan = float("nan")
    return VariableTopK(label_set=label_set, asma=nan, mean_hit_rate=nan, all_in_topk=nan, images=0,
                        over_max={"images": 0, "mean_hit_rate": nan, "all_in_topk": nan}, max_labels=max_labels,
                        reason=reason)
