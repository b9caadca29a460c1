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
(c) The approximate index (`reviewer index --approximate`: faiss IVF-PQ, the best
    `rerank` candidates re-scored exactly from the float16 file): its build time, size, ms
    per query and recall@10 against exact search, for several `nprobe` and `rerank`, and
    how often a planted near copy of a query (cosine 0.95: a crop, a re-encode; what the
    leakage section counts) comes first. Random unit
    vectors have no neighbourhoods (every vector is about as far from every other), the
    worst case for any approximate index and nothing like an embedding, so (c) draws
    the base and the queries around 1000 class centres (a mixture whose within-class
    cosine similarity, about 0.5, is that of the Lite0 embeddings of one class; within a
    class the points are otherwise alike, a hard case: the ten nearest are barely nearer
    than the class's other 1,270), and on random vectors only with --random.
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


def _clustered_memmap(path: Path, rows: int, dim: int, classes: int, spread: float, seed: int):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((classes, dim), dtype=np.float32) / np.sqrt(dim)
    base = np.lib.format.open_memmap(path, mode="w+", dtype=np.float16, shape=(rows, dim))
    step = 65_536
    for start in range(0, rows, step):
        n = min(step, rows - start)
        block = centres[rng.integers(0, classes, n)] + spread * rng.standard_normal((n, dim), dtype=np.float32) \
            / np.sqrt(dim)
        base[start:start + n] = block / np.linalg.norm(block, axis=1, keepdims=True)
    base.flush()
    return np.load(path, mmap_mode="r"), centres


def bench_approximate(rows: int, dim: int, queries: int, chunk: int, nprobes: list[int], reranks: list[int],
                      random: bool) -> None:
    from reviewer.neighbours.approximate import ApproximateSettings, build_ivfpq, recall_at_k, search_ivfpq
    from reviewer.neighbours.search import knn

    for kind in ["clustered"] + (["random"] if random else []):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "train.npy"
            rng = np.random.default_rng(1)
            if kind == "clustered":
                base, centres = _clustered_memmap(path, rows, dim, 1000, 1.0, seed=0)
                q = centres[rng.integers(0, 1000, queries)] + rng.standard_normal((queries, dim),
                                                                                 dtype=np.float32) / np.sqrt(dim)
            else:
                base = np.lib.format.open_memmap(path, mode="w+", dtype=np.float16, shape=(rows, dim))
                for start in range(0, rows, 65_536):
                    block = rng.standard_normal((min(65_536, rows - start), dim), dtype=np.float32)
                    base[start:start + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
                q = rng.standard_normal((queries, dim), dtype=np.float32)
            q /= np.linalg.norm(q, axis=1, keepdims=True)
            # A near copy (cosine about 0.95: a crop, a re-encode) of every other query planted in the base.
            planted = np.sort(rng.choice(rows, size=queries // 2, replace=False))
            copies = q[::2][:len(planted)] + 0.33 * rng.standard_normal((len(planted), dim),
                                                                         dtype=np.float32) / np.sqrt(dim)
            base = np.load(path, mmap_mode="r+")
            base[planted] = copies / np.linalg.norm(copies, axis=1, keepdims=True)
            base.flush()
            base = np.load(path, mmap_mode="r")
            started = time.perf_counter()
            exact, exact_sims = knn(q, base, 10, base_chunk=chunk)
            exact_ms = 1000 * (time.perf_counter() - started) / queries
            note = ""
            if kind == "clustered":
                sample = np.asarray(base[:2000], dtype=np.float32)
                labels = np.argmax(sample @ centres.T, axis=1)
                sims = sample @ sample.T
                pairs = labels[:, None] == labels[None, :]
                np.fill_diagonal(pairs, False)
                note = f"; within-class cosine similarity {sims[pairs].mean():.2f}"
            copy_sim = float(np.mean(exact_sims[::2][:len(planted), 0]))
            assert np.array_equal(exact[::2][:len(planted), 0], planted), "a planted copy is not its query's nearest"
            print(f"(c) approximate index over {rows:,} x {dim} {kind} vectors{note}, {len(planted)} near copies "
                  f"planted (similarity {copy_sim:.2f}); exact: {exact_ms:.1f} ms per query, 10th neighbour at "
                  f"{np.mean(exact_sims[:, 9]):.3f}")
            started = time.perf_counter()
            index, settings = build_ivfpq(base, ApproximateSettings())
            built = time.perf_counter() - started
            import faiss

            faiss.write_index(index, str(Path(tmp) / "train.ivfpq.faiss"))
            size = (Path(tmp) / "train.ivfpq.faiss").stat().st_size
            print(f"    built in {built:.0f} s ({settings.nlist} cells, codes of {settings.code_bytes} x "
                  f"{settings.bits} bits), {size / 1e6:.0f} MB on disk (the float16 embeddings: "
                  f"{rows * dim * 2 / 1e6:.0f} MB)")
            for nprobe in nprobes:
                for rerank in reranks:
                    s = ApproximateSettings(nlist=settings.nlist, code_bytes=settings.code_bytes,
                                            bits=settings.bits, nprobe=nprobe, rerank=rerank)
                    search_ivfpq(index, base, q[:8], 10, settings=s)  # warm
                    started = time.perf_counter()
                    found, _ = search_ivfpq(index, base, q, 10, settings=s)
                    ms = 1000 * (time.perf_counter() - started) / queries
                    first = np.mean(found[::2][:len(planted), 0] == planted)  # query 2i's copy is planted[i]
                    print(f"    nprobe {nprobe:4d}, rerank {rerank:5d}: {ms:6.2f} ms per query ({exact_ms / ms:5.1f}x "
                          f"faster than exact), recall@10 {recall_at_k(found, exact):.3f}, near copy found first "
                          f"{first:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", type=Path, default=REPO / "assets" / "demo" / "images")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--rows", type=int, default=1_281_167)
    parser.add_argument("--dim", type=int, default=1280)
    parser.add_argument("--queries", type=int, default=1024)
    parser.add_argument("--chunk", type=int, default=65_536)
    parser.add_argument("--no-embed", action="store_true")
    parser.add_argument("--no-exact", action="store_true", help="skip (b)")
    parser.add_argument("--nprobe", type=int, nargs="+", default=[8, 32, 128], help="(c)'s nprobe values")
    parser.add_argument("--approximate-rows", type=int, default=None, help="(c)'s base (default: --rows)")
    parser.add_argument("--rerank", type=int, nargs="+", default=[100, 1000], help="(c)'s rerank values")
    parser.add_argument("--random", action="store_true", help="(c) on random unit vectors too (no neighbourhoods: "
                        "every approximate index does poorly there)")
    args = parser.parse_args()
    import torch

    print(f"cores: {len(os.sched_getaffinity(0))}, torch threads: {torch.get_num_threads()}")
    if not args.no_embed:
        bench_embedding(args.images, args.limit)
    if not args.no_exact:
        bench_search(args.rows, args.dim, args.queries, args.chunk)
    bench_approximate(args.approximate_rows or args.rows, args.dim, args.queries, args.chunk, args.nprobe,
                      args.rerank, args.random)


if __name__ == "__main__":
    main()
