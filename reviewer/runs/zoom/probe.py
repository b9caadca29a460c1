"""Run a model over the zoom grid of one image, progressively and cancellably.

The paper fixes the 324 crops, not the order they are computed in. Here a
first pass of six scales spaced about x1.5 apart (`FIRST_PASS_SCALES`: 128,
a zoom-out view of the whole image padded with black, then 192, 288, 448,
672 and the deepest zoom, 1024; all six are among the paper's scales) gives
a first answer over the whole range of framings in 54 crops. The other
scales follow farthest first (each next scale the one farthest, in log
scale, from every scale done), so each partial result covers the range
evenly instead of filling it from one end.

Measured with EfficientNet-Lite0 on 2 CPU cores (bench/bench_zoom_probe.py,
a shared VM): the first pass 0.9-1.2 s after the call for typical 500x375
images once the model has run, 1.1-1.9 s for the first probe after loading
it; the whole grid 5-6.5 s (50-65 crops/s). Other processes busy on the same
cores stretch both (first pass 2.2-2.5 s seen then).

`progress` is called on the calling thread after every batch with a
snapshot (`ZoomProgress`), which another thread may keep and read;
`should_stop` is asked before each batch is made and after each one
finishes: a stop ends the probe once the batches in flight are done (at most
one per forward stream; 0.25-0.5 s measured) and returns the partial result
without them. Crops are made lazily, one scale's resized image at a time,
while the forward streams compute the batches before them
(`models.ForwardStreams`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from itertools import islice
from typing import Callable, Iterator, Sequence

import numpy as np
import torch
from PIL import Image

from models import Classifier, LoadedModel, top_k
from reviewer.runs.zoom.grid import CROP_SIZE, FIRST_PASS_SCALES, PAPER_SCALES, GridCell, iter_crops, zoom_grid
from reviewer.runs.zoom.result import ZoomParams, ZoomResult

# One scale per batch: a partial result per scale. Batches of 9 and 18 crops ran at about the
# same rate on 2 cores (bench/bench_zoom_probe.py; 27 was slower).
DEFAULT_BATCH_SIZE = 9


@dataclass(frozen=True)
class ZoomProgress:
    """A probe's state after one batch; `result` is a snapshot, safe to keep."""

    result: ZoomResult
    done: int  # crops computed
    total: int
    first_pass_done: bool  # every crop of the first-pass scales is in
    elapsed: float  # seconds since the probe was called


def probe_order(scales: Sequence[int], first_pass: Sequence[int] = FIRST_PASS_SCALES) -> list[int]:
    """The order the scales are computed in: the first-pass scales that are among `scales`
    (in the order given), then the others farthest first in log scale (ties: the smaller
    scale). Without any first-pass scale, the middle one in log scale starts."""
    remaining = sorted(set(scales))
    order = [s for s in dict.fromkeys(first_pass) if s in remaining]
    if not order:
        middle = (math.log(remaining[0]) + math.log(remaining[-1])) / 2
        order = [min(remaining, key=lambda s: (abs(math.log(s) - middle), s))]
    remaining = [s for s in remaining if s not in order]
    distance = {s: min(abs(math.log(s) - math.log(d)) for d in order) for s in remaining}
    while distance:
        pick = max(distance, key=lambda s: (round(distance[s], 9), -s))  # ties exact despite float logs
        order.append(pick)
        del distance[pick]
        for s in distance:
            distance[s] = min(distance[s], abs(math.log(s) - math.log(pick)))
    return order


def probe(model: Classifier | LoadedModel, image: Image.Image, *, scales: Sequence[int] | None = None,
          crop_size: int = CROP_SIZE, top: int = 5, batch_size: int = DEFAULT_BATCH_SIZE,
          first_pass: Sequence[int] = FIRST_PASS_SCALES,
          progress: Callable[[ZoomProgress], None] | None = None,
          should_stop: Callable[[], bool] | None = None) -> ZoomResult:
    """The model's top-`top` classes over the zoom grid of `image` (default: the paper's 36
    scales x 9 positions). Returns the complete result, or the partial one when stopped.

    `model`: a `models.Classifier` (keep one for many probes) or a loaded model. Its
    normalisation and layout are the app's (`Classifier.predict`)."""
    if batch_size < 1:
        raise ValueError(f"batch size must be at least 1, not {batch_size}")
    classifier = model if isinstance(model, Classifier) else Classifier(model)
    params = ZoomParams(scales=tuple(sorted(set(scales if scales is not None else PAPER_SCALES))),
                        crop_size=crop_size, top_k=top)
    order = probe_order(params.scales, first_pass)
    cells = zoom_grid(image.size, order, crop_size)
    first_cells = params.grid ** 2 * len([s for s in dict.fromkeys(first_pass) if s in params.scales])
    stop = should_stop or (lambda: False)
    working = ZoomResult.empty(params, model=classifier.loaded.name, weights_sha256=classifier.loaded.weights_sha256,
                               image_size=image.size)
    started = time.perf_counter()
    done = 0
    with classifier.stream() as streams:
        for batch_cells, probs in streams.map(_batches(image, cells, batch_size, stop)):
            classes, values = top_k(probs, top)
            for cell, cell_classes, cell_probs in zip(batch_cells, classes, values):
                working.set_cell(cell.scale, cell.row, cell.col, cell_classes, cell_probs)
            done += len(batch_cells)
            if progress is not None:
                progress(ZoomProgress(result=replace(working.copy(), seconds=time.perf_counter() - started),
                                      done=done, total=len(cells), first_pass_done=done >= first_cells,
                                      elapsed=time.perf_counter() - started))
            if stop():
                break
    return replace(working, seconds=time.perf_counter() - started)


def _batches(image: Image.Image, cells: list[GridCell], batch_size: int,
             stop: Callable[[], bool]) -> Iterator[tuple[list[GridCell], torch.Tensor]]:
    crops = iter_crops(image, cells)
    for _ in range(0, len(cells), batch_size):
        if stop():
            return
        chunk = list(islice(crops, batch_size))
        # NHWC stacked by numpy (see models.pipeline.BatchLoader): the channels-last layout the model takes.
        pixels = torch.from_numpy(np.stack([pixels for _, pixels in chunk])).permute(0, 3, 1, 2)
        yield [cell for cell, _ in chunk], pixels
