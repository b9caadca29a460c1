"""The approximate index (reviewer.neighbours.approximate, `reviewer index --approximate`):
its recall against exact search on clustered vectors, exact similarities for what it
returns, the exact answer when it scans every cell, never a skipped row; and a build
with it records how its neighbours were found, reuses the index, and recomputes the
neighbours when the search changes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reviewer.neighbours.approximate import ApproximateSettings, build_ivfpq, recall_at_k, search_ivfpq
from reviewer.neighbours.search import knn


def _clustered(rng, rows, dim, clusters, spread=0.6):
    """Unit vectors around `clusters` centres: a class structure like an embedding's."""
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    x = centres[rng.integers(0, clusters, rows)] + spread * rng.standard_normal((rows, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_recall_at_k_counts_the_exact_neighbours_found():
    assert recall_at_k(np.array([[1, 2, 3], [7, 8, -1]]), np.array([[1, 2, 4], [8, 9, -1]])) == 3 / 5


def test_recall_against_exact_search_and_exact_similarities():
    rng = np.random.default_rng(0)
    base = _clustered(rng, 6000, 64, 60).astype(np.float16)
    queries = _clustered(np.random.default_rng(1), 200, 64, 60)
    valid = np.ones(len(base), dtype=bool)
    valid[::7] = False  # skipped files
    index, settings = build_ivfpq(base, ApproximateSettings(code_bytes=16, nprobe=8, rerank=100), valid=valid)
    assert (settings.nlist, settings.code_bytes, settings.bits) == (77, 16, 8)
    rows, sims = search_ivfpq(index, base, queries, 10, settings=settings)
    exact, _ = knn(queries, base, 10, valid=valid)
    assert recall_at_k(rows, exact) >= 0.9
    assert not np.isin(rows, np.flatnonzero(~valid)).any()
    expected = np.einsum("qd,qkd->qk", queries, base[rows].astype(np.float32))
    assert np.allclose(sims, expected, atol=1e-5)  # re-scored exactly, best first
    assert (np.diff(sims, axis=1) <= 0).all()


def test_scanning_every_cell_and_rescoring_all_is_exact():
    rng = np.random.default_rng(2)
    base = _clustered(rng, 500, 32, 10)
    queries = base[:20] + 0.05 * _clustered(rng, 20, 32, 3)
    index, settings = build_ivfpq(base, ApproximateSettings(nprobe=10_000, rerank=500))
    rows, _ = search_ivfpq(index, base, queries, 10, settings=settings)
    exact, _ = knn(queries, base, 10)
    assert settings.nprobe == settings.nlist and np.array_equal(rows, exact)


@pytest.mark.slow
def test_a_build_with_the_approximate_index_records_it_and_reuses_it(tmp_path, tiny_checkpoint):
    from neighbours_data import build_planted
    from run_data import TINY_MODEL

    from reviewer.neighbours.build import build_index
    from reviewer.neighbours.store import IndexFiles
    from reviewer.project import Project

    case = build_planted(tmp_path)
    project = Project.open(case.project_root)
    lines: list[str] = []
    run = dict(images=case.train, model=TINY_MODEL, checkpoint=tiny_checkpoint, progress=lines.append)
    summary = build_index(project, approximate=ApproximateSettings(), **run)
    files = IndexFiles(summary.folder)
    stored = json.loads(files.neighbours_path.read_text())
    assert stored["search"]["kind"] == "ivfpq" and files.read_manifest()["search"] == stored["search"]
    assert summary.search.startswith("approximate, faiss IVF-PQ: 1 cells") and len(stored["images"]) == 7
    # Again with the same settings: the index on disk is used, nothing recomputed.
    lines.clear()
    again = build_index(project, approximate=ApproximateSettings(), **run)
    assert any(line.endswith("(built already)") for line in lines) and again.neighbours_computed == 0
    # Exact again: every neighbour recomputed, and (one cell, all 30 re-scored) the same answer.
    exact = build_index(project, **run)
    assert exact.neighbours_computed == 7 and exact.search.startswith("exact")
    # The same neighbours in the same order; their scores agree to the stored 5 decimals give or take
    # one (the rerank and the exact search sum the float32 products in different orders).
    again_images = json.loads(files.neighbours_path.read_text())["images"]
    assert again_images.keys() == stored["images"].keys()
    for name, found in again_images.items():
        assert [i for i, _ in found] == [i for i, _ in stored["images"][name]], name
        assert np.allclose([s for _, s in found], [s for _, s in stored["images"][name]], rtol=0, atol=1.5e-5), name
