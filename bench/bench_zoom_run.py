"""`reviewer zoom`'s probe of many mistakes (reviewer.runs.zoom.batched) with the bundled
EfficientNet-Lite0: crops/s and mistakes/min, against the window's one-mistake probe
(reviewer.runs.zoom.probe) over the same images, and the time making the crops takes alone.

    python bench/bench_zoom_run.py [--images 6] [--batch-sizes 9,18,36] [--device cpu] [--rounds 1]

Uses the demo's real images (assets/demo/images, about 500 px on the longer side, as the demo
project's mistakes are): nothing beside the clone is needed. A mistake is 324 crops (36 scales x
3 x 3, Taesiri et al. 2023); mistakes/min = 60 x crops/s / 324. Paired per round: each setting
runs once per round, in turn, so load from other processes falls on all alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def batched_rate(classifier, files, batch_size: int, workers: int | None) -> float:
    from reviewer.runs.zoom.batched import ProbeJob, probe_images

    started = time.perf_counter()
    crops = sum(d.computed for d in probe_images(classifier, [ProbeJob(f, f) for f in files], batch_size=batch_size,
                                                 workers=workers))
    return crops / (time.perf_counter() - started)


def single_rate(classifier, files) -> float:
    from reviewer.runs.zoom import open_image
    from reviewer.runs.zoom.probe import probe

    started = time.perf_counter()
    crops = sum(probe(classifier, open_image(f)).done for f in files)
    return crops / (time.perf_counter() - started)


def crops_alone(files) -> float:
    """Seconds per image to decode it and make its 324 crops, on this thread alone."""
    import numpy as np

    from reviewer.runs.zoom import iter_crops, open_image, zoom_grid

    started = time.perf_counter()
    for f in files:
        image = open_image(f)
        np.stack([pixels for _, pixels in iter_crops(image, zoom_grid(image))])
    return (time.perf_counter() - started) / len(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=6)
    parser.add_argument("--batch-sizes", default="9,18,36")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()

    from models import Classifier, load_model

    files = sorted((REPO / "assets" / "demo" / "images").iterdir())[:: max(1, 300 // args.images)][:args.images]
    classifier = Classifier(load_model("tf_efficientnet_lite0", device=args.device))
    print(f"{len(files)} demo images, tf_efficientnet_lite0 on {classifier.device}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at the start; {classifier.settings()}")
    batched_rate(classifier, files[:1], 18, args.workers)  # warm-up: oneDNN builds its kernels
    sizes = [int(s) for s in args.batch_sizes.split(",")]
    rates: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for size in sizes:
            rates.setdefault(f"batched, batches of {size}", []).append(
                batched_rate(classifier, files, size, args.workers))
        if classifier.device.type == "cpu":
            rates.setdefault("one mistake at a time (the window's probe)", []).append(single_rate(classifier, files))
    single = statistics.median(rates.get("one mistake at a time (the window's probe)", [float("nan")]))
    for name, values in rates.items():
        rate = statistics.median(values)
        print(f"{name:45} {rate:7.1f} crops/s  {60 * rate / 324:6.1f} mistakes/min  "
              f"x{rate / single:.2f} of one at a time")
    print(f"decoding and making the 324 crops of one image alone: {crops_alone(files):.2f} s; "
          f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
