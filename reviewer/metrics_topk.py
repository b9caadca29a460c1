"""Variable top-k: for an image with k correct labels, look at the top-k.

- `all_in_topk`: share of images whose k correct labels are all in the top-k;
- `mean_hit_rate`: mean over images of m/k, m the correct labels found in the top-k;
- `by_label_count`: the mean hit rate of the images with k = 1, 2, 3, ... labels,
  and `asma` (average subgroup multi-label accuracy), the mean of those.

Problematic images and images without correct labels are skipped. `ranked`
holds each prediction's classes in descending probability; where it has fewer
than k columns (only the stored top-5 is at hand), the image is evaluated on
the columns there are, and `truncated` counts those images.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reviewer.labelset import CORRECT, LabelSet


@dataclass(frozen=True)
class VariableTopK:
    all_in_topk: float
    mean_hit_rate: float
    asma: float
    by_label_count: dict[int, dict] = field(default_factory=dict)
    images: int = 0
    truncated: int = 0

    def as_dict(self) -> dict:
        return {"all_in_topk": self.all_in_topk, "mean_hit_rate": self.mean_hit_rate, "asma": self.asma,
                "by_label_count": {str(k): v for k, v in self.by_label_count.items()},
                "images": self.images, "truncated": self.truncated}


def variable_topk(labels: LabelSet, positions: np.ndarray, ranked: np.ndarray) -> VariableTopK:
    positions = np.asarray(positions, dtype=np.int64)
    ranked = np.asarray(ranked, dtype=np.int64)
    m_images, width = ranked.shape
    k_all = labels.label_counts(CORRECT)
    k = k_all[positions]
    use = (k > 0) & ~labels.problematic[positions]
    # rank_of[i, c]: rank of class c in prediction i (width when not ranked), sparse via the labels.
    pred_index = np.full(len(labels), -1, dtype=np.int64)
    pred_index[positions] = np.arange(m_images)
    sel = (labels.kinds == CORRECT) & (pred_index[labels.rows] >= 0)
    lab_pred = pred_index[labels.rows[sel]]
    lab_cls = labels.classes[sel].astype(np.int64)
    lab_k = k_all[labels.rows[sel]]
    # For each label: is its class among the first min(k, width) ranked classes?
    match = ranked[lab_pred] == lab_cls[:, None]  # [L, width]
    within = np.arange(width)[None, :] < lab_k[:, None]
    found = (match & within).any(axis=1)
    hits = np.bincount(lab_pred, weights=found, minlength=m_images)
    k_f = np.maximum(k, 1)
    rate = hits / k_f
    full = hits == k
    rate_u, full_u, k_u = rate[use], full[use], k[use]
    groups = {}
    for count in np.unique(k_u):
        g = k_u == count
        groups[int(count)] = {"images": int(g.sum()), "mean_hit_rate": float(rate_u[g].mean()),
                              "all_in_topk": float(full_u[g].mean())}
    nan = float("nan")
    return VariableTopK(
        all_in_topk=float(full_u.mean()) if len(full_u) else nan,
        mean_hit_rate=float(rate_u.mean()) if len(rate_u) else nan,
        asma=float(np.mean([g["mean_hit_rate"] for g in groups.values()])) if groups else nan,
        by_label_count=groups, images=int(use.sum()), truncated=int((k_u > width).sum()),
    )
