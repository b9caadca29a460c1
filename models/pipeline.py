"""Image files to batches of model input, decoded in background threads while
the model computes.

The transform is timm's own eval transform for the model's data config
(`create_transform(..., use_prefetcher=True)`: resize, crop, uint8 tensor);
normalisation happens on the whole batch on the model's device, as timm's
prefetch loader does. By default the pixels are exactly timm's: the model's
probabilities equal those of `create_transform(**resolve_data_config(model=m))`
up to float rounding. `PipelineConfig.draft` (`reviewer predict
--fast-decode`) decodes large JPEGs at a reduced scale instead (PIL's draft
mode: DCT scaling by 1/2 to 1/8, never below the resize size); it is faster on
large files but not timm's pixels (on the 1000 sample images, 25 images'
probabilities move by more than 0.01, up to 0.11), so a run records it. Threads, not processes: PIL releases the GIL while
decoding and resizing, nothing is copied between processes, and it is safe
inside a GUI (no fork of a Qt process). On Linux the decoding threads run in
the SCHED_IDLE class: a model thread that wakes up takes its core back at
once, so a forward pass's parallel regions do not wait on a core that a
decoder holds. Decoding threads run no torch op (see `_load`). Measured on 2
cores with one two-threaded forward stream (bench/bench_predict.py, paired
rounds): 0.85 of the forward-only rate with SCHED_IDLE, 0.83 at normal
priority. With the default single-threaded streams on a CPU
(`models.inference.default_streams`) the cores are always busy with forward
passes or decoding, so a run reaches about F / (F + D) of the forward-only
rate (F: the forward pass's core time per image, D: decoding's CPU time).

On a machine with many cores (`PROCESS_DECODING_CORES` or more usable) the
threads stop scaling: timm's transform holds the GIL between PIL calls, so 16
threads decode far less than 16 processes (on an H200 machine with 16 cores:
590 against 1,572 images/s). There `create_batch_loader` decodes in worker
processes instead (`ProcessBatchLoader`: torch's DataLoader, whole batches
collated in the workers, pinned memory for an accelerator), with exactly the
same pixels. `PipelineConfig.decoder` forces one or the other.

Bad files never stop a run: `decode_image` turns every failure into an
`ImageDecodeError` whose reason goes into the run's report.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import warnings
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import torch
from PIL import Image, UnidentifiedImageError
from timm.data import create_transform

# Images above PIL's limit are skipped with a reason (below), so its warning is noise.
warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)

DECODE_NICENESS = 10  # where the idle class is refused
# Usable cores from which decoding runs in worker processes by default (below: threads).
PROCESS_DECODING_CORES = 8
DECODERS = ("auto", "threads", "processes")
Transform = Callable[[Image.Image], torch.Tensor]


class ImageDecodeError(Exception):
    """An image that cannot be used; str(error) is the reason shown to the user."""


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@dataclass(frozen=True)
class PipelineConfig:
    batch_size: int = 32
    # Decoding threads, or worker processes with decoder "processes"; None: threads, one per
    # core, at most 4; processes, one per usable core.
    num_workers: int | None = None
    prefetch_batches: int | None = None  # batches decoded ahead; None: num_workers + 1
    # auto: worker processes on a machine with PROCESS_DECODING_CORES usable cores or more, else threads
    decoder: str = "auto"
    pin_memory: bool = False  # page-locked batches, for non-blocking copies to an accelerator
    # JPEG draft mode (DCT scaling) for images much larger than the input: faster, but not
    # timm's exact pixels, so off unless asked for (`reviewer predict --fast-decode`).
    draft: bool = False
    max_pixels: int | None = None  # None: PIL's decompression-bomb limit
    low_priority: bool = True  # decoding threads yield the CPU to the model (Linux: SCHED_IDLE)

    def uses_processes(self) -> bool:
        if self.decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {', '.join(DECODERS)}, not {self.decoder!r}")
        if self.decoder == "auto":
            return usable_cores() >= PROCESS_DECODING_CORES
        return self.decoder == "processes"

    def workers(self) -> int:
        if self.num_workers is not None:
            return self.num_workers
        if self.uses_processes():
            return usable_cores()
        return max(1, min(4, os.cpu_count() or 1))

    def prefetch(self) -> int:
        return self.prefetch_batches if self.prefetch_batches is not None else self.workers() + 1


@dataclass
class ImageBatch:
    """Decoded images of one batch: `positions` index the loader's input sequence."""

    positions: list[int]
    pixels: torch.Tensor  # uint8 [len(positions), 3, H, W], channels-last in memory
    failures: list[tuple[int, str]] = field(default_factory=list)  # (position, reason)

    def pin_memory(self) -> "ImageBatch":
        """The batch in page-locked memory (torch's DataLoader calls this with pin_memory=True)."""
        nhwc = self.pixels.permute(0, 2, 3, 1)  # contiguous: pinned as it is, then viewed as NCHW again
        return ImageBatch(self.positions, nhwc.pin_memory().permute(0, 3, 1, 2), self.failures)


