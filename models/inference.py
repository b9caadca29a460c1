"""Batched forward passes: uint8 images in, softmax probabilities out.

Precision is a choice a run records (`PRECISIONS`): fp32 by default on every
device, exact (on a GPU with TF32 off: cuDNN's TF32 convolutions, on by
default in torch, moved probabilities by up to 0.0029 from timm's CPU fp32
reference); tf32 allows TF32 matrix units for fp32 work; bf16 and fp16 run the
forward pass under autocast. The softmax is always computed in float32.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, TypeVar

import torch

from models.sources import LoadedModel

MAX_CPU_STREAMS = 4
PRECISIONS = ("fp32", "tf32", "bf16", "fp16")
DEFAULT_PRECISION = "fp32"
_AUTOCAST = {"bf16": torch.bfloat16, "fp16": torch.float16}
K = TypeVar("K")

# torch's thread count is process-wide: the first of concurrent stream sets saves it, the last restores it.
_threads_lock = threading.Lock()
_threads_users = 0
_threads_saved = 0


def default_batch_size(device: torch.device) -> int:
    """16 on a CPU, where it measured a third faster than 32 for tf_efficientnet_lite0
    (the activations of a smaller batch stay in cache); 128 on an accelerator (fewer
    per-batch costs in the main process: one transfer, one softmax copy, one commit)."""
    return 16 if device.type == "cpu" else 128


def padded_batch_size(device: torch.device, batch_size: int) -> int | None:
    """The size every batch is padded to on `device` (`InferenceConfig.pad_to`): the run's
    batch size on an accelerator, so that a run's last, smaller batch (or a resumed run's
    remnants) is not a new shape to select kernels for; None on a CPU, where no padding
    is needed (no kernel search, and blank rows would cost their compute)."""
    return batch_size if device.type != "cpu" else None


def set_tf32(enabled: bool) -> None:
    """TF32 for fp32 matrix products and convolutions on CUDA, on or off (process-wide).
    torch's newer `fp32_precision` settings where they exist: it refuses a mix of both APIs."""
    matmul = torch.backends.cuda.matmul
    conv = getattr(torch.backends.cudnn, "conv", None)
    if hasattr(matmul, "fp32_precision") and conv is not None and hasattr(conv, "fp32_precision"):
        matmul.fp32_precision = conv.fp32_precision = "tf32" if enabled else "ieee"
    else:
        matmul.allow_tf32 = enabled
        torch.backends.cudnn.allow_tf32 = enabled


def check_precision(precision: str) -> str:
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    return precision


def default_streams(device: torch.device) -> int:
    """Batches computed at once: on a CPU one per torch thread, at most 4; one on an accelerator.

    On 2 cores, two single-threaded forward passes of tf_efficientnet_lite0
    (batch 16) computed 80 images/s where one two-threaded pass computed 62:
    the OpenMP barriers between the ops of one small batch cost a quarter of
    its core time, and independent batches need none. Whole runs gain less
    (paired rounds: 66.6 against 62.3 images/s, medians), because the decoding
    threads had run in those barrier waits and now take core time of their own."""
    if device.type != "cpu":
        return 1
    return max(1, min(MAX_CPU_STREAMS, torch.get_num_threads()))


@dataclass(frozen=True)
class InferenceConfig:
    # None: on CPU only, where it measured twice the throughput of
    # tf_efficientnet_lite0 (oneDNN's depthwise convolutions prefer NHWC).
    # On a GPU only with bf16/fp16 autocast (tensor-core convolutions take NHWC).
    channels_last: bool | None = None
    streams: int | None = None  # None: default_streams(device)
    precision: str = DEFAULT_PRECISION  # one of PRECISIONS
    # Smaller batches (a run's last, a resumed run's remnants) padded to this size with blank
    # images, so an accelerator sees one batch shape: on an H200, Lite0 in bf16 channels-last
    # spent about 2 s on kernel selection at its first batch shape, and a run's smaller last
    # batch looked like a second such stall (not measured apart). None: no padding.
    pad_to: int | None = None


