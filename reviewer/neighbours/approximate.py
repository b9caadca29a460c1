"""An approximate nearest-neighbour index, as an explicit option (`reviewer index
--approximate`) for training sets too large to scan for every query.

faiss's inverted file with product quantisation (`IndexIVFPQ`, inner product): the
training embeddings are split into `nlist` cells by k-means, each vector kept as a
64-byte code (1.28 M x 1280 floats: 82 MB instead of 3.3 GB), and a query scans only the
`nprobe` nearest cells. The codes only shortlist: the `rerank` best candidates (1000) are
then scored exactly from the float16 embeddings on disk (memory-mapped rows), so the
similarities stored are exact and only a true neighbour missing from the shortlist is
lost. A short list of 100 is ten times faster but, where a class's images are about as
close to one another as to the query, it misses many of the ten nearest
(bench/bench_index.py); near copies, far closer than the rest, it does not miss. How many are lost is measured, not assumed: `recall_at_k` against
exact search (bench/bench_index.py prints it; the manifest records the settings).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

TRAIN_CHUNK = 65_536


@dataclass(frozen=True)
class ApproximateSettings:
    """The IVF-PQ index's settings; None: chosen from the number of vectors (`resolved`)."""

    nlist: int | None = None  # cells: about sqrt(N)
    code_bytes: int = 64  # sub-quantisers per vector: bytes per vector at 8 bits each
    bits: int = 8  # bits per sub-quantiser (fewer on a set too small to train 256 centroids)
    nprobe: int = 32  # cells scanned per query
    rerank: int = 1000  # candidates scored exactly from the embeddings
    training_points: int = 64  # k-means training vectors per cell (at most all of them)
    seed: int = 0

    def resolved(self, rows: int, dim: int, *, usable: int | None = None) -> "ApproximateSettings":
        """Settings for `rows` vectors of `dim`, `usable` of them indexed (the others: skipped
        files): the cells about sqrt(rows) (each trained on 39 points at least, faiss's rule),
        the code a divisor of `dim`, and fewer bits where the training sample is smaller than
        the 256 centroids of 8 bits (k-means needs as many points as centroids)."""
        usable = rows if usable is None else usable
        nlist = self.nlist or max(1, min(int(math.sqrt(rows)), rows // 39 or 1, usable))
        code = max(m for m in range(1, min(self.code_bytes, dim) + 1) if dim % m == 0)
        sample = min(usable, nlist * self.training_points)
        bits = max(1, min(self.bits, int(math.log2(max(sample, 2)))))
        return ApproximateSettings(nlist=nlist, code_bytes=code, bits=bits, nprobe=min(self.nprobe, nlist),
                                   rerank=self.rerank, training_points=self.training_points, seed=self.seed)

    def describe(self) -> str:
        return (f"approximate, faiss IVF-PQ: {self.nlist} cells, codes of {self.code_bytes} x {self.bits} bits, "
                f"{self.nprobe} cells scanned per query, the best {self.rerank} re-scored exactly")

    def as_dict(self) -> dict:
        return asdict(self)


def _faiss():
    try:
        import faiss
    except ImportError as exc:  # a dependency: say what is missing rather than fall back silently
        raise RuntimeError("the approximate index needs faiss (pip install faiss-cpu)") from exc
    return faiss


def build_ivfpq(base: np.ndarray, settings: ApproximateSettings, *, valid: np.ndarray | None = None,
                progress=None):
    """The IVF-PQ index of the rows of `base` (float16 or float32 [N, dim], unit rows; rows
    where `valid` is False are left out), trained on an evenly spaced sample."""
    faiss = _faiss()
    say = progress or (lambda line: None)
    rows, dim = base.shape
    keep = np.arange(rows) if valid is None else np.flatnonzero(valid)
    s = settings.resolved(rows, dim, usable=len(keep))
    rng = np.random.default_rng(s.seed)
    sample = np.sort(rng.choice(keep, size=min(len(keep), s.nlist * s.training_points), replace=False))
    train = np.asarray(base[sample], dtype=np.float32)
    quantiser = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFPQ(quantiser, dim, s.nlist, s.code_bytes, s.bits, faiss.METRIC_INNER_PRODUCT)
    for clustering in (index.cp, index.pq.cp):
        clustering.seed = s.seed
        clustering.min_points_per_centroid = 1  # a small set trains as it can (no warning printed)
    say(f"approximate index: training {s.nlist} cells on {len(train)} vectors")
    index.train(train)
    for start in range(0, rows, TRAIN_CHUNK):
        part = np.arange(start, min(rows, start + TRAIN_CHUNK))
        if valid is not None:
            part = part[valid[part]]
        if len(part):
            index.add_with_ids(np.asarray(base[part], dtype=np.float32), part.astype(np.int64))
        say(f"approximate index: {min(rows, start + TRAIN_CHUNK)}/{rows} vectors added")
    index.nprobe = s.nprobe
    return index, s


def search_ivfpq(index, base: np.ndarray, queries: np.ndarray, k: int, *, settings: ApproximateSettings
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(rows [Q, k], exact similarities [Q, k]) as `search.knn` returns them: the shortlist
    of `rerank` rows from the index, re-scored exactly against `base`. Fewer than k found:
    the rest are -1 / -inf."""
    queries = np.ascontiguousarray(queries, dtype=np.float32)
    index.nprobe = settings.nprobe
    _, candidates = index.search(queries, max(k, settings.rerank))
    out_rows = np.full((len(queries), k), -1, dtype=np.int64)
    out_sims = np.full((len(queries), k), -np.inf, dtype=np.float32)
    for q, found in enumerate(candidates):
        found = np.unique(found[found >= 0])  # sorted rows: the memmap reads in order
        if not len(found):
            continue
        # np.take, not base[found]: fancy indexing a memmap is five times slower (bench/bench_index.py).
        sims = np.take(base, found, axis=0).astype(np.float32) @ queries[q]
        order = np.lexsort((found, -sims))[:k]  # best first; ties: the lower row first
        out_rows[q, :len(order)], out_sims[q, :len(order)] = found[order], sims[order]
    return out_rows, out_sims


def recall_at_k(approximate: np.ndarray, exact: np.ndarray) -> float:
    """The share of the exact k nearest rows that the approximate search also returns."""
    hits = sum(len(set(a[a >= 0]) & set(e[e >= 0])) for a, e in zip(approximate, exact))
    total = int((exact >= 0).sum())
    return hits / total if total else float("nan")


def save_index(index, path: Path) -> None:
    faiss = _faiss()
    tmp = Path(path).with_suffix(".tmp")
    faiss.write_index(index, str(tmp))
    tmp.replace(path)


def load_index(path: Path):
    return _faiss().read_index(str(path))
