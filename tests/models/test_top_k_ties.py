"""models.top_k on exact ties: equal probabilities are ranked by ascending class index,
the rule of np.argmax in the paper's reference notebook (google-research/imagenet-mistakes)."""

from __future__ import annotations

import numpy as np
import torch

from models import top_k


def planted_ties(rows: int = 120, seed: int = 7) -> np.ndarray:
    """float32 softmax-like rows with exact ties planted at the top, inside the top-5
    and across the 5th/6th rank, at random class positions."""
    rng = np.random.default_rng(seed)
    probs = rng.uniform(0.0, 1e-4, size=(rows, 1000)).astype(np.float32)
    for r in range(rows):
        classes = rng.permutation(1000)
        kind = r % 3
        if kind == 0:  # two classes tie for the top
            probs[r, classes[:2]] = 0.4
        elif kind == 1:  # a clear top-1, then three equal classes at ranks 2-4
            probs[r, classes[0]] = 0.5
            probs[r, classes[1:4]] = 0.1
        else:  # a clear top-3, then four equal classes for ranks 4 and 5 (two of them do not fit)
            probs[r, classes[:3]] = [0.5, 0.2, 0.1]
            probs[r, classes[3:7]] = 0.03
    return probs


def reference_top5(row: np.ndarray) -> list[int]:
    """The definition, written out: by descending probability, equal ones by ascending class index."""
    return sorted(range(len(row)), key=lambda c: (-float(row[c]), c))[:5]


def test_exact_ties_go_to_the_lower_class_index():
    probs = planted_ties()
    classes, values = top_k(probs)
    assert classes.dtype == np.int64 and values.dtype == np.float32 and classes.shape == (len(probs), 5)
    for r, row in enumerate(probs):
        expected = reference_top5(row)
        assert classes[r].tolist() == expected, r
        assert classes[r, 0] == int(np.argmax(row))  # the notebook's top-1
        assert np.array_equal(values[r], row[expected])


def test_the_same_rule_for_tensors_any_k_and_float16_input():
    probs = planted_ties(rows=60, seed=11)
    as16 = probs.astype(np.float16)  # what export-probabilities writes: more ties still
    for source, k in ((torch.from_numpy(probs), 5), (as16, 5), (probs, 1), (probs, 7)):
        classes, _ = top_k(source, k)
        array = np.asarray(source, dtype=np.float32)
        for r, row in enumerate(array):
            assert classes[r].tolist() == sorted(range(1000), key=lambda c: (-float(row[c]), c))[:k], (k, r)


def test_rows_without_ties_keep_their_order():
    rng = np.random.default_rng(3)
    probs = rng.dirichlet(np.full(1000, 0.1), size=32).astype(np.float32)
    classes, values = top_k(probs)
    assert np.array_equal(classes, np.argsort(-probs.astype(np.float64), axis=1, kind="stable")[:, :5])
    assert (np.diff(values, axis=1) <= 0).all()


def test_both_ways_of_ranking_follow_the_rule():
    """top_classes ranks a few classes of finite rows by argmax passes, and other rows (an
    infinite value, many classes) by partition and sort: the same order either way."""
    from models.ranking import top_classes

    probs = planted_ties(rows=90, seed=13)
    as16 = probs.astype(np.float16)
    masked = probs.copy()
    masked[::4, :300] = -np.inf  # as ranked_classes marks the stored top-5 (sorted the other way)
    for values in (probs, as16, masked):
        for k in (1, 5, 8, 12):
            expected = [sorted(range(1000), key=lambda c: (-float(row[c]), c))[:k] for row in values]
            assert top_classes(values, k).tolist() == expected, (values.dtype, k)
