"""QUBA's adaptive calibration error (ACE) over a float16 probability file, every class at once.

The definition is `reviewer.analysis.calibration.adaptive_calibration_error`'s (Nixon et al.
2019 as QUBA's reference code computes it, visinf/beyond-accuracy `helper/uncertainty.py`,
`_get_adaptive_bins` and `_get_calibration_error`): per class c, the probabilities p_c > 0 of
all images in 15 equal-mass bins whose upper edges are the sorted values at positions
round(linspace(0, n, 15, endpoint=False))[1:] and 1.0, a value's bin the number of edges at
or below it (`np.digitize`), and the class's error the count-weighted |accuracy - mean
confidence| over its bins; ACE sums the errors divided by the number of classes.

That loop sorts and bins the 50,000 probabilities of each of the 1000 classes (6.6 s a run
at 50,000 images, issue 34). A float16 file holds at most 15,360 distinct probabilities in
(0, 1], and a positive float16's bit pattern orders as its value does, so each class's
sorted column is its histogram over the bit patterns: the order statistics (the edges) are
where the cumulative counts pass the positions, and a bin's count and sums are differences
of cumulative sums at the edges. No sort, no per-image search.

The figures are the loop's, bit for bit: every positive float16 at most 1 is a whole
multiple of 2**-24, so any sum of fewer than 2**29 of them is exact in float64 (at most
2**53 units), whatever the order of the additions. The loop's sums in image order, and
these sums in bit-pattern order, are the same number; the rest is the loop's own float64
arithmetic on them, in its order (tests/analysis/test_float16_ace.py checks equality with
`==`). A file with values above 1 (not probabilities) or more than 2**29 images is not
taken here: `histogram_ace` returns None and the caller runs the loop.
"""

from __future__ import annotations

import numpy as np

ONE = 0x3C00  # float16 1.0: the largest bit pattern of a probability
PATTERNS = ONE + 1  # bit patterns 0 ... 1.0 (pattern 0 is 0.0, left out as the reference's threshold does)
NEGATIVE = 0x8000  # patterns from here on are negative (or -0.0): they fail p > 0 too
EXACT_IMAGES = 1 << 29  # below this, float64 sums of float16 probabilities are exact
CLASS_BLOCK = 100  # classes at a time: their columns transposed (10 MB at 50,000 images), their histograms
TILE = 1024  # rows per tile of the transposition (a tile's rows stay in cache)
EPS = np.finfo(np.float64).eps
VALUES = np.arange(PATTERNS, dtype=np.uint16).view(np.float16).astype(np.float64)  # the value of each pattern


def histogram_ace(probs: np.ndarray, targets: np.ndarray, *, bins: int = 15) -> float | None:
    """ACE of `probs` (float16 [images, classes], in memory) against `targets` (each image's
    class), equal to the per-class loop's; None when the data are not float16 probabilities
    (module docstring), for the caller to run the loop."""
    if probs.dtype != np.float16 or probs.ndim != 2 or len(probs) >= EXACT_IMAGES:
        return None
    patterns = probs.view(np.uint16)
    images, classes = patterns.shape
    targets = np.asarray(targets, dtype=np.int64)
    if images and (targets.min() < 0 or targets.max() >= classes):
        return None
    # The probability each image gives its own class, sorted by class then value: the
    # "label = c" side of each bin is a search in the class's own slice.
    own = patterns[np.arange(images), targets]
    order = np.lexsort((own, targets))
    own, starts = own[order], np.searchsorted(targets[order], np.arange(classes + 1))
    errors: list[float] = []
    for first in range(0, classes, CLASS_BLOCK):
        stop = min(first + CLASS_BLOCK, classes)
        counts = _histograms(patterns, first, stop)
        if counts is None:
            return None
        errors += [_class_error(counts[j], own[starts[c]:starts[c + 1]], bins)
                   for j, c in enumerate(range(first, stop))]
    total = 0.0
    for error in errors:  # in class order, as the loop adds them
        total += error / classes
    return total


def _histograms(patterns: np.ndarray, first: int, stop: int) -> np.ndarray | None:
    """[classes first..stop, PATTERNS] counts of each positive pattern in each class's column
    (None if a value is above 1, infinite or NaN). The columns are transposed tile by tile
    first: one class's values then lie together, and its histogram stays in cache."""
    images = len(patterns)
    columns = np.empty((stop - first, images), dtype=np.uint16)
    for row in range(0, images, TILE):
        columns[:, row:row + TILE] = patterns[row:row + TILE, first:stop].T
    counts = np.empty((stop - first, PATTERNS), dtype=np.int64)
    for j, column in enumerate(columns):
        histogram = np.bincount(column, minlength=PATTERNS)
        if histogram[PATTERNS:NEGATIVE].any():
            return None
        counts[j] = histogram[:PATTERNS]
    counts[:, 0] = 0  # p = 0 is left out (p > 0)
    return counts


def _class_error(counts: np.ndarray, own: np.ndarray, bins: int) -> float:
    """One class's error, as `calibration._class_error` computes it from the sorted values,
    here from the class's histogram over bit patterns (`counts`) and the sorted patterns of
    the probabilities its own images give it (`own`)."""
    below = np.cumsum(counts)  # values with a pattern up to each pattern
    n = int(below[-1])
    if not n:
        return 0.0
    positions = np.minimum(np.round(np.linspace(0, n, bins, endpoint=False)).astype(int), n - 1)
    # The sorted column's value at position p: the first pattern with more than p values up to it.
    edges = np.append(np.searchsorted(below, positions[1:], side="right"), ONE)
    # A value's bin is the number of edges at or below it: bin b spans patterns [edge b-1, edge b).
    bounds = np.concatenate(([0], edges, [PATTERNS]))
    used = bins + 1 if counts[ONE] else bins  # a value of exactly 1.0 makes the loop's 16th bin
    count = np.diff(np.concatenate(([0], below))[bounds])[:used] + EPS
    sums = np.diff(np.concatenate(([0.0], np.cumsum(counts * VALUES)))[bounds])[:used]  # exact (module docstring)
    own = own[(own > 0) & (own <= ONE)]
    labelled = np.diff(np.searchsorted(own, bounds))[:used].astype(np.float64)
    accuracy = labelled / count
    return float(np.sum(np.abs((accuracy - sums / count) * count / n)))