def create_batch_loader(paths: Sequence[str | Path | None], data_config: dict[str, Any],
                        config: PipelineConfig | None = None) -> "BatchLoader | ProcessBatchLoader":
    """The loader `config` asks for: decoding threads, or worker processes on many cores."""
    config = config or PipelineConfig()
    if config.uses_processes():
        return ProcessBatchLoader(paths, data_config, config)
    return BatchLoader(paths, data_config, config)


def create_image_transform(data_config: dict[str, Any]) -> Transform:
    """timm's eval transform for a data config, ending in a uint8 CHW tensor."""
    return create_transform(**data_config, is_training=False, use_prefetcher=True)


def draft_size(data_config: dict[str, Any]) -> int:
    """The size the eval transform resizes to first (before the crop)."""
    size = max(data_config["input_size"][1:])
    crop_pct = data_config.get("crop_pct") or 1.0
    return math.ceil(size / crop_pct)


def to_rgb(image: Image.Image) -> Image.Image:
    """RGB for any PIL mode: grayscale, CMYK, palette, 16-bit, transparent (on white)."""
    if image.mode == "RGB":
        return image
    if image.mode.startswith("I") or image.mode == "F":  # 16/32-bit grayscale, float
        values = np.asarray(image, dtype=np.float32)
        if values.max(initial=0) > 255:
            values = values / 257.0
        image = Image.fromarray(np.clip(np.rint(values), 0, 255).astype(np.uint8), "L")
    if image.mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    if image.mode in ("RGBA", "LA", "PA", "RGBa", "La"):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB")


def decode_image(path: str | Path | None, transform: Transform, *, draft_to: int | None = None,
                 max_pixels: int | None = None) -> torch.Tensor:
    """One image file as the model's uint8 input tensor; raises ImageDecodeError."""
    if path is None:
        raise ImageDecodeError("the project has no file for this image")
    limit = max_pixels or Image.MAX_IMAGE_PIXELS
    try:
        with Image.open(path) as image:
            width, height = image.size
            if limit and width * height > limit:
                raise ImageDecodeError(f"too large to decode safely: {width}x{height} pixels "
                                       f"(limit {limit:,}, a possible decompression bomb)")
            if draft_to:
                # DCT scaling by 1/2, 1/4 or 1/8 while keeping both sides >= draft_to:
                # a no-op unless the image is at least twice the resize target.
                image.draft("RGB", (draft_to, draft_to))
            image.load()
            rgb = to_rgb(image)
        return transform(rgb)
    except ImageDecodeError:
        raise
    except Image.DecompressionBombError as exc:
        raise ImageDecodeError(f"too large to decode safely ({exc})") from exc
    except FileNotFoundError as exc:
        raise ImageDecodeError(f"file not found: {path}") from exc
    except PermissionError as exc:
        raise ImageDecodeError(f"file not readable (permission denied): {path}") from exc
    except IsADirectoryError as exc:
        raise ImageDecodeError(f"is a directory, not an image file: {path}") from exc
    except UnidentifiedImageError as exc:
        raise ImageDecodeError("not an image file (unknown or damaged format)") from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageDecodeError(f"corrupt or truncated image ({exc})") from exc


