"""How long from a vote key to the next mistake fully on screen, in the real window.

Builds a project of the 20,000 annotated validation images
(`formats/imagenet-annotatedval20k.json`) whose files are the 1000 real
sample images, a share of them enlarged to 3000-4000 px, plus a synthetic
run (about a quarter of the images predicted wrong, so ~5,000 mistakes).
Then drives the main window offscreen through N mistakes with key presses
(correct, unclear, and wrong + major + fine-grained), and times each
advancing key press until the next mistake's facts and image are shown and
painted. Prints p50 / p95 / max; the target is p95 <= 50 ms.

A panelist looks at a mistake before voting: `--think-ms` waits that long
between mistakes (the window prefetches meanwhile); `--think-ms 0` shows
the worst case of keys pressed as fast as the window accepts them.

    python bench/bench_review_latency.py [--mistakes 200] [--think-ms 250,0] [--size 1920x1080]

Needs the project's shared data folder (the 1000 sample images and the annotated-20k list):
`../shared/data` beside the clone, or `$REVIEWER_SHARED_DATA` (not in the repository; the
tests never need it, tests/data/README.md).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("REVIEWER_SHARED_DATA", REPO.parent / "shared" / "data"))
sys.path.insert(0, str(REPO / "tests"))  # review_data: runs written as the app writes them


def enlarge_samples(samples: list[Path], out: Path, count: int) -> list[Path]:
    """`count` sample images enlarged to 3000-4000 px (cached in `out`)."""
    from PIL import Image

    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(1)
    made = []
    for path in samples[:count]:
        target = out / f"large_{path.name}"
        if not target.exists():
            with Image.open(path) as image:
                scale = rng.uniform(3000, 4000) / max(image.size)
                image.convert("RGB").resize((round(image.width * scale), round(image.height * scale)),
                                            Image.Resampling.BICUBIC).save(target, quality=90)
        made.append(target)
    return made


def _count_paints(app):
    from collections import Counter

    from PySide6.QtCore import QEvent, QObject

    class PaintCounter(QObject):
        counts: Counter = Counter()

        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() == QEvent.Type.Paint:  # counted in thousands of pixels painted
                rect = event.rect()
                parent = watched.parent()
                self.counts[type(watched).__name__ + ":" + (watched.objectName() or f"in {type(parent).__name__}")] += \
                    rect.width() * rect.height() / 1000
            return False

    counter = PaintCounter()
    app.installEventFilter(counter)
    return counter


def _count_events(app):
    """Paint and layout events delivered, counted as they happen (every receiver)."""
    from PySide6.QtCore import QEvent, QObject

    class EventCounter(QObject):
        paints = layouts = 0

        def eventFilter(self, watched, event):  # noqa: N802
            kind = event.type()
            if kind == QEvent.Type.Paint:
                self.paints += 1
            elif kind == QEvent.Type.LayoutRequest:
                self.layouts += 1
            return False

    counter = EventCounter()
    app.installEventFilter(counter)
    return counter


def build_project(work: Path, *, large_share: float, seed: int):
    from review_data import add_run
    from sqlalchemy import bindparam, select, update

    from db.engine import read_session, write_session
    from db.tables import Image
    from reviewer.app.imports import init_project
    from reviewer.project import Project

    root = work / "project"
    if (root / "project.json").exists():
        return Project.open(root)
    samples = sorted((SHARED / "imagenet-samples").glob("*.JPEG"))
    large = enlarge_samples(samples, work / "large", 40)
    t0 = time.perf_counter()
    project, _ = init_project(root, labels=[SHARED / "formats" / "imagenet-annotatedval20k.json"])
    rng = random.Random(seed)
    with read_session(project.engine) as session:
        images = session.execute(select(Image.id, Image.original_label).order_by(Image.id)).all()
    paths = [{"b_id": image_id, "b_path": str(rng.choice(large) if rng.random() < large_share
                                              else rng.choice(samples))} for image_id, _ in images]
    with write_session(project.engine) as session:
        session.connection().execute(update(Image).where(Image.id == bindparam("b_id"))
                                     .values(path=bindparam("b_path")), paths)
    top1 = {image_id: (label if rng.random() < 0.75 else rng.randrange(1000)) for image_id, label in images}
    probs = {image_id: rng.uniform(0.2, 0.99) for image_id in top1}
    add_run(project, "synthetic-resnet", top1, probs=probs)
    print(f"built {root}: {len(images)} images ({large_share:.0%} of them 3000-4000 px), "
          f"in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return project


def drive(project, *, mistakes: int, think_ms: int, size: tuple[int, int]) -> list[float]:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from reviewer.app.panel import join_panel
    from reviewer.app.preferences import Preferences
    from reviewer.ui.app import create_app
    from reviewer.ui.qt_main_window import QtMainWindow

    app = create_app()
    # A fresh panelist every run, on the panel before the window opens (a new name would be
    # asked before joining: reviewer.panel.membership), so every mistake is still to vote.
    name = f"bench-{time.time_ns()}"
    join_panel(project, name, join=True)
    window = QtMainWindow(preferences=Preferences(panelist_name=name))
    window.resize(*size)
    window.show()
    window.activateWindow()
    shown: list = []
    shown_at: list[float] = []
    window.page.mistake_shown.connect(shown.append)
    window.page.mistake_shown.connect(lambda _key: shown_at.append(time.perf_counter()))
    window.open_project(str(project.root))
    wait_until(app, lambda: shown, timeout=120)
    print(f"window open: {len(window.bridge.state.queue)} mistakes in the queue", file=sys.stderr)
    pause(app, 2.0)  # a panelist's first look at the first mistake: the prefetch settles

    def key(k):
        QTest.keyClick(QApplication.focusWidget() or window, k)

    paints = _count_paints(app) if os.environ.get("BENCH_PAINTS") else None
    events = _count_events(app)
    rng = random.Random(0)
    latencies, key_handling, key_cpu, misses = [], [], [], 0
    paints_per_key, layouts_per_key = [], []
    for i in range(mistakes):
        pause(app, think_ms / 1000)
        if rng.random() < 0.3:  # wrong: two keys first, the third one moves on
            key(Qt.Key.Key_W)
            key(Qt.Key.Key_M)
            final = Qt.Key.Key_F
        else:
            final = rng.choice([Qt.Key.Key_1, Qt.Key.Key_3])
        before = window.bridge.state.current_item()
        if os.environ.get("BENCH_DEBUG"):  # what the next mistake lacks at the key: its facts, its image
            bridge, page = window.bridge, window.page
            following = bridge.state.queue[bridge.state.row + 1].item if bridge.state.row + 1 < len(bridge.state.queue) else None
            detail = bridge.state.detail(following) if following else None
            lacks = "facts" if detail is None else (
                "" if detail.image_path is None or page.loader.cached(page.image.fit_key(detail.image_path))
                else "image")
            if lacks == "facts":  # asked for and waiting in the reader's queue, or never asked
                lacks += (" (asked" if following in bridge.state._loading else " (not asked") + \
                    f", reader queue {bridge.reader._queue.qsize()})"
            print(f"lacks {lacks or '-'}", end=" ", file=sys.stderr)
        shown.clear()
        t0, cpu0 = time.perf_counter(), time.thread_time()
        painted0, laid0 = events.paints, events.layouts
        # A real key press reaches the window through the event loop, which first runs what
        # is queued before it (worker results, zero timers): one turn, timed as part of the
        # key's latency. (QTest.keyClick delivers the key directly; without this turn a think
        # time of 0 would starve the window of its prefetched results, which no keyboard can.)
        app.processEvents()
        key(final)
        t_key = time.perf_counter()
        key_cpu.append((time.thread_time() - cpu0) * 1000)
        waited = not (shown and shown[-1] != before)
        try:
            wait_until(app, lambda: shown and shown[-1] != before, timeout=30)
        except TimeoutError:
            page = window.page
            print("DEBUG", i, before, window.bridge.state.current_item(), page._shown, page.shown_image.wanted,
                  dict(page.loader._pending), window.bridge.state.row, page.image.message,
                  window.bridge.state.current_item() in window.bridge.state.details, window.bridge.state._loading)
            raise
        t_shown = time.perf_counter()
        # Fully shown: the page has painted the new mistake (image, facts, vote).
        wait_until(app, lambda: window.page.painted_at >= shown_at[-1], timeout=30)
        latencies.append((window.page.painted_at - t0) * 1000)
        paints_per_key.append(events.paints - painted0)
        layouts_per_key.append(events.layouts - laid0)
        if os.environ.get("BENCH_DEBUG"):
            print(f"key {(t_key - t0) * 1000:.1f} shown {(t_shown - t0) * 1000:.1f} "
                  f"painted {latencies[-1]:.1f}", file=sys.stderr)
        key_handling.append((t_key - t0) * 1000)
        misses += waited
    wait_until(app, lambda: not window.bridge.state.pending, timeout=60)
    if paints is not None:  # which widgets paint, per mistake (BENCH_PAINTS=1)
        print("  thousands of pixels painted per mistake: " + ", ".join(f"{name} {n / mistakes:.0f}"
                                                         for name, n in paints.counts.most_common(15)), file=sys.stderr)
    window.close()
    ordered_cpu = sorted(key_cpu)
    print(f"  key handling on the UI thread: wall p50 {statistics.median(key_handling):.1f} ms, CPU p50 "
          f"{statistics.median(ordered_cpu):.1f} ms, CPU p95 {ordered_cpu[round(0.95 * (len(ordered_cpu) - 1))]:.1f} ms; "
          f"next mistake not yet prefetched at the key: {misses} of {mistakes}; per key until painted: "
          f"{statistics.median(paints_per_key):.0f} widget paints, {statistics.median(layouts_per_key):.0f} "
          "layouts (p50)")
    return latencies


def wait_until(app, condition, *, timeout: float) -> None:
    end = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > end:
            raise TimeoutError("the window did not show the next mistake in time")
        app.processEvents()
        time.sleep(0.0005)


def pause(app, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.002)


def decode_figures(work: Path) -> str:
    """Decode time of one enlarged image: fit to 1100x700 vs full resolution."""
    from reviewer.ui.image_loader import ImageKey, decode

    path = str(sorted((work / "large").glob("*.JPEG"))[0])
    timings = {}
    for name, key in (("fit", ImageKey(path, 1100, 700)), ("full", ImageKey(path))):
        start = time.perf_counter()
        decoded = decode(key)
        timings[name] = ((time.perf_counter() - start) * 1000, decoded.original_size)
    size = timings["full"][1]
    return (f"decode of a {size.width()}x{size.height()} JPEG: fit to view {timings['fit'][0]:.1f} ms, "
            f"full resolution {timings['full'][0]:.1f} ms")


def main() -> int:
    if os.environ.get("BENCH_NOGC"):
        import gc
        gc.disable()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mistakes", type=int, default=200)
    parser.add_argument("--think-ms", default="250,0",
                        help="pause between mistakes (a panelist looking); several, comma-separated, are run in "
                             "turn and printed side by side (default 250,0: a panelist, and keys as fast as accepted)")
    parser.add_argument("--size", default="1280x800", help="window size, e.g. 1920x1080")
    parser.add_argument("--large-share", type=float, default=0.3, help="share of images of 3000-4000 px")
    parser.add_argument("--work-dir", type=Path, help="keep the built project here (default: a temp dir)")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory(prefix="bench_review_") as tmp:
        work = args.work_dir or Path(tmp)
        os.environ.setdefault("REVIEWER_CONFIG_DIR", str(work / "config"))
        os.environ.setdefault("REVIEWER_DATA_DIR", str(work / "data"))
        project = build_project(work, large_share=args.large_share, seed=0)
        rows = []
        for think_ms in (int(v) for v in args.think_ms.split(",")):
            load_before = os.getloadavg()[0]
            latencies = sorted(drive(project, mistakes=args.mistakes, think_ms=think_ms, size=size))
            rows.append((think_ms, latencies, load_before, os.getloadavg()[0]))
        figures = decode_figures(work)
    print(f"vote key -> next mistake shown, window {args.size}, {args.large_share:.0%} images of 3000-4000 px "
          "(target p95 <= 50 ms):")
    for think_ms, ordered, load_before, load_after in rows:
        p50 = statistics.median(ordered)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        print(f"  think {think_ms:>4} ms, {len(ordered)} mistakes: p50 {p50:.1f} ms   p95 {p95:.1f} ms   "
              f"max {ordered[-1]:.1f} ms   ({'met' if p95 <= 50 else 'NOT met'}, p95/target {p95 / 50:.2f}; "
              f"load average {load_before:.1f} before, {load_after:.1f} after)")
    print(f"  {figures}")
    print(f"  machine: {os.cpu_count()} cores (other processes' load inflates the wall-clock figures)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
