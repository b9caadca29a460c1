"""Throughput of `reviewer index` and the time of an exact K = 10 query over 1.28 M vectors.

    python bench/bench_index.py [--images DIR] [--limit N] [--rows 1281167] [--dim 1280]
                                [--queries 1024] [--no-embed]

(a) Embedding: images/s of `reviewer index`'s whole per-image work on the CPU (the threaded
    decode pipeline, the forward pass to the pooled pre-logits features of the bundled
    tf_efficientnet_lite0, the decoded-pixel and dHash hashes, the float16 writes and the
    progress file) over the demo's 300 images (default assets/demo/images, a project's
    training folder stand-in; model loading excluded).
(b) Search: random unit vectors of the model's dimension (1280) as 1,281,167 float16 rows
    in a memory-mapped .npy (3.3 GB, as the index stores them), then
    reviewer.neighbours.search.knn, exact, for a batch of queries (what `reviewer index`
    does for a run's mistakes): ms per query amortised, and for one query alone.
    With faiss's knn inside each chunk and with numpy's argpartition.
Target: under 100 ms per query (exact) on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def bench_embedding(images: Path, limit: int | None) -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from run_data import make_project

    from reviewer.neighbours import build

    files = sorted(p for p in images.iterdir() if p.is_file())[:limit]
    with tempfile.TemporaryDirectory() as tmp:
        train = Path(tmp) / "train"
        for f in files:
            (train / f.name.split("_")[0]).mkdir(parents=True, exist_ok=True)
            os.symlink(f, train / f.name.split("_")[0] / f.name)
        project = make_project(Path(tmp) / "project", files[:1])
        lines: list[str] = []
        build.build_index(project, images=train, progress=lines.append)  # warm: model load, first batches
        import shutil

        shutil.rmtree(Path(tmp) / "project" / "index")
        from models.sources import load_model

        load_model("tf_efficientnet_lite0", device="cpu")  # weights in the page cache
        started = time.perf_counter()
        lines = []
        build.build_index(project, images=train, progress=lines.append)
        seconds = time.perf_counter() - started
        print(f"(a) embedding: {len(files)} images in {seconds:.1f} s, {len(files) / seconds:.1f} images/s "
              f"(model loading included: about 0.3 s); last progress line: {[x for x in lines if 'train' in x][-1]}")


def bench_search(rows: int, dim: int, queries: int, chunk: int) -> None:
    from reviewer.neighbours.search import knn

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.npy"
        base = np.lib.format.open_memmap(path, mode="w+", dtype=np.float16, shape=(rows, dim))
        step = 65_536
        for start in range(0, rows, step):
            block = rng.standard_normal((min(step, rows - start), dim), dtype=np.float32)
            base[start:start + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
        base.flush()
        del base
        base = np.load(path, mmap_mode="r")
        q = rng.standard_normal((queries, dim), dtype=np.float32)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        print(f"(b) base: {rows:,} x {dim} float16 = {rows * dim * 2 / 1e9:.2f} GB memory-mapped; "
              f"{queries} queries, K = 10, exact")
        results = {}
        for use_faiss in (True, False):
            try:
                knn(q[:1], base[:1000], 10, use_faiss=use_faiss)
            except RuntimeError as exc:
                print(f"    skipped: {exc}")
                continue
            label = "faiss knn" if use_faiss else "numpy"
            knn(q[:1], base, 10, use_faiss=use_faiss, base_chunk=chunk)  # pages in the page cache
            started = time.perf_counter()
            rows_one, _ = knn(q[:1], base, 10, use_faiss=use_faiss, base_chunk=chunk)
            one = time.perf_counter() - started
            started = time.perf_counter()
            found, _ = knn(q, base, 10, use_faiss=use_faiss, base_chunk=chunk)
            batch = time.perf_counter() - started
            results[label] = found
            print(f"    {label:9s}: {1000 * batch / queries:6.1f} ms per query in a batch of {queries} "
                  f"({batch:.1f} s); one query alone {1000 * one:.0f} ms")
        if len(results) == 2:
            a, b = results.values()
            print(f"    faiss and numpy agree on {np.mean(a == b):.4%} of the neighbours")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", type=Path, default=REPO / "assets" / "demo" / "images")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--rows", type=int, default=1_281_167)
    parser.add_argument("--dim", type=int, default=1280)
    parser.add_argument("--queries", type=int, default=1024)
    parser.add_argument("--chunk", type=int, default=65_536)
    parser.add_argument("--no-embed", action="store_true")
    args = parser.parse_args()
    import torch

    print(f"cores: {len(os.sched_getaffinity(0))}, torch threads: {torch.get_num_threads()}")
    if not args.no_embed:
        bench_embedding(args.images, args.limit)
    bench_search(args.rows, args.dim, args.queries, args.chunk)


if __name__ == "__main__":
    main()
