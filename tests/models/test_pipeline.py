"""Decoding and batching: timm's preprocessing, draft mode, and every kind of bad image."""

from __future__ import annotations

import os
import struct
import zlib

import numpy as np
import pytest
import torch
from PIL import Image
from timm.data import create_transform

from models import BatchLoader, ImageDecodeError, PipelineConfig, decode_image
from models.pipeline import create_image_transform, draft_size

CONFIG = {"input_size": (3, 224, 224), "interpolation": "bicubic", "mean": (0.5, 0.5, 0.5),
          "std": (0.5, 0.5, 0.5), "crop_pct": 0.875, "crop_mode": "center"}


@pytest.fixture(scope="module")
def sample(shared_data):
    return shared_data / "imagenet-samples" / "n01440764_tench.JPEG"


def test_uint8_transform_normalised_on_the_batch_equals_timms_transform(sample):
    pixels = decode_image(sample, create_image_transform(CONFIG))
    assert pixels.dtype == torch.uint8 and pixels.shape == (3, 224, 224)
    normalised = (pixels.float() - 127.5) / 127.5
    expected = create_transform(**CONFIG)(Image.open(sample).convert("RGB"))
    assert torch.allclose(normalised, expected, atol=1e-5)


def test_draft_mode_decodes_large_jpegs_small_with_the_same_result(tmp_path, sample):
    big = tmp_path / "big.JPEG"
    Image.open(sample).convert("RGB").resize((2000, 1500), Image.BICUBIC).save(big, quality=95)
    transform = create_image_transform(CONFIG)
    assert draft_size(CONFIG) == 256
    drafted = decode_image(big, transform, draft_to=256).float()
    full = decode_image(big, transform).float()
    assert drafted.shape == full.shape
    assert (drafted - full).abs().mean() < 3  # of 255: the same picture
    with Image.open(big) as image:  # 1/4 scale keeps both sides >= 256: 500x375
        image.draft("RGB", (256, 256))
        assert image.size == (500, 375)


@pytest.mark.parametrize("mode", ["L", "CMYK", "RGBA", "P", "LA", "I;16", "1"])
def test_any_mode_becomes_rgb(tmp_path, sample, mode):
    rgb = Image.open(sample).convert("RGB")
    converted = rgb.convert("L").convert(mode) if mode in ("I;16", "1") else rgb.convert(mode)
    if mode == "I;16":
        converted = Image.fromarray(np.asarray(rgb.convert("L"), dtype=np.uint16) * 257)
    path = tmp_path / f"image.{'jpg' if mode in ('L', 'CMYK') else 'png'}"
    converted.save(path)
    pixels = decode_image(path, create_image_transform(CONFIG))
    assert pixels.shape == (3, 224, 224)
    if mode == "I;16":  # 16-bit values scaled to 8 bits, not clipped to white
        assert 30 < pixels.float().mean() < 220


def test_transparent_pixels_are_shown_on_white(tmp_path):
    path = tmp_path / "clear.png"
    Image.new("RGBA", (300, 300), (0, 0, 0, 0)).save(path)
    assert decode_image(path, create_image_transform(CONFIG)).min() == 255


def _png_header_only(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + chunk(b"IEND", b""))


