"""Calibration of a run, as QUBA defines it, and the multi-label variant.

QUBA ("Beyond Accuracy: What Matters in Designing Well-Behaved Image
Classification Models?", §2 and Appendix B, Eqs. 7-9; reference code
visinf/beyond-accuracy, helper/benchmarks.py and helper/uncertainty.py):

- **ECE** (Eq. 7; torchmetrics `MulticlassCalibrationError`, norm l1, 15
  bins): the top-1 confidence (the highest softmax probability) against
  top-1 correctness on the original label, in 15 equal-width bins of [0, 1];
  ECE = Σ_b (n_b / N) |acc_b − conf_b|. As torchmetrics bins them
  (`bucketize(..., right=True)`), bin b holds [b/15, (b+1)/15) and a
  confidence of exactly 1.0 a bin of its own. Sums are in float64
  (torchmetrics accumulates in float32, which on 50,000 images can move the
  result in the 4th decimal).
- **ACE** (Eq. 8; Nixon et al. 2019, the reference code's
  `_GeneralCalibrationErrorMetric(binning_scheme="adaptive",
  class_conditional=True, max_prob=False, threshold=0, norm="l1",
  num_bins=15)`): for every class c, the probabilities p_c > 0 of all images
  against the indicator "the original label is c", in 15 equal-mass bins
  (edges at the sorted values' quantile positions, as `_get_adaptive_bins`);
  the class's error is the count-weighted mean gap; ACE sums the class errors
  divided by the number of classes.
- **CE** (Eq. 9): the geometric mean of ECE and ACE (lower is better).

ECE uses the top-1 probability stored with each prediction (full float32
precision); ACE reads the run's probability file, which is float16: a
probability below float16's smallest value is 0 there and, as in the
reference's threshold, left out. `adaptive_calibration_error` is the
definition written as the reference's loop, class by class;
`run_calibration` computes the same number, bit for bit, from histograms of
the float16 file (`reviewer.analysis.float16_ace`), all classes at once. Images: every predicted image with an
original label, as QUBA evaluates the whole validation split.

The **multi-label variant** (`multilabel_calibration`, not QUBA's): the same
ECE where a top-1 counts as correct when the multi-label evaluation accepts
it (among the image's correct or unclear labels after the review), over the
images MLA counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from reviewer.analysis.float16_ace import histogram_ace
from reviewer.evaluation.metrics import mla_images
from reviewer.labels.labelset import LabelSet, accepted
from reviewer.runs.predictions import RunPredictions

ECE_BINS = 15
CLASS_BLOCK = 50  # classes read from the probability file at a time (bounded memory)
ROW_BLOCK = 8192


@dataclass(frozen=True)
class Calibration:
    ece: float  # NaN when no image was evaluated
    images: int
    # One row per bin: lower, upper, count, confidence (mean), accuracy (mean); NaN where empty.
    bins: pd.DataFrame
    ace: float = float("nan")  # QUBA's adaptive calibration error (NaN: not computed)
    ce: float = float("nan")  # geometric mean of ECE and ACE

    def as_dict(self) -> dict:
        return {"ece": self.ece, "ace": self.ace, "ce": self.ce, "images": self.images,
                "bins": self.bins.to_dict(orient="records")}


def calibration(confidence: np.ndarray, correct: np.ndarray, *, bins: int = ECE_BINS) -> Calibration:
    """ECE and per-bin accuracy/confidence, binned as torchmetrics' MulticlassCalibrationError."""
    confidence = np.clip(np.asarray(confidence, dtype=np.float64), 0.0, 1.0)
    correct = np.asarray(correct, dtype=np.float64)
    edges = np.linspace(0.0, 1.0, bins + 1)
    # bucketize(right=True) - 1: [edge_b, edge_b+1), and 1.0 alone in bin `bins`.
    index = np.searchsorted(edges, confidence, side="right") - 1
    count = np.bincount(index, minlength=bins + 1).astype(np.float64)
    conf_sum = np.bincount(index, weights=confidence, minlength=bins + 1)
    acc_sum = np.bincount(index, weights=correct, minlength=bins + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf, accuracy = conf_sum / count, acc_sum / count
    used = count > 0
    ece = float(np.sum(count[used] / len(confidence) * np.abs(accuracy[used] - mean_conf[used]))) \
        if len(confidence) else float("nan")
    lower = np.append(edges[:-1], 1.0)
    upper = np.append(edges[1:], 1.0)
    table = pd.DataFrame({"lower": lower, "upper": upper, "count": count.astype(np.int64),
                          "confidence": mean_conf, "accuracy": accuracy})
    if not count[bins]:  # the bin of confidence 1.0 is shown only when it holds images
        table = table.iloc[:bins]
    return Calibration(ece, int(len(confidence)), table.reset_index(drop=True))


def adaptive_calibration_error(column_blocks, targets: np.ndarray, *, bins: int = ECE_BINS,
                               num_classes: int = 1000) -> float:
    """ACE as the reference code computes it. `column_blocks` yields (first class,
    probabilities [images, classes in the block]); `targets` holds each image's label."""
    targets = np.asarray(targets, dtype=np.int64)
    total = 0.0
    for first, block in column_blocks:
        for j in range(block.shape[1]):
            probs = np.asarray(block[:, j], dtype=np.float64)
            keep = probs > 0
            total += _class_error(probs[keep], (targets[keep] == first + j).astype(np.float64), bins) / num_classes
    return total


def _class_error(probs: np.ndarray, labels: np.ndarray, bins: int) -> float:
    """One class's error: equal-mass bins (the reference's `_get_adaptive_bins`), the
    count-weighted |accuracy - confidence| summed (`_get_calibration_error`)."""
    if not len(probs):
        return 0.0
    positions = np.minimum(np.round(np.linspace(0, len(probs), bins, endpoint=False)).astype(int), len(probs) - 1)
    upper = np.concatenate((np.sort(probs)[positions][1:], [1.0]))
    index = np.digitize(probs, upper)
    sums = np.bincount(index, weights=probs, minlength=bins)
    counts = np.bincount(index, minlength=bins) + np.finfo(np.float64).eps
    accuracy = np.bincount(index, weights=labels, minlength=bins) / counts
    return float(np.sum(np.abs((accuracy - sums / counts) * counts / len(probs))))


def probability_columns(probs: np.ndarray, rows: np.ndarray, *, block: int = CLASS_BLOCK):
    """(first class, float32 [len(rows), block]) blocks of a probability file's columns,
    read row-block by row-block (a 50,000-image file is never loaded whole)."""
    rows = np.asarray(rows, dtype=np.int64)
    for first in range(0, probs.shape[1], block):
        stop = min(first + block, probs.shape[1])
        out = np.empty((len(rows), stop - first), dtype=np.float32)
        for start in range(0, len(rows), ROW_BLOCK):
            out[start:start + ROW_BLOCK] = probs[rows[start:start + ROW_BLOCK], first:stop]
        yield first, out


def run_calibration(labels: LabelSet, predictions: RunPredictions, probs: np.ndarray | None = None, *,
                    bins: int = ECE_BINS) -> Calibration:
    """QUBA's ECE, ACE and CE of a run against the original labels. `probs` is the run's
    probability file (memory-mapped, or read into memory); without it ACE and CE are NaN."""
    positions = labels.positions(predictions.image_ids)
    known = positions >= 0
    original = np.full(len(predictions), -1, dtype=np.int64)
    original[known] = labels.original[positions[known]]
    use = original >= 0
    result = calibration(predictions.probs[use, 0], predictions.top1[use] == original[use], bins=bins)
    if probs is None or not use.any():
        return result
    rows = predictions.rows[use]
    if probs.dtype == np.float16:  # the file's rows in order, in memory already: no copy
        whole = isinstance(probs, np.ndarray) and not isinstance(probs, np.memmap) and len(rows) == len(probs) \
            and np.array_equal(rows, np.arange(len(probs)))
        ace = histogram_ace(probs if whole else np.asarray(probs[rows]), original[use], bins=bins)
    else:
        ace = None
    if ace is None:  # not a float16 probability file: the loop, class by class
        ace = adaptive_calibration_error(probability_columns(probs, rows), original[use], bins=bins,
                                         num_classes=probs.shape[1])
    ce = float(np.sqrt(result.ece * ace))  # the geometric mean of the two (scipy's gmean of [ece, ace])
    return Calibration(result.ece, result.images, result.bins, ace=ace, ce=ce)


def multilabel_calibration(labels: LabelSet, predictions: RunPredictions, *, bins: int = ECE_BINS) -> Calibration:
    """ECE where correct means accepted by the multi-label evaluation (pass the labels after
    the review), over the images MLA counts."""
    positions = labels.positions(predictions.image_ids)
    known = positions >= 0
    positions, top1, conf = positions[known], predictions.top1[known], predictions.probs[known, 0]
    use = mla_images(labels, positions)
    correct = accepted(labels, positions[use], top1[use])
    return calibration(conf[use], correct, bins=bins)
