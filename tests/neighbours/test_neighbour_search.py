"""Exact K-nearest search (reviewer.neighbours.search): the same neighbours as comparing
every pair, with faiss and with numpy, across chunk boundaries, skipping unusable rows."""

from __future__ import annotations

import numpy as np
import pytest

from reviewer.neighbours.search import knn


def _unit(rng, rows, dim):
    x = rng.standard_normal((rows, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("use_faiss", [False, pytest.param(True, id="faiss")])
def test_knn_equals_brute_force_across_chunks_and_never_returns_a_skipped_row(use_faiss):
    if use_faiss:
        import faiss  # noqa: F401  (a dependency: a broken install fails here, never skips)
    rng = np.random.default_rng(0)
    base = _unit(rng, 3000, 64).astype(np.float16)
    queries = base[:40].astype(np.float32) + 0.01 * _unit(rng, 40, 64)
    valid = np.ones(len(base), dtype=bool)
    valid[[0, 5, 1999]] = False  # skipped files: query 0's own row among them
    rows, sims = knn(queries, base, 10, valid=valid, base_chunk=700, query_batch=16, use_faiss=use_faiss)
    scores = queries @ base.astype(np.float32).T
    scores[:, ~valid] = -np.inf
    expected = np.argsort(-scores, axis=1, kind="stable")[:, :10]
    assert np.array_equal(rows, expected)
    assert np.allclose(sims, np.take_along_axis(scores, expected, axis=1), atol=1e-5)
    assert rows[1, 0] == 1 and rows[0, 0] != 0


def test_fewer_usable_rows_than_k_fill_with_minus_one():
    rng = np.random.default_rng(1)
    base = _unit(rng, 5, 8)
    valid = np.array([True, False, True, True, False])
    rows, sims = knn(base[:1], base, 4, valid=valid, use_faiss=False)
    assert sorted(rows[0, :3]) == [0, 2, 3] and rows[0, 3] == -1 and sims[0, 3] == -np.inf
