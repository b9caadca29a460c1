"""Calibration of a run: expected calibration error and the reliability diagram.

The confidence of a prediction is its stored top-1 probability; it is correct
when the multi-label evaluation accepts it (in the image's correct or unclear
labels after the review, with the collapsed mappings). Only the images MLA
counts are used (not problematic, with multi-labels). Bins are equal-width on
[0, 1]; the ECE is the bin-size-weighted mean gap |accuracy - confidence|
(Guo et al., 2017), 15 bins by default.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import binned_statistic

from reviewer.labelset import LabelSet
from reviewer.metrics import accepted, evaluable
from reviewer.predictions import RunPredictions

ECE_BINS = 15


@dataclass(frozen=True)
class Calibration:
    ece: float  # NaN when no image was evaluated
    images: int
    # One row per bin: lower, upper, count, confidence (mean), accuracy (mean); NaN where empty.
    bins: pd.DataFrame

    def as_dict(self) -> dict:
        return {"ece": self.ece, "images": self.images, "bins": self.bins.to_dict(orient="records")}


def calibration(confidence: np.ndarray, correct: np.ndarray, *, bins: int = ECE_BINS) -> Calibration:
    """ECE and per-bin accuracy/confidence of predictions with the given confidences."""
    confidence = np.clip(np.asarray(confidence, dtype=np.float64), 0.0, 1.0)
    correct = np.asarray(correct, dtype=np.float64)
    edges = np.linspace(0.0, 1.0, bins + 1)
    if not len(confidence):
        empty = np.full(bins, np.nan)
        table = pd.DataFrame({"lower": edges[:-1], "upper": edges[1:], "count": np.zeros(bins, np.int64),
                              "confidence": empty, "accuracy": empty})
        return Calibration(float("nan"), 0, table)
    # binned_statistic closes the last bin on the right, so a confidence of 1.0 is counted.
    count = binned_statistic(confidence, confidence, statistic="count", bins=edges).statistic
    mean_conf = binned_statistic(confidence, confidence, statistic="mean", bins=edges).statistic
    accuracy = binned_statistic(confidence, correct, statistic="mean", bins=edges).statistic
    used = count > 0
    ece = float(np.sum(count[used] / len(confidence) * np.abs(accuracy[used] - mean_conf[used])))
    table = pd.DataFrame({"lower": edges[:-1], "upper": edges[1:], "count": count.astype(np.int64),
                          "confidence": mean_conf, "accuracy": accuracy})
    return Calibration(ece, int(len(confidence)), table)


def run_calibration(labels: LabelSet, predictions: RunPredictions, *, bins: int = ECE_BINS) -> Calibration:
    """Calibration of a run against the labels (pass the labels after the review)."""
    positions = labels.positions(predictions.image_ids)
    known = positions >= 0
    positions, top1, conf = positions[known], predictions.top1[known], predictions.probs[known, 0]
    use = evaluable(labels, positions)
    correct = accepted(labels, positions[use], top1[use])
    return calibration(conf[use], correct, bins=bins)
