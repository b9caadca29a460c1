"""Exact K-nearest-neighbour search by inner product over unit vectors (cosine similarity).

Exact, as the paper's search (§4.5): every base vector is compared with every query.
The base is read in chunks (float16 on disk, memory-mapped, made float32 one chunk at a
time), so 1.28 M x 1280 vectors (3.3 GB in float16) never need 6.5 GB of float32 in
memory; queries go in batches, so each chunk is converted once per batch of queries
and the product is a matrix product (bench/bench_index.py: ms per query). Within a
chunk the top K come from faiss's exact `knn` (a heap, inner product) when faiss is
installed, else from numpy's argpartition; both give the same neighbours.
"""

from __future__ import annotations

import numpy as np

BASE_CHUNK = 65_536
QUERY_BATCH = 1_024


def _faiss():
    try:
        import faiss
    except ImportError:
        return None
    return faiss


def knn(queries: np.ndarray, base: np.ndarray, k: int, *, valid: np.ndarray | None = None,
        base_chunk: int = BASE_CHUNK, query_batch: int = QUERY_BATCH,
        use_faiss: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(rows int64 [Q, k], similarities float32 [Q, k]) of the k base rows with the largest
    inner product with each query, best first (ties: the lower row first); rows where
    `valid` is False are never returned. Fewer than k valid rows: the rest are -1 / -inf."""
    queries = np.ascontiguousarray(queries, dtype=np.float32)
    faiss = _faiss() if use_faiss in (None, True) else None
    if use_faiss and faiss is None:
        raise RuntimeError("faiss is not installed (pip install faiss-cpu)")
    out_rows = np.full((len(queries), k), -1, dtype=np.int64)
    out_sims = np.full((len(queries), k), -np.inf, dtype=np.float32)
    for q0 in range(0, len(queries), query_batch):
        q = queries[q0:q0 + query_batch]
        best_rows = np.full((len(q), k), -1, dtype=np.int64)
        best_sims = np.full((len(q), k), -np.inf, dtype=np.float32)
        for b0 in range(0, len(base), base_chunk):
            chunk = np.asarray(base[b0:b0 + base_chunk], dtype=np.float32)
            invalid = None if valid is None else np.flatnonzero(~valid[b0:b0 + len(chunk)])
            take = min(len(chunk), k + (0 if invalid is None else len(invalid)))
            if faiss is not None:
                sims, rows = faiss.knn(q, chunk, take, metric=faiss.METRIC_INNER_PRODUCT)
            else:
                scores = q @ chunk.T
                rows = np.argpartition(-scores, take - 1, axis=1)[:, :take] if take < len(chunk) else \
                    np.broadcast_to(np.arange(len(chunk)), scores.shape).copy()
                sims = np.take_along_axis(scores, rows, axis=1)
            if invalid is not None and len(invalid):
                sims = np.where(np.isin(rows, invalid) | (rows < 0), -np.inf, sims)
            rows = np.where(rows < 0, -1, rows + b0)
            best_rows, best_sims = _merge(best_rows, best_sims, rows, sims.astype(np.float32), k)
        out_rows[q0:q0 + len(q)], out_sims[q0:q0 + len(q)] = best_rows, best_sims
    out_rows[~np.isfinite(out_sims)] = -1
    return out_rows, out_sims


def _merge(rows_a, sims_a, rows_b, sims_b, k):
    rows = np.concatenate([rows_a, rows_b], axis=1)
    sims = np.concatenate([sims_a, sims_b], axis=1)
    # Best first; equal similarities: the lower row first (invalid rows, -1, sort last by -inf).
    order = np.lexsort((np.where(rows < 0, np.iinfo(np.int64).max, rows), -sims), axis=1)[:, :k]
    return np.take_along_axis(rows, order, axis=1), np.take_along_axis(sims, order, axis=1)
