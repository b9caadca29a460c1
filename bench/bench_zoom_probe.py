"""The zoom probe (reviewer.runs.zoom) on real images with the bundled EfficientNet-Lite0 on the CPU.

For each image: the time from the call to the first batch's answer, to the first
answer over the first-pass scales (target <= 2 s, model already loaded), and to
the whole 324-crop grid; crops/s; the time spent making the crops alone. The
first probe after loading the model is reported apart (oneDNN builds its kernels
then), and again in fresh processes. Also: batch size and forward streams compared on one image; how long the
main thread waits between 5 ms ticks while a probe runs on a worker thread (what
a window's event loop would feel); peak memory.

    python bench/bench_zoom_probe.py [--images 5] [--batch-sizes 9,18,27] [--streams 2,1] [--rounds 2] [--cold 3]

Needs the 1000 original sample images of the project's shared data folder:
`../shared/data/imagenet-samples` beside the clone, or `$REVIEWER_SHARED_DATA/imagenet-samples`
(not in the repository; the tests never need it, tests/data/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("REVIEWER_SHARED_DATA", REPO.parent / "shared" / "data"))
LARGE = "n02091032_Italian_greyhound.JPEG"  # 2400x1600, the largest sample


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def timed_probe(classifier, image, **options) -> dict:
    from reviewer.runs.zoom.probe import probe

    events = []
    started = time.perf_counter()
    result = probe(classifier, image, progress=events.append, **options)
    total = time.perf_counter() - started
    first_pass = next((e.elapsed for e in events if e.first_pass_done), float("nan"))
    return {"first_batch": events[0].elapsed, "first_pass": first_pass, "total": total,
            "crops": result.done, "rate": result.done / total, "result": result}


def crop_time(image) -> float:
    from reviewer.runs.zoom import iter_crops, zoom_grid

    started = time.perf_counter()
    for _ in iter_crops(image, zoom_grid(image)):
        pass
    return time.perf_counter() - started


def tick_latency(classifier, image) -> tuple[float, float, float]:
    """(p50, p99, max) ms between 5 ms sleeps of the main thread while a probe runs on another."""
    from reviewer.runs.zoom.probe import probe

    worker = threading.Thread(target=probe, args=(classifier, image))
    gaps = []
    worker.start()
    last = time.perf_counter()
    while worker.is_alive():
        time.sleep(0.005)
        now = time.perf_counter()
        gaps.append((now - last) * 1000)
        last = now
    worker.join()
    gaps.sort()
    return gaps[len(gaps) // 2], gaps[int(len(gaps) * 0.99)], gaps[-1]


def cold_probe() -> dict:
    """In this (fresh) process: load the model, time the first probe."""
    from models import Classifier, load_model
    from reviewer.runs.zoom import open_image

    image = open_image(SHARED / "imagenet-samples" / "n01440764_tench.JPEG")
    classifier = Classifier(load_model("tf_efficientnet_lite0", device="cpu"))
    run = timed_probe(classifier, image)
    return {"first_batch": run["first_batch"], "first_pass": run["first_pass"], "total": run["total"]}


def cold_runs(count: int) -> None:
    runs = []
    for _ in range(count):
        out = subprocess.run([sys.executable, __file__, "--cold-probe"], capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    fp = [r["first_pass"] for r in runs]
    print(f"\nfirst probe after the model load, {count} fresh processes (tench 500x375): first batch "
          f"{min(r['first_batch'] for r in runs):.2f}-{max(r['first_batch'] for r in runs):.2f} s, first pass "
          f"{min(fp):.2f}-{max(fp):.2f} s (target 2 s met {sum(f <= 2 for f in fp)}/{len(fp)}), full "
          f"{min(r['total'] for r in runs):.2f}-{max(r['total'] for r in runs):.2f} s")


def stop_latency(classifier, image, after: float = 2.0) -> tuple[float, int]:
    """(seconds from should_stop turning true to the probe returning, crops computed)."""
    from reviewer.runs.zoom.probe import probe

    stop = threading.Event()
    out = {}

    def work():
        out["result"] = probe(classifier, image, should_stop=stop.is_set)
        out["ended"] = time.perf_counter()

    worker = threading.Thread(target=work)
    worker.start()
    time.sleep(after)
    stop.set()
    asked = time.perf_counter()
    worker.join()
    return out["ended"] - asked, out["result"].done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", type=int, default=5, help="sample images (spread over the 1000), plus the largest")
    parser.add_argument("--batch-sizes", default="9,18,27")
    parser.add_argument("--streams", default="2,1")
    parser.add_argument("--rounds", type=int, default=2, help="repeats of the batch-size comparison")
    parser.add_argument("--cold", type=int, default=3, help="fresh processes for the first probe after a load")
    parser.add_argument("--cold-probe", action="store_true", help=argparse.SUPPRESS)  # a child process
    args = parser.parse_args()
    if args.cold_probe:
        print(json.dumps(cold_probe()))
        return

    import torch

    from models import Classifier, InferenceConfig, load_model
    from reviewer.runs.zoom import open_image
    from reviewer.runs.zoom.probe import FIRST_PASS_SCALES

    samples = sorted((SHARED / "imagenet-samples").iterdir())
    paths = samples[:: max(1, len(samples) // args.images)][: args.images] + [SHARED / "imagenet-samples" / LARGE]
    print(f"torch {torch.__version__}, {os.cpu_count()} cores, torch threads {torch.get_num_threads()}; "
          f"first pass {FIRST_PASS_SCALES} ({9 * len(FIRST_PASS_SCALES)} crops)")
    rss_start = rss_mb()
    started = time.perf_counter()
    loaded = load_model("tf_efficientnet_lite0", device="cpu")
    classifier = Classifier(loaded)
    print(f"model load {time.perf_counter() - started:.2f} s (not counted below); settings {classifier.settings()}")
    rss_model = rss_mb()

    images = [(path.name, open_image(path)) for path in paths]
    print("\nper image (default: batch 9, streams as the app's Classifier)")
    print(f"{'image':40s} {'size':>10s} {'1st batch':>9s} {'1st pass':>9s} {'full':>7s} {'crops/s':>8s} "
          f"{'crops only':>10s}  first-pass target 2 s")
    firsts, totals, rates = [], [], []
    for i, (name, image) in enumerate(images):
        run = timed_probe(classifier, image)
        label = name[:38] + (" (cold)" if i == 0 else "")
        print(f"{label:40s} {image.width:>4d}x{image.height:<5d} {run['first_batch']:8.2f}s {run['first_pass']:8.2f}s "
              f"{run['total']:6.2f}s {run['rate']:8.1f} {crop_time(image):9.2f}s  "
              f"ratio {run['first_pass'] / 2.0:.2f}")
        if i:
            firsts.append(run["first_pass"])
            totals.append(run["total"])
            rates.append(run["rate"])
    print(f"warm images: first pass median {statistics.median(firsts):.2f} s (max {max(firsts):.2f}), "
          f"full grid median {statistics.median(totals):.2f} s (max {max(totals):.2f}), "
          f"{statistics.median(rates):.1f} crops/s")
    rss_default = rss_mb()
    print(f"peak RSS {rss_default:.0f} MB: +{rss_default - rss_model:.0f} MB over the loaded model "
          f"({rss_model:.0f} MB) for these probes")

    name, image = images[0]
    print(f"\nbatch size x streams on {name} ({args.rounds} rounds each; min-max)")
    for streams in [int(s) for s in args.streams.split(",")]:
        config_classifier = Classifier(loaded, InferenceConfig(streams=streams))
        timed_probe(config_classifier, image, scales=[224])  # warm this configuration's kernels
        for batch in [int(b) for b in args.batch_sizes.split(",")]:
            runs = [timed_probe(config_classifier, image, batch_size=batch) for _ in range(args.rounds)]
            fp = [r["first_pass"] for r in runs]
            tt = [r["total"] for r in runs]
            print(f"streams {streams} batch {batch:3d}: first pass {min(fp):.2f}-{max(fp):.2f} s, "
                  f"full {min(tt):.2f}-{max(tt):.2f} s, {324 / min(tt):.1f} crops/s")

    p50, p99, worst = tick_latency(classifier, image)
    waits = [stop_latency(classifier, image, after) for after in (0.5, 1.3, 2.0, 3.1)]
    print(f"\nstop: the probe returns {min(w for w, _ in waits):.2f}-{max(w for w, _ in waits):.2f} s after "
          f"should_stop turns true (partial results of {', '.join(str(n) for _, n in waits)} crops)")
    print(f"main thread while a probe runs on a worker: 5 ms ticks arrive after p50 {p50:.1f} ms, "
          f"p99 {p99:.1f} ms, max {worst:.1f} ms")
    print(f"peak RSS: {rss_start:.0f} MB at start, {rss_model:.0f} MB with the model, {rss_default:.0f} MB after "
          f"the default probes, {rss_mb():.0f} MB after the batch/streams comparison too")
    cold_runs(args.cold)


if __name__ == "__main__":
    main()