def _lower_priority() -> None:
    """Put the calling decoding thread in the idle class, or at least nice it
    (Linux only: there both act on the thread; elsewhere they would act on the process)."""
    if not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    try:
        os.sched_setscheduler(thread, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        try:
            os.setpriority(os.PRIO_PROCESS, thread, DECODE_NICENESS)
        except OSError:
            pass


class BatchLoader:
    """Iterate over batches of decoded images, `prefetch` batches ahead.

    Closing the iterator (or the loader) drops batches not yet started, so a
    cancelled run stops after the batches already being decoded.
    """

    def __init__(self, paths: Sequence[str | Path | None], data_config: dict[str, Any],
                 config: PipelineConfig | None = None):
        self.paths = paths
        self.config = config or PipelineConfig()
        self.transform = create_image_transform(data_config)
        self.draft_to = draft_size(data_config) if self.config.draft else None
        self.input_shape = tuple(data_config["input_size"])
        self._pool: ThreadPoolExecutor | None = None

    def __len__(self) -> int:
        return math.ceil(len(self.paths) / self.config.batch_size)

    def start(self) -> "BatchLoader":
        """Begin decoding the first `prefetch` batches (iterating starts them if not): a run
        starts it before its model is moved and prepared, so the first batch waits less."""
        if self._pool is None:
            size = self.config.batch_size
            self._starts = iter(range(0, len(self.paths), size))
            self._pool = ThreadPoolExecutor(self.config.workers(), thread_name_prefix="decode",
                                            initializer=_lower_priority if self.config.low_priority else None)
            self._pending: deque[Future[ImageBatch]] = deque()
            for start in self._starts:
                self._pending.append(self._pool.submit(self._load, start, start + size))
                if len(self._pending) >= self.config.prefetch():
                    break
        return self

    def __iter__(self) -> Iterator[ImageBatch]:
        self.start()
        size, starts, pending = self.config.batch_size, self._starts, self._pending
        try:
            while pending:
                batch = pending.popleft().result()
                start = next(starts, None)
                if start is not None:
                    pending.append(self._pool.submit(self._load, start, start + size))
                yield batch
        finally:
            self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _load(self, start: int, stop: int) -> ImageBatch:
        return _decode_batch(self, range(start, min(stop, len(self.paths))))


class _Decoder:
    """What decoding one image needs; picklable, so a worker process can hold it."""

    def __init__(self, paths: Sequence[str | Path | None], data_config: dict[str, Any], config: PipelineConfig):
        self.paths = [str(p) if p is not None else None for p in paths]
        self.config = config
        self.transform = create_image_transform(data_config)
        self.draft_to = draft_size(data_config) if config.draft else None
        self.input_shape = tuple(data_config["input_size"])


def _decode_batch(source: "BatchLoader | _Decoder", positions_wanted: Iterable[int]) -> ImageBatch:
    """Decode the images at these positions of `source.paths` into one batch."""
    positions, images, failures = [], [], []
    for position in positions_wanted:
        try:
            image = decode_image(source.paths[position], source.transform, draft_to=source.draft_to,
                                 max_pixels=source.config.max_pixels)
            images.append(image.permute(1, 2, 0).numpy())  # HWC: a view of the decoded pixels
            positions.append(position)
        except ImageDecodeError as exc:
            failures.append((position, str(exc)))
    if not images:
        return ImageBatch(positions, torch.empty((0, *source.input_shape), dtype=torch.uint8), failures)
    # Stacked by numpy, not torch: a torch copy this size runs in parallel, and an
    # OpenMP parallel region started on a decoding thread gives it a team of its own,
    # so the process holds more OpenMP threads than cores and every thread of the
    # model's team then sleeps at each barrier instead of spinning (12,000 futex
    # waits per 1000 images on 2 cores).
    # The NHWC stack is also the channels-last layout the model takes on a CPU.
    pixels = torch.from_numpy(np.stack(images)).permute(0, 3, 1, 2)
    return ImageBatch(positions=positions, pixels=pixels, failures=failures)


class _BatchDataset(torch.utils.data.Dataset):
    """Item i: the whole batch i (decoded and stacked in the worker, so one tensor crosses
    the process boundary per batch, through shared memory)."""

    def __init__(self, decoder: _Decoder, batch_size: int):
        self.decoder, self.batch_size = decoder, batch_size

    def __len__(self) -> int:
        return math.ceil(len(self.decoder.paths) / self.batch_size)

    def __getitem__(self, index: int) -> ImageBatch:
        start = index * self.batch_size
        return _decode_batch(self.decoder, range(start, min(start + self.batch_size, len(self.decoder.paths))))


def _worker_started(_worker_id: int) -> None:
    """Decoding processes yield the CPU to the model's and the main process's threads."""
    try:
        os.nice(DECODE_NICENESS)
    except (AttributeError, OSError):
        pass


def _first(items: list[ImageBatch]) -> ImageBatch:
    return items[0]


class ProcessBatchLoader:
    """Batches decoded in worker processes (torch's DataLoader), in order, `prefetch`
    batches ahead in all; pinned when `config.pin_memory`. The same pixels as
    `BatchLoader`. Workers are forked on Linux (no re-import of torch in each; from a
    fork server in a Qt process): start it before the process starts threads or an
    accelerator context where possible, as `reviewer.runs.compute` does. Closing it
    (or the iterator) stops the workers."""

    def __init__(self, paths: Sequence[str | Path | None], data_config: dict[str, Any],
                 config: PipelineConfig | None = None):
        self.paths = paths
        self.config = config or PipelineConfig(decoder="processes")
        self.decoder = _Decoder(paths, data_config, self.config)
        self._iterator = None

    def __len__(self) -> int:
        return math.ceil(len(self.paths) / self.config.batch_size)

    def start(self) -> "ProcessBatchLoader":
        """Start the workers (they decode ahead from here on); iterating starts them if not."""
        if self._iterator is None:
            workers = max(1, self.config.workers())
            context = None  # the platform's default elsewhere
            if sys.platform.startswith("linux"):
                # fork: workers start at once, torch already imported. Not a Qt process
                # (the window's threads could hold a lock at the fork): there a fork server.
                context = "forkserver" if "PySide6.QtCore" in sys.modules else "fork"
            loader = torch.utils.data.DataLoader(
                _BatchDataset(self.decoder, self.config.batch_size), batch_size=1, collate_fn=_first,
                num_workers=workers, pin_memory=self.config.pin_memory,
                prefetch_factor=max(2, math.ceil(self.config.prefetch() / workers)),
                worker_init_fn=_worker_started if self.config.low_priority else None,
                multiprocessing_context=context)
            self._iterator = iter(loader)
        return self

    def __iter__(self) -> Iterator[ImageBatch]:
        self.start()
        try:
            yield from self._iterator
        finally:
            self.close()

    def close(self) -> None:
        iterator, self._iterator = self._iterator, None
        shutdown = getattr(iterator, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()
