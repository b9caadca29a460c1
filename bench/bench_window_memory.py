"""Memory held by the review window, without and with a nearest-training-images index (issue 26).

Builds the project of bench_review_latency.py (the 20,000 annotated validation images whose
files are the 1000 real sample images, a share enlarged to 3000-4000 px, and a synthetic run
with about 5,000 mistakes), then opens it in the real window offscreen, each case in a fresh
process, and reads the process's resident memory (psutil if installed, else /proc/self/status):

    before    the application created, no window yet
    opened    the project open, its first mistake shown, the prefetch settled (2 s)
    walked    after N mistakes walked with vote keys (`--think-ms` between them, so the
              neighbours strip's thumbnails are decoded as a panelist would see them)

for these cases (each in its own process, the index moved beside the project only for it):

    none      no index beside the project
    small     an index over a training folder of the 1000 sample images (written as
              tests/index_data.py writes one), K = 10 stored for every mistake
    large     an index of the model's dimension (1280) over `--rows` training rows
              (1,281,167 by default: ImageNet's training set), in reviewer.neighbours.store's
              files (train_files.csv, train.npy, train_rows.jsonl, project.*, neighbours.json
              with K = 10 random training rows per mistake, duplicates.json with 1.6 % of the
              mistakes duplicated in training as in the paper). The neighbours' files exist
              (links to sample images) so the strip decodes real thumbnails. train.npy is
              written sparse (zeros) unless `--fill`: the window never opens it
              (reviewer/neighbours/lookup.py reads neighbours.json, duplicates.json and of
              train_files.csv only the rows neighbours.json names); the script checks that it
              is not mapped.

It also opens each index alone (NeighbourIndex.open, a fresh process) for its time and the
Python memory it holds (tracemalloc: what stays after the open, and the peak while reading).

    python bench/bench_window_memory.py [--mistakes 200] [--think-ms 100] [--rows 1281167]
                                        [--cases none,small,large] [--work-dir DIR]

Needs the project's shared data folder as bench_review_latency.py does.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(BENCH))

DIM = 1280  # tf_efficientnet_lite0's pooled pre-logits features
K = 10


def memory() -> dict[str, float]:
    """Resident memory of this process in MB: rss, and from /proc the peak (hwm) and the
    anonymous part (anon: the heap, not the mapped libraries and files)."""
    out = {}
    try:
        import psutil

        out["rss"] = psutil.Process().memory_info().rss / 2**20
    except ImportError:
        pass
    try:
        fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
        for key, name in (("VmRSS", "rss"), ("VmHWM", "hwm"), ("RssAnon", "anon")):
            if key in fields:
                out.setdefault(name, int(fields[key].split()[0]) / 1024)
    except OSError:
        pass
    return out


def mapped(path_part: str) -> bool:
    try:
        return path_part in Path("/proc/self/maps").read_text()
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------
# The indexes


def _mistakes(project) -> list[tuple[int, str]]:
    from reviewer.neighbours.precompute import mistake_images

    return mistake_images(project)


def _project_collection(project) -> list[tuple[str, str]]:
    from sqlalchemy import select

    from db.tables import Image
    from reviewer.classes.vocabulary import load_classes

    wnids = load_classes().wnids
    with project.read() as session:
        rows = session.execute(select(Image.path, Image.original_label).order_by(Image.id)).all()
    return [(path or "", wnids[label] if label is not None else "") for path, label in rows]


def write_small_index(project, folder: Path, samples: list[Path]) -> None:
    """The 1000 sample images as the training folder (tests/index_data.py's way), K = 10 per mistake."""
    import numpy as np
    from index_data import write_index

    rng = random.Random(1)
    train = [(p.name, p.name.split("_")[0]) for p in samples]
    neighbours = {name: [(r, round(0.9 - 0.03 * i, 3)) for i, r in enumerate(rng.sample(range(len(train)), K))]
                  for _, name in _mistakes(project)}
    collection = _project_collection(project)
    vectors = np.random.default_rng(1).standard_normal((len(collection), DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    files = write_index(folder, train_root=samples[0].parent, train=train, project=collection,
                        neighbours=neighbours, project_vectors=vectors, model="small_1000", k=K)
    print(f"small index: {len(train)} training rows, {len(neighbours)} mistakes' neighbours ({files.folder})",
          file=sys.stderr)


def write_large_index(project, folder: Path, samples: list[Path], *, rows: int, fill: bool) -> None:
    """`rows` training rows of DIM dimensions in the store's files; K random rows per mistake."""
    import numpy as np

    from reviewer.classes.vocabulary import load_classes
    from reviewer.neighbours.store import IndexFiles, write_json

    started = time.perf_counter()
    files = IndexFiles.of(folder, "large_random")
    files.folder.mkdir(parents=True, exist_ok=True)
    train_root = folder / "train"
    wnids = load_classes().wnids
    per_class = -(-rows // len(wnids))

    def train_path(row: int) -> tuple[str, str]:
        wnid = wnids[row // per_class]
        return f"{wnid}/{wnid}_{row}.JPEG", wnid

    tmp = files.files_csv("train").with_suffix(".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:  # as IndexFiles.write_files, streamed
        writer = csv.writer(f)
        writer.writerow(["row", "path", "wnid"])
        writer.writerows((r, *train_path(r)) for r in range(rows))
    os.replace(tmp, files.files_csv("train"))
    train = np.lib.format.open_memmap(files.embeddings_path("train"), mode="w+", dtype=np.float16, shape=(rows, DIM))
    if fill:
        rng = np.random.default_rng(0)
        for start in range(0, rows, 65536):
            block = rng.standard_normal((min(65536, rows - start), DIM), dtype=np.float32)
            train[start:start + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    train.flush()
    del train
    with open(files.rows_path("train"), "w", encoding="utf-8") as f:
        f.writelines(f'{{"sha":"{r:064x}","dhash":{r}}}\n' for r in range(rows))
    collection = _project_collection(project)
    files.write_files("project", collection)
    vectors = np.random.default_rng(1).standard_normal((len(collection), DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    np.save(files.embeddings_path("project"), vectors.astype(np.float16))
    files.append_rows("project", [{"sha": f"{r:064x}", "dhash": r} for r in range(len(collection))])
    rng = random.Random(2)
    neighbours, duplicates = {}, []
    for _, name in _mistakes(project):
        near = rng.sample(range(rows), K)
        neighbours[name] = [[r, round(0.9 - 0.03 * i, 5)] for i, r in enumerate(near)]
        if rng.random() < 0.016:  # the paper: 1.594 % of the validation images in training
            path, wnid = train_path(near[0])
            duplicates.append({"image": name, "kind": "exact", "other": {
                "collection": "train", "row": near[0], "path": str(train_root / path),
                "file_name": Path(path).name, "wnid": wnid}})
    write_json(files.neighbours_path, {"k": K, "search": {"kind": "exact"}, "images": neighbours})
    write_json(files.duplicates_path, duplicates)
    # The neighbours' files, so the strip decodes real thumbnails: links to the sample images.
    wanted = {r for near in neighbours.values() for r, _ in near}
    for r in wanted:
        path = train_root / train_path(r)[0]
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            os.symlink(samples[r % len(samples)], path)
    files.write_manifest({"model": "large_random", "images": str(train_root), "k": K, "dim": DIM, "complete": True,
                          "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                          "counts": {"train": rows, "project": len(collection)}})
    size = sum(p.stat().st_size for p in files.folder.iterdir()) / 2**20
    print(f"large index: {rows:,} training rows x {DIM} ({'random' if fill else 'sparse zero'} train.npy), "
          f"{len(neighbours)} mistakes' neighbours ({len(wanted):,} training rows named), {len(duplicates)} "
          f"duplicates; {size:,.0f} MB of files (apparent); written in {time.perf_counter() - started:.0f} s",
          file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# One case, in a fresh process


def run_window(project_root: Path, *, mistakes: int, think_ms: int) -> dict:
    import gc

    from bench_review_latency import pause, wait_until
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from reviewer.app.panel import join_panel
    from reviewer.app.preferences import Preferences
    from reviewer.project import Project
    from reviewer.ui.app import create_app
    from reviewer.ui.qt_main_window import QtMainWindow

    project = Project.open(project_root)
    app = create_app()
    name = f"bench-{time.time_ns()}"  # a fresh panelist: every mistake still to vote
    join_panel(project, name, join=True)
    gc.collect()
    figures = {"before": memory()}
    window = QtMainWindow(preferences=Preferences(panelist_name=name))
    window.resize(1280, 800)
    window.show()
    window.activateWindow()
    shown: list = []
    window.page.mistake_shown.connect(shown.append)
    started = time.perf_counter()
    window.open_project(str(project_root))
    wait_until(app, lambda: shown, timeout=120)
    figures["first_shown_s"] = time.perf_counter() - started
    pause(app, 2.0)  # the prefetch settles
    gc.collect()
    figures["opened"] = memory()
    strip = window.page.neighbours
    figures["strip_visible"] = strip.isVisible()

    def key(k):
        QTest.keyClick(QApplication.focusWidget() or window, k)

    rng = random.Random(0)
    walked = 0
    for _ in range(mistakes):
        before = window.bridge.state.current_item()
        shown.clear()
        app.processEvents()
        key(rng.choice([Qt.Key.Key_1, Qt.Key.Key_3]))
        wait_until(app, lambda: shown and shown[-1] != before, timeout=30)
        walked += 1
        pause(app, think_ms / 1000)
    wait_until(app, lambda: not window.bridge.state.pending, timeout=60)
    pause(app, 1.0)
    gc.collect()
    figures["walked"] = memory()
    figures["walked_n"] = walked
    figures["train_npy_mapped"] = mapped("train.npy")
    figures["project_npy_mapped"] = mapped("project.npy")
    window.close()
    return figures


def run_index_alone(project_root: Path, *, trace: bool) -> dict:
    """NeighbourIndex.open's time and resident growth, or (`trace`) the Python memory it holds
    and its peak by tracemalloc (whose own bookkeeping would swell the resident figure)."""
    import gc
    import tracemalloc

    from reviewer.classes.vocabulary import load_classes
    from reviewer.neighbours.lookup import NeighbourIndex

    load_classes()
    gc.collect()
    rss0 = memory()
    if trace:
        tracemalloc.start()
    started = time.perf_counter()
    index = NeighbourIndex.open(project_root)
    seconds = time.perf_counter() - started
    gc.collect()
    if trace:
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return {"held_mb": held / 2**20, "peak_mb": peak / 2**20}
    rss1 = memory()
    return {"open_s": seconds, "rss_mb": rss1["rss"] - rss0["rss"], "hwm_mb": rss1["hwm"] - rss0["hwm"],
            "images": len(index._neighbours) if index else 0, "train_rows_held": len(index._train) if index else 0}


def child(args) -> int:
    root = Path(args.child_project)
    result = run_index_alone(root, trace=args.child == "trace") if args.child in ("index", "trace") else run_window(root, mistakes=args.mistakes,
                                                                            think_ms=args.think_ms)
    print("RESULT " + json.dumps(result))
    return 0


def in_child(kind: str, root: Path, args) -> dict:
    command = [sys.executable, __file__, "--child", kind, "--child-project", str(root),
               "--mistakes", str(args.mistakes), "--think-ms", str(args.think_ms)]
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ.copy(), check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode or not lines:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"the {kind} process failed ({done.returncode})")
    return json.loads(lines[-1][len("RESULT "):])


# ---------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mistakes", type=int, default=200, help="mistakes walked after the first (default 200)")
    parser.add_argument("--think-ms", type=int, default=100, help="pause after each mistake shown (default 100)")
    parser.add_argument("--rows", type=int, default=1_281_167, help="training rows of the large index")
    parser.add_argument("--fill", action="store_true", help="write random unit rows into the large train.npy "
                        "(3.3 GB at 1.28 M rows; the window never reads it)")
    parser.add_argument("--cases", default="none,small,large")
    parser.add_argument("--large-share", type=float, default=0.3, help="share of images of 3000-4000 px")
    parser.add_argument("--work-dir", type=Path, help="keep the project and indexes here (default: a temp dir)")
    parser.add_argument("--child", choices=["window", "index", "trace"], help=argparse.SUPPRESS)
    parser.add_argument("--child-project", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    from bench_review_latency import SHARED, build_project

    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    with tempfile.TemporaryDirectory(prefix="bench_memory_") as tmp:
        work = args.work_dir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("REVIEWER_CONFIG_DIR", str(work / "config"))
        os.environ.setdefault("REVIEWER_DATA_DIR", str(work / "data"))
        project = build_project(work, large_share=args.large_share, seed=0)
        samples = sorted((SHARED / "imagenet-samples").glob("*.JPEG"))
        index_dir = project.root / "index"
        if index_dir.exists():
            raise SystemExit(f"{index_dir} exists: this benchmark places its own indexes there")
        stores = {"small": work / "indexes" / f"small_{len(samples)}", "large": work / "indexes" / f"large_{args.rows}"}
        for case in cases:
            store = stores.get(case)
            if store is None or (store / "index").exists():
                continue
            if case == "small":
                write_small_index(project, store, samples)
            else:
                write_large_index(project, store, samples, rows=args.rows, fill=args.fill)
        results, alone = {}, {}
        for case in cases:
            load = os.getloadavg()[0]
            if case in stores:
                os.rename(stores[case] / "index", index_dir)
            try:
                if case in stores:
                    alone[case] = in_child("index", project.root, args) | in_child("trace", project.root, args)
                results[case] = (in_child("window", project.root, args), load, os.getloadavg()[0])
            finally:
                if case in stores:
                    os.rename(index_dir, stores[case] / "index")
            print(f"{case}: done", file=sys.stderr)
    print(f"memory held by the review window (MB, resident; 1280x800 offscreen; {args.mistakes} mistakes walked, "
          f"think {args.think_ms} ms; each case a fresh process):")
    base = results.get("none")
    for case, (r, load0, load1) in results.items():
        parts = []
        for moment in ("before", "opened", "walked"):
            m = r[moment]
            text = f"{moment} {m['rss']:.0f}"
            if base and case != "none":
                text += f" ({m['rss'] - base[0][moment]['rss']:+.0f})"
            parts.append(text)
        print(f"  {case:>5}: " + ", ".join(parts) + f"; anon {r['walked'].get('anon', 0):.0f}, peak "
              f"{r['walked'].get('hwm', 0):.0f}; window held (walked - before) "
              f"{r['walked']['rss'] - r['before']['rss']:.0f}; first mistake in {r['first_shown_s']:.1f} s; strip "
              f"{'shown' if r['strip_visible'] else 'hidden'}; train.npy mapped: "
              f"{'yes' if r['train_npy_mapped'] else 'no'}; load {load0:.1f} -> {load1:.1f}")
    for case, a in alone.items():
        print(f"  NeighbourIndex.open alone, {case}: {a['open_s'] * 1000:.0f} ms, resident +{a['rss_mb']:.0f} MB "
              f"(peak +{a['hwm_mb']:.0f}); Python memory held {a['held_mb']:.1f} MB (peak while reading "
              f"{a['peak_mb']:.1f} MB, tracemalloc); "
              f"{a['images']} images' neighbours, {a['train_rows_held']:,} training rows held")
    print(f"  machine: {os.cpu_count()} cores (other processes' load moves the timings, hardly the memory)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
