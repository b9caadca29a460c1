"""The one ranking rule of every run's classes, in numpy (no torch: reports and
`import-logits` use it too)."""

from __future__ import annotations

import numpy as np

# Up to this k, k passes of argmax (one sweep of a row each) beat a partition and sorts: 4x for
# the top-5 of 1000 classes, most of a 50,000-row import's ranking time.
_BY_ARGMAX_UP_TO = 8


def top_classes(values: np.ndarray, k: int) -> np.ndarray:
    """The k classes of each row [N, C] with the highest values, best first; ties: the lower
    class index first, as np.argmax in the reference notebook (google-research/imagenet-mistakes).
    (`torch.topk` orders equal values arbitrarily: it gave the higher index for half of 300
    planted ties; float16 probabilities, which export-probabilities writes, tie often.)"""
    values = np.asarray(values)
    if k <= min(_BY_ARGMAX_UP_TO, values.shape[-1]) and values.dtype.kind == "f" and np.isfinite(values).all():
        return _top_by_argmax(values, k)
    top = np.sort(np.argpartition(-values, k - 1, axis=1)[:, :k], axis=1)  # the k best, ascending class
    top = np.take_along_axis(top, np.argsort(-np.take_along_axis(values, top, axis=1), axis=1, kind="stable"),
                             axis=1)
    # A value tied across the cut (more classes equal to the k-th than fit) may have kept a
    # higher class than one left out: those rows are sorted whole.
    kth = np.take_along_axis(values, top[:, -1:], axis=1)
    across = (values >= kth).sum(axis=1) > k
    if across.any():
        top[across] = np.argsort(-values[across], axis=1, kind="stable")[:, :k]
    return top


def _top_by_argmax(values: np.ndarray, k: int) -> np.ndarray:
    """The rule itself, for finite values: k passes of np.argmax, each taking the best class
    left (of equal ones, the first) and then setting it below every value."""
    left = np.array(values)  # a copy, marked as classes are taken
    rows = np.arange(len(left))
    top = np.empty((len(left), k), dtype=np.intp)
    for rank in range(k):
        best = left.argmax(axis=1)
        top[:, rank] = best
        left[rows, best] = -np.inf
    return top


TOP_K = 5


def top_k(probs, k: int = TOP_K) -> tuple[np.ndarray, np.ndarray]:
    """(classes int64 [B, k], probabilities float32 [B, k]), best first; ties: the lower
    class index first, as np.argmax in the reference notebook (google-research/imagenet-mistakes).

    Every run's stored top-5 comes from here (computed runs, import-logits, the zoom probe),
    by the rule of `top_classes`. `probs`: a numpy array, or a torch tensor on any device
    (read through its own methods, so this module never imports torch).
    """
    if hasattr(probs, "detach"):  # a torch tensor
        probs = probs.detach().cpu().float().numpy()
    values = np.asarray(probs, dtype=np.float32)
    shape = values.shape
    values = values.reshape(-1, shape[-1])
    classes = top_classes(values, k)
    out = (*shape[:-1], k)
    return (classes.reshape(out).astype(np.int64),
            np.take_along_axis(values, classes, axis=1).reshape(out).astype(np.float32))