def test_bad_files_raise_a_reason(tmp_path, sample):
    transform = create_image_transform(CONFIG)
    data = sample.read_bytes()
    cases = {
        "truncated.JPEG": (data[: len(data) // 3], "corrupt or truncated"),
        "garbage.JPEG": (b"\xff\xd8\xff\xe0 this is not really a jpeg" * 10, "corrupt or truncated|not an image"),
        "text.JPEG": (b"hello world\n" * 100, "not an image file"),
        "empty.JPEG": (b"", "not an image file"),
        "bomb.png": (_png_header_only(40_000, 40_000), "too large to decode safely"),
    }
    for name, (content, reason) in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(ImageDecodeError, match=reason):
            decode_image(tmp_path / name, transform)
    with pytest.raises(ImageDecodeError, match="file not found"):
        decode_image(tmp_path / "missing.JPEG", transform)
    with pytest.raises(ImageDecodeError, match="is a directory"):
        decode_image(tmp_path, transform)
    with pytest.raises(ImageDecodeError, match="no file"):
        decode_image(None, transform)
    with pytest.raises(ImageDecodeError, match="too large"):  # a lower limit of the caller's
        decode_image(sample, transform, max_pixels=1000)


def test_batches_keep_order_and_list_failures(tmp_path, shared_data):
    files = sorted((shared_data / "imagenet-samples").iterdir())[:7]
    bad = tmp_path / "bad.JPEG"
    bad.write_bytes(b"nope")
    paths = files[:3] + [bad] + files[3:] + [None]
    loader = BatchLoader(paths, CONFIG, PipelineConfig(batch_size=3, num_workers=2))
    batches = list(loader)
    assert len(batches) == len(loader) == 3
    assert [b.positions for b in batches] == [[0, 1, 2], [4, 5], [6, 7]]
    assert [p for b in batches for p, _ in b.failures] == [3, 8]
    assert all(b.pixels.shape == (len(b.positions), 3, 224, 224) for b in batches)
    assert all(b.pixels.is_contiguous(memory_format=torch.channels_last) for b in batches)  # the model's layout
    assert torch.equal(batches[2].pixels[1], decode_image(files[6], create_image_transform(CONFIG), draft_to=256))


def test_a_batch_of_only_bad_images_is_empty(tmp_path):
    loader = BatchLoader([tmp_path / "a.JPEG", None], CONFIG, PipelineConfig(batch_size=4))
    (batch,) = list(loader)
    assert batch.positions == [] and batch.pixels.shape == (0, 3, 224, 224) and len(batch.failures) == 2


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc (Linux)")
def test_decoding_threads_start_no_threads_of_their_own(shared_data):
    """A torch op on a decoding thread would start an OpenMP team for that thread:
    more OpenMP threads than cores, and the model's own team then sleeps at every
    barrier instead of spinning."""
    import threading

    def tasks() -> int:
        return len(os.listdir("/proc/self/task"))

    files = sorted((shared_data / "imagenet-samples").iterdir())[:24]
    torch.ones(1 << 20).add_(1)  # the main thread's OpenMP team exists before counting
    loader = BatchLoader(files, CONFIG, PipelineConfig(batch_size=4, num_workers=2))
    before, during = tasks(), []
    for _ in loader:
        during.append(tasks() - len([t for t in threading.enumerate() if t.name.startswith("decode")]))
    assert max(during) <= before  # (a thread of an earlier loader may still be leaving)


def test_stopping_early_leaves_no_threads(shared_data):
    import threading

    files = sorted((shared_data / "imagenet-samples").iterdir())[:40]
    loader = BatchLoader(files, CONFIG, PipelineConfig(batch_size=2, num_workers=2))
    for _ in loader:
        break
    loader.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("decode")]


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux only")
def test_decoding_threads_run_in_the_idle_class_and_the_caller_does_not(shared_data):
    """A decoder holding a core would make each parallel op of the model wait for it."""
    classes = []
    files = sorted((shared_data / "imagenet-samples").iterdir())[:4]
    loader = BatchLoader(files, CONFIG, PipelineConfig(batch_size=2, num_workers=2))
    transform = loader.transform
    loader.transform = lambda image: (classes.append(os.sched_getscheduler(0)), transform(image))[1]
    assert sum(len(b.positions) for b in loader) == 4
    assert classes == [os.SCHED_IDLE] * 4
    assert os.sched_getscheduler(0) == os.SCHED_OTHER


def test_a_started_loader_decodes_before_it_is_iterated_and_gives_the_same_batches(shared_data):
    """A run starts decoding before its model is moved and prepared (reviewer.runs.compute):
    the first batches are decoded by then, and iterating gives every batch once, in order."""
    import threading

    files = sorted((shared_data / "imagenet-samples").iterdir())[:10]
    decoded = threading.Semaphore(0)
    loader = BatchLoader(files, CONFIG, PipelineConfig(batch_size=4, num_workers=2, prefetch_batches=2))
    transform = loader.transform
    loader.transform = lambda image: (decoded.release(), transform(image))[1]
    loader.start()
    assert all(decoded.acquire(timeout=60) for _ in range(8))  # the first two batches, not yet asked for
    started = [(b.positions, b.pixels) for b in loader]
    plain = [(b.positions, b.pixels) for b in BatchLoader(files, CONFIG, PipelineConfig(batch_size=4, num_workers=2))]
    assert [p for p, _ in started] == [p for p, _ in plain] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert all(torch.equal(a, b) for (_, a), (_, b) in zip(started, plain))
    assert not [t for t in threading.enumerate() if t.name.startswith("decode")]