class Classifier:
    """A loaded model with its normalisation, ready for `predict(pixels)`."""

    def __init__(self, loaded: LoadedModel, config: InferenceConfig | None = None):
        config = config or InferenceConfig()
        self.loaded = loaded
        self.device = loaded.device
        self.precision = check_precision(config.precision)
        self.autocast = _AUTOCAST.get(self.precision)
        if config.channels_last is not None:
            self.channels_last = config.channels_last
        else:
            self.channels_last = self.device.type == "cpu" or (self.device.type == "cuda" and self.autocast is not None)
        if self.device.type == "cuda":
            # cudnn.benchmark stays as torch has it (off): on an H200 its search cost Lite0 in bf16
            # channels-last 3 s before the first batch and again at the smaller last batch.
            set_tf32(self.precision == "tf32")
        self.streams = config.streams if config.streams is not None else default_streams(self.device)
        self.pad_to = config.pad_to
        if self.streams < 1:
            raise ValueError(f"streams must be at least 1, not {self.streams}")
        self.model = loaded.model.eval().to(self.device)  # loaded with move=False: moved here
        if self.channels_last:
            self.model = self.model.to(memory_format=torch.channels_last)
        # The transform stops at uint8 (0..255): fold timm's /255 into mean and std.
        shape = (1, 3, 1, 1)
        self.mean = torch.tensor(loaded.data_config["mean"], device=self.device).view(shape) * 255
        self.std = torch.tensor(loaded.data_config["std"], device=self.device).view(shape) * 255

    def settings(self) -> dict[str, Any]:
        threads = torch.get_num_threads()
        return {"channels_last": self.channels_last, "streams": self.streams,
                "threads": threads if self.streams == 1 else max(1, threads // self.streams),
                "precision": self.precision}

    def stream(self) -> "ForwardStreams":
        """`with classifier.stream() as s: for key, probs in s.map(items)`: `streams` batches at once."""
        return ForwardStreams(self)

    def predict(self, pixels: torch.Tensor) -> torch.Tensor:
        """Softmax probabilities, float32 [B, 1000] on the CPU, for a uint8 [B, 3, H, W] batch."""
        with torch.inference_mode():
            # Reorder the uint8 input (4x smaller than the float), if it is not in the model's layout:
            # on an accelerator after the copy (from pinned memory, as it is), on a CPU before the float.
            layout = torch.channels_last if self.channels_last else torch.contiguous_format
            if self.device.type == "cpu":
                pixels = pixels.contiguous(memory_format=layout)
            x = pixels.to(self.device, non_blocking=True).contiguous(memory_format=layout).float()
            count = len(x)
            if self.pad_to is not None and count < self.pad_to:
                blank = torch.zeros((self.pad_to - count, *x.shape[1:]), dtype=x.dtype, device=x.device)
                x = torch.cat([x, blank]).contiguous(memory_format=layout)
            x.sub_(self.mean).div_(self.std)
            if self.autocast is None:
                logits = self.model(x)
            else:
                with torch.autocast(self.device.type, dtype=self.autocast):
                    logits = self.model(x)
            return logits[:count].float().softmax(-1).cpu()


class ForwardStreams:
    """Forward passes of up to `classifier.streams` batches at once, each on a
    thread of its own with its share of torch's threads; results come back in
    input order. Inside the `with` block torch's thread count is the per-stream
    share (it is process-wide state, restored on exit), so the streams together
    use the cores torch would have used for one batch."""

    def __init__(self, classifier: Classifier):
        self.classifier = classifier
        self.streams = classifier.streams
        self._pool: ThreadPoolExecutor | None = None

    def __enter__(self) -> "ForwardStreams":
        global _threads_users, _threads_saved
        with _threads_lock:
            if _threads_users == 0:
                _threads_saved = torch.get_num_threads()
            _threads_users += 1
            if self.streams > 1:
                # Read by each new stream thread at its first parallel op (and set on this one).
                torch.set_num_threads(max(1, _threads_saved // self.streams))
        self._pool = ThreadPoolExecutor(self.streams, thread_name_prefix="forward")
        return self

    def __exit__(self, *exc_info) -> None:
        """Waits for the batches in flight (at most `streams`), then restores torch's threads."""
        global _threads_users
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        with _threads_lock:
            _threads_users -= 1
            if _threads_users == 0:
                torch.set_num_threads(_threads_saved)

    def map(self, items: Iterable[tuple[K, torch.Tensor | None]]) -> Iterator[tuple[K, torch.Tensor | None]]:
        """(key, softmax probabilities) for each (key, uint8 batch), in order; an empty or
        missing batch gives None. Takes the next item only when a stream is free."""
        return self.map_models((key, self.classifier, pixels) for key, pixels in items)

    def map_models(self, items: Iterable[tuple[K, "Classifier", torch.Tensor | None]]
                   ) -> Iterator[tuple[K, torch.Tensor | None]]:
        """As `map`, each batch through the classifier it names (several models over the
        same decoded batches; they share the streams, so give them the same settings)."""
        if self._pool is None:
            raise RuntimeError("ForwardStreams.map outside its `with` block")
        pending: deque[tuple[K, Future[torch.Tensor | None]]] = deque()
        for key, classifier, pixels in items:
            if pixels is None or len(pixels) == 0:
                done: Future[torch.Tensor | None] = Future()
                done.set_result(None)
                pending.append((key, done))
            else:
                pending.append((key, self._pool.submit(classifier.predict, pixels)))
            while len(pending) >= self.streams or (pending and pending[0][1].done()):
                key_done, future = pending.popleft()
                yield key_done, future.result()
        while pending:
            key_done, future = pending.popleft()
            yield key_done, future.result()
