"""The zoom probe over many images in large batches (`reviewer zoom P --run N`).

`probe.probe` serves one mistake in the window: batches of one scale, a partial
result after each. Probing all of a run's mistakes wants throughput instead
(Taesiri et al. 2023, §4.4.1: ImageNet-Hard keeps an image "only if none of the
324 versions are correctly classified", so every mistake needs its whole grid):

- each image is decoded as a run decodes it (`grid.open_image`:
  `models.pipeline.decode_image`, same checks and errors) and its crops made
  (`grid.iter_crops`: the paper's resize, anchors and zero padding) by a pool of
  threads, a few images ahead, at the priority of a run's decoding threads;
- the crops of consecutive images fill batches of `batch_size` (a batch may hold
  the end of one image and the start of the next), which go through
  `models.ForwardStreams` as a run's batches do;
- each image's result is handed back, in the order of the jobs, as soon as its
  last crop is in.

A job may start from a result already stored (its computed cells are kept and
only the missing ones computed) and may compute only some of the scales
(`compute`, e.g. the probe's first pass): its result then stays partial.
`should_stop` is asked before each batch is made; a stop hands back every
started image with what was computed of it (partial), and nothing of the
images not started.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import torch

from models import Classifier, ImageDecodeError, top_k
from reviewer.runs.zoom.grid import CROP_SIZE, PAPER_SCALES, GridCell, iter_crops, open_image, zoom_grid
from reviewer.runs.zoom.probe import probe_order
from reviewer.runs.zoom.result import ZoomParams, ZoomResult

# Crops per forward pass. On 2 CPU cores with two single-threaded forward streams, tf_efficientnet_lite0
# computed about as many crops/s at 9 and 18 (bench/bench_zoom_run.py: medians 79 and 74 crops/s at a load
# of 2-3, 56 and 55 at 3.5-4.5), as fast as the window's probe of one mistake: on a CPU the forward pass is
# the cost. 9 is one scale of one image, the window's batch. On an accelerator a whole image's grid per
# pass (its per-batch costs are fixed; not measured here: no GPU in this session).
CPU_BATCH_SIZE = 9
ACCELERATOR_BATCH_SIZE = 324
CROP_NICENESS = 10  # where the idle class is refused


def default_batch_size(device: torch.device) -> int:
    return CPU_BATCH_SIZE if device.type == "cpu" else ACCELERATOR_BATCH_SIZE


def default_workers(device: torch.device) -> int:
    """Threads making crops: one on a CPU (there the forward passes take the cores, and one
    image's 324 crops take a small fraction of its forward time), else one per usable core
    up to 8 (an accelerator computes a grid faster than one thread makes it)."""
    if device.type == "cpu":
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, min(8, cores))


@dataclass(frozen=True)
class ProbeJob:
    """One image to probe: `key` is the caller's (handed back as it is), `path` its file,
    `start` a result of the same parameters and model whose computed cells are kept."""

    key: Any
    path: Path | None
    start: ZoomResult | None = None


@dataclass(frozen=True)
class ProbeDone:
    """One job's outcome: its result (None when the image could not be used: `error` says why),
    the crops computed for it in this call, and whether it was stopped before its last crop."""

    key: Any
    result: ZoomResult | None
    computed: int = 0
    error: str | None = None
    stopped: bool = False


@dataclass(eq=False)
class _Image:
    job: ProbeJob
    result: ZoomResult | None = None
    cells: list[GridCell] = field(default_factory=list)
    crops: np.ndarray | None = None  # uint8 [len(cells), H, W, 3]
    error: str | None = None
    remaining: int = 0  # crops not yet answered
    # Its share of the time between batch results (crops are made meanwhile, on other threads).
    seconds: float = 0.0


def _lower_priority() -> None:
    """A crop-making thread yields its core to the forward passes: the idle class on Linux,
    as a run's decoding threads (`models.pipeline`); elsewhere nothing (there both calls
    would act on the whole process)."""
    if not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    try:
        os.sched_setscheduler(thread, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        try:
            os.setpriority(os.PRIO_PROCESS, thread, CROP_NICENESS)
        except OSError:
            pass


def _prepare(job: ProbeJob, params: ZoomParams, order: Sequence[int], model: str, weights: str | None) -> _Image:
    """Decode the job's image and make the crops it still lacks (on a worker thread)."""
    item = _Image(job)
    try:
        picture = open_image(job.path) if job.path is not None else None
    except ImageDecodeError as exc:
        item.error = str(exc)
        return item
    if picture is None:
        item.error = "the project has no file for this image"
        return item
    start = job.start
    if start is not None and (start.params != params or start.image_size != tuple(picture.size)):
        start = None  # another grid or another file: begin afresh
    result = start.copy() if start is not None else ZoomResult.empty(params, model=model, weights_sha256=weights,
                                                                     image_size=picture.size)
    computed = result.computed
    cells = [cell for cell in zoom_grid(picture.size, order, params.crop_size)
             if not computed[result.scale_index(cell.scale), cell.row, cell.col]]
    item.result, item.cells = result, cells
    if cells:
        item.crops = np.stack([pixels for _, pixels in iter_crops(picture, cells)])
    item.remaining = len(cells)
    return item


