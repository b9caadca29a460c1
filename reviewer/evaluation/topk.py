"""Variable top-k and ASMA, as Anzaku et al. evaluate ImageNet's multi-label images.

Anzaku et al., "Re-assessing ImageNet: How aligned is its single-label
assumption with its multi-label nature?" and "The Impact of the Single-Label
Assumption in Image Recognition Benchmarking" (§3.1, §3.3, §4.1):

- the valid labels Y_i of a validation image are its ReaL labels (Beyer et al.
  2020); images whose ReaL set is empty are left out (46,837 of the 50,000
  have at least one label);
- k_i = |Y_i|, and the prediction Ŷ_i is the set of the k_i classes with the
  highest softmax (ties: the lower class index first); ranks 1-5 are the run's
  stored float32 top-5, so k = 1 is the run's own top-1, and only ranks 6+ come
  from its float16 probability file (`reviewer.runs.predictions.ranked_classes`);
  m_i = |Y_i ∩ Ŷ_i| is the number of valid labels found.

The per-image score. What the papers print is a Hamming-style "label-wise
accuracy" over all C = 1000 classes, (1/C) Σ_c 1[y_c = ŷ_c]. What they cite is
another metric: ASMA is introduced as "extending the example-based accuracy
metric from multi-label learning" (Zhang & Zhou 2014, "A review on multi-label
learning algorithms"), whose example-based Accuracy is |Y ∩ Ŷ| / |Y ∪ Ŷ|, the
Jaccard index. The printed formula cannot be what their tables hold: with
|Ŷ| = |Y| = k it equals 1 - 2(k - m)/1000, at least 0.99 for k <= 5 whatever
the model predicts, while their tables report ASMA of 45-74 %. So the
headline here follows the citation: each image scores m / (2k - m)
(`mean_jaccard`, `asma`). The share of the valid labels found, m / k (equal
here to precision@k and recall@k), is another reading that gives figures of
their size; it is reported beside it as an alternative (`mean_hit_rate`,
`asma_share_found`), not as theirs. The two agree on single-label images and
differ from k = 2 on (1 of 2 found: 1/3 against 1/2). Neither could be checked
against their tables here: this project has no ImageNet validation images to
run their models on, and they published no code.

- images are grouped by label count; ASMA (average subgroup multi-label
  accuracy) is the unweighted mean of the subgroups' mean scores, so the rare
  multi-label images weigh as much as the single-label majority; there is no
  subgroup 0 (an image without valid labels has no top-k to score);
- the comparison uses images with 1 to 5 labels, as their protocol ("for
  datapoints with 1-5 labels"); images with more labels are reported apart
  (`over_max`) and are not in ASMA or the means. Their ReaL accuracy beside
  ASMA is "calculated for samples with one to five labels" too, whereas the
  project's ReaL accuracy (`reviewer.evaluation.metrics.real_accuracy`) counts
  every image with a ReaL label; `real_accuracy_1_to_5` is the like-for-like
  figure: the share of the images with 1-5 valid labels whose top-1 (the
  first ranked class) is among them.

`all_in_topk` is the share of images whose valid labels are all in their
top-k (m = k). The same figures over the multi-label set (valid labels: the
image's correct labels; the images MLA counts, `metrics.mla_images`:
validation images of the set, not problematic) are a second, separately named
variant (`multilabel_variable_topk`), not Anzaku et al.'s.

`ranked` holds each prediction's classes best first; an image with more
valid labels than `ranked` has columns is scored on the columns there are
(|Ŷ| = the number of columns, so |Y ∪ Ŷ| = k + columns - m) and counted in
`truncated`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reviewer.evaluation.metrics import NO_MULTILABEL_SET, mla_images
from reviewer.labels.labelset import CORRECT, LabelSet

MAX_LABELS = 5  # Anzaku et al.'s comparison protocol: images with 1-5 labels
REAL, MULTILABEL = "real", "multilabel"
NO_REAL = ("the project has no ReaL labels: import them with 'reviewer import-labels PROJECT FILE' (timm ships "
           "the file: data/_info/imagenet_real_labels.json)")


@dataclass(frozen=True)
class VariableTopK:
    """Means and ASMAs over the images with 1..max_labels valid labels (module docstring)."""

    label_set: str  # "real" (Anzaku et al.) or "multilabel" (the multi-label set's correct labels)
    asma: float  # the cited example-based accuracy: unweighted mean of the subgroups' mean of m/(2k-m)
    asma_share_found: float  # the alternative reading: unweighted mean of the subgroups' mean of m/k
    mean_jaccard: float  # mean over the images of m/(2k-m) = |Y∩Ŷ|/|Y∪Ŷ|
    mean_hit_rate: float  # mean over the images of m/k, the share of valid labels found
    all_in_topk: float
    real_accuracy_1_to_5: float  # share of the images whose top-1 is among their valid labels
    images: int  # images with 1..max_labels valid labels
    # k -> {images, mean_jaccard, mean_hit_rate, all_in_topk}
    by_label_count: dict[int, dict] = field(default_factory=dict)
    over_max: dict = field(default_factory=dict)  # images with more labels, reported apart
    max_labels: int = MAX_LABELS
    truncated: int = 0
    reason: str | None = None  # why there is no figure

    def as_dict(self) -> dict:
        return {"label_set": self.label_set, "max_labels": self.max_labels, "asma": self.asma,
                "asma_share_found": self.asma_share_found, "mean_jaccard": self.mean_jaccard,
                "mean_hit_rate": self.mean_hit_rate, "all_in_topk": self.all_in_topk,
                "real_accuracy_1_to_5": self.real_accuracy_1_to_5, "images": self.images,
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
    """The same figures over the multi-label set's images that MLA counts; valid labels
    are the correct ones."""
    if labels.original_only:
        return _nothing(MULTILABEL, NO_MULTILABEL_SET, max_labels)
    correct = labels.kinds == CORRECT
    return variable_topk(labels.rows[correct], labels.classes[correct], len(labels), positions, ranked,
                         usable=mla_images(labels, np.arange(len(labels))), label_set=MULTILABEL,
                         max_labels=max_labels)


def variable_topk(label_rows: np.ndarray, label_classes: np.ndarray, n_images: int, positions: np.ndarray,
                  ranked: np.ndarray, *, usable: np.ndarray, label_set: str,
                  max_labels: int = MAX_LABELS) -> VariableTopK:
    """Variable top-k over valid labels given in coordinate form (`label_rows[j]` is the
    image position of valid class `label_classes[j]`, each pair once); `usable` (bool [N])
    the images that may count."""
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
    hits = np.bincount(lab_pred, weights=found, minlength=m_images)  # m
    rate = hits / np.maximum(k, 1)  # m / k
    union = k + np.minimum(k, width) - hits  # |Y ∪ Ŷ|, |Ŷ| = k unless truncated
    jaccard = hits / np.maximum(union, 1)
    full = hits == k
    top1_ok = np.bincount(lab_pred, weights=match[:, 0], minlength=m_images) > 0
    groups = {}
    for count in range(1, max_labels + 1):
        g = use & (k == count)
        if g.any():
            groups[count] = _group(jaccard[g], rate[g], full[g])
    protocol = use & (k <= max_labels)
    over = use & (k > max_labels)
    if not protocol.any():
        return _nothing(label_set, "no predicted image has valid labels", max_labels)
    return VariableTopK(
        label_set=label_set,
        asma=float(np.mean([g["mean_jaccard"] for g in groups.values()])),
        asma_share_found=float(np.mean([g["mean_hit_rate"] for g in groups.values()])),
        mean_jaccard=float(jaccard[protocol].mean()), mean_hit_rate=float(rate[protocol].mean()),
        all_in_topk=float(full[protocol].mean()), real_accuracy_1_to_5=float(top1_ok[protocol].mean()),
        images=int(protocol.sum()), by_label_count=groups,
        over_max=_group(jaccard[over], rate[over], full[over]) if over.any() else _empty_group(),
        max_labels=max_labels, truncated=int((use & (k > width)).sum()))


def _group(jaccard: np.ndarray, rate: np.ndarray, full: np.ndarray) -> dict:
    return {"images": int(len(rate)), "mean_jaccard": float(jaccard.mean()), "mean_hit_rate": float(rate.mean()),
            "all_in_topk": float(full.mean())}


def _empty_group() -> dict:
    nan = float("nan")
    return {"images": 0, "mean_jaccard": nan, "mean_hit_rate": nan, "all_in_topk": nan}


def _nothing(label_set: str, reason: str, max_labels: int) -> VariableTopK:
    nan = float("nan")
    return VariableTopK(label_set=label_set, asma=nan, asma_share_found=nan, mean_jaccard=nan, mean_hit_rate=nan,
                        all_in_topk=nan, real_accuracy_1_to_5=nan, images=0, over_max=_empty_group(),
                        max_labels=max_labels, reason=reason)