def probe_images(classifier: Classifier, jobs: Iterable[ProbeJob], *, scales: Sequence[int] | None = None,
                 compute: Sequence[int] | None = None, crop_size: int = CROP_SIZE, top: int = 5,
                 batch_size: int | None = None, workers: int | None = None,
                 should_stop: Callable[[], bool] | None = None) -> Iterator[ProbeDone]:
    """Each job's result over the zoom grid of `scales` (default the paper's 36), in the jobs'
    order; only the cells of `compute` (default: all of `scales`) are computed, in the probe's
    order (`probe.probe_order`: its first-pass scales first). See the module docstring."""
    params = ZoomParams(scales=tuple(sorted(set(scales if scales is not None else PAPER_SCALES))),
                        crop_size=crop_size, top_k=top)
    wanted = sorted(set(compute if compute is not None else params.scales))
    if not set(wanted) <= set(params.scales):
        raise ValueError(f"scales to compute {wanted} are not all among the probe's scales {params.scales}")
    order = probe_order(wanted)
    size = batch_size or default_batch_size(classifier.device)
    if size < 1:
        raise ValueError(f"batch size must be at least 1, not {size}")
    threads = workers or default_workers(classifier.device)
    stop = should_stop or (lambda: False)
    model, weights = classifier.loaded.name, classifier.loaded.weights_sha256
    pending_jobs = iter(jobs)
    in_order: deque[_Image] = deque()  # started images not yet handed back, in the jobs' order
    stopped = False

    with ThreadPoolExecutor(threads, thread_name_prefix="zoom-crops", initializer=_lower_priority) as pool:
        prepared: deque[Future[_Image]] = deque()

        def refill() -> None:
            while len(prepared) < threads + 1:
                job = next(pending_jobs, None)
                if job is None:
                    return
                prepared.append(pool.submit(_prepare, job, params, order, model, weights))

        def batches() -> Iterator[tuple[list[tuple[_Image, GridCell]], torch.Tensor]]:
            nonlocal stopped
            keys: list[tuple[_Image, GridCell]] = []
            parts: list[np.ndarray] = []
            refill()
            while prepared:
                image = prepared.popleft().result()
                refill()
                in_order.append(image)
                at, count = 0, len(image.cells)
                while at < count:
                    take = min(size - len(keys), count - at)
                    keys += [(image, cell) for cell in image.cells[at:at + take]]
                    parts.append(image.crops[at:at + take])
                    at += take
                    if len(keys) == size:
                        if stop():
                            stopped = True
                            return
                        yield keys, _tensor(parts)
                        keys, parts = [], []
                image.crops = None  # its pixels are in the batches now
                if stop():
                    stopped = True
                    return
            if keys:
                yield keys, _tensor(parts)

        with classifier.stream() as streams:
            last = time.perf_counter()
            for keys, probs in streams.map(batches()):
                classes, values = top_k(probs, top)
                now = time.perf_counter()
                share = (now - last) / len(keys)  # the time since the last batch, shared by its crops
                last = now
                for (image, cell), cell_classes, cell_probs in zip(keys, classes, values):
                    image.result.set_cell(cell.scale, cell.row, cell.col, cell_classes, cell_probs)
                    image.remaining -= 1
                    image.seconds += share
                while in_order and in_order[0].remaining == 0:
                    yield _done(in_order.popleft())
        for future in prepared:  # images made ahead but not started: none of their crops ran
            future.cancel()
    while in_order:
        image = in_order.popleft()
        yield _done(image, stopped=stopped and image.remaining > 0)


def _done(image: _Image, *, stopped: bool = False) -> ProbeDone:
    if image.error is not None:
        return ProbeDone(image.job.key, None, error=image.error)
    computed = len(image.cells) - image.remaining
    result = image.result
    return ProbeDone(image.job.key, replace(result, seconds=result.seconds + image.seconds), computed=computed,
                     stopped=stopped)


def _tensor(parts: list[np.ndarray]) -> torch.Tensor:
    """NHWC stacked by numpy (as `models.pipeline` does: the channels-last layout the model takes), viewed NCHW."""
    pixels = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return torch.from_numpy(np.ascontiguousarray(pixels)).permute(0, 3, 1, 2)
