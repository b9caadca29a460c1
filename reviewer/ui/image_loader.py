"""Decoding and scaling images on worker threads, with a small cache.

Images are decoded straight to the size they are shown at: `QImageReader`
with a scaled size lets the JPEG decoder scale in the DCT (libjpeg's
scale_denom), so a 4000 px photo fit to an 1100 px view decodes in a few
milliseconds instead of a full decode plus a resize. Full resolution is
decoded only on demand (zoom past fit, or 1:1).

QImage (not QPixmap) is built on the worker threads: it is safe off the UI
thread, and the view paints it directly.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QImage, QImageReader

from reviewer.ui.workers import Worker

QImageReader.setAllocationLimit(1024)  # MB; ImageNet has a few very large photos


@dataclass(frozen=True)
class ImageKey:
    """A decoded image: the file at a bounding size (None: full resolution); a file
    smaller than the bounds is enlarged to them only with `enlarge`."""

    path: str
    width: int | None = None
    height: int | None = None
    enlarge: bool = False

    @property
    def full(self) -> bool:
        return self.width is None


@dataclass(frozen=True)
class Decoded:
    key: ImageKey
    image: QImage | None  # None when the file cannot be read
    original_size: QSize
    error: str = ""
    warning: str = ""  # decoded, but the file is damaged (e.g. cut short: the rest is grey)


def decode(key: ImageKey) -> Decoded:
    """Read the file, scaled to fit the key's size when it is larger."""
    reader = QImageReader(key.path)
    reader.setAutoTransform(True)
    size = reader.size()
    bounds = None if key.full else QSize(key.width, key.height)
    if bounds is not None and size.isValid() and (size.width() > bounds.width() or size.height() > bounds.height()):
        reader.setScaledSize(size.scaled(bounds, Qt.AspectRatioMode.KeepAspectRatio))
    image_format = bytes(reader.format()).decode()
    image = reader.read()
    if image.isNull():
        return Decoded(key, None, size, error=reader.errorString() or "unreadable image")
    warning = _truncation_warning(key.path) if image_format == "jpeg" else ""
    if key.enlarge and bounds is not None and image.width() < bounds.width() and image.height() < bounds.height():
        # Asked to enlarge small files: here, once, so the view paints every fit image 1:1.
        image = image.scaled(bounds, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
    if image.format() not in (QImage.Format.Format_RGB32, QImage.Format.Format_ARGB32_Premultiplied):
        # The raster engine paints these formats without converting on every paint.
        image = image.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied if image.hasAlphaChannel()
                                      else QImage.Format.Format_RGB32)
    return Decoded(key, image, size, warning=warning)


def _truncation_warning(path: str) -> str:
    """libjpeg decodes a file cut short without an error, painting the missing
    rows grey; a panelist must not judge that as the photo. A whole JPEG ends
    with the EOI marker (FF D9), at most followed by padding."""
    try:
        with open(path, "rb") as file:
            file.seek(0, 2)
            file.seek(max(0, file.tell() - 4096))
            tail = file.read().rstrip(b"\x00\r\n\t ")
    except OSError as exc:
        return f"could not check the file's end ({exc})"
    if tail.endswith(b"\xff\xd9"):
        return ""
    return "cut short: part of the image is missing (grey or blurred)"


class ImageLoader(QObject):
    """Decodes images off the UI thread; `loaded` fires on the UI thread.

    Two lanes: what the view needs now (priority > 0) and what it may need next
    (priority 0 or below, prefetch: the nearest first), each with its own threads,
    so a queue of prefetches never stands between the panelist and the image they
    moved to. An image asked for now whose prefetch waits is moved to the first
    lane; one whose prefetch is being decoded is awaited, not decoded twice.
    """

    loaded = Signal(object)  # Decoded

    def __init__(self, *, threads: int = 2, cache_size: int = 24, cache_mb: int = 256,
                 parent: QObject | None = None):
        super().__init__(parent)
        # `threads` decode ahead; one more serves what is on screen now (idle most of the time).
        self._now = Worker(threads=1, name="images", parent=self)
        self._ahead = Worker(threads=threads, name="images-ahead", parent=self) if threads > 1 else self._now
        self._cache: OrderedDict[ImageKey, Decoded] = OrderedDict()
        self._pending: dict[ImageKey, tuple[Worker, int, int]] = {}  # key -> (lane, task id, priority): a prefetch
        self._urgent: set[ImageKey] = set()  # asked for now, decoding on the first lane
        self._groups: dict[str, set[ImageKey]] = {}
        self._cache_size = cache_size
        # Full-resolution decodes of 4000 px photos weigh ~50 MB each: bound the bytes too.
        self._cache_bytes = cache_mb << 20
        self._bytes = 0

    def cached(self, key: ImageKey) -> Decoded | None:
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
        return found

    def request(self, key: ImageKey, *, priority: int = 0, group: str | None = None) -> Decoded | None:
        """The decoded image if cached; else None, and `loaded` fires once it is
        decoded. A `group` of requests can be cancelled together (`cancel_group`)."""
        found = self.cached(key)
        if found is not None:
            return found
        if priority > 0 and self._ahead is not self._now:
            pending = self._pending.get(key)
            if pending is not None and not pending[0].withdraw(pending[1]):
                pass  # its prefetch is being decoded: decoding it twice would only slow both
            elif key not in self._urgent:
                self._pending.pop(key, None)
                self._urgent.add(key)
                self._now.submit(decode, key, on_done=self._store, priority=priority)
        elif key not in self._urgent:
            pending = self._pending.get(key)
            # A prefetch moves up as the panelist comes nearer (if no thread has taken it yet).
            if pending is None or (priority > pending[2] and pending[0].withdraw(pending[1])):
                self._pending[key] = (self._ahead, self._ahead.submit(decode, key, on_done=self._store,
                                                                      priority=priority), priority)
        if group is not None:
            self._groups.setdefault(group, set()).add(key)
        return None

    def cancel_group(self, group: str) -> None:
        """Forget the group's requests that have not started (e.g. thumbnails of
        a mistake the panelist has moved past)."""
        for key in self._groups.pop(group, ()):
            pending = self._pending.pop(key, None)
            if pending is not None:
                pending[0].cancel(pending[1])

    def _store(self, decoded: Decoded) -> None:
        self._pending.pop(decoded.key, None)
        self._urgent.discard(decoded.key)
        if decoded.key in self._cache:
            return  # decoded on both lanes: the first is shown already
        self._cache[decoded.key] = decoded
        self._bytes += _size(decoded)
        while len(self._cache) > 1 and (len(self._cache) > self._cache_size or self._bytes > self._cache_bytes):
            _, evicted = self._cache.popitem(last=False)
            self._bytes -= _size(evicted)
        self.loaded.emit(decoded)

    def shutdown(self) -> None:
        self._now.shutdown()
        self._ahead.shutdown()


def _size(decoded: Decoded | None) -> int:
    return decoded.image.sizeInBytes() if decoded is not None and decoded.image is not None else 0


def fit_key(path: Path | str, bounds: QSize, *, enlarge: bool = False) -> ImageKey:
    """The key of an image fit into `bounds` (device pixels), rounded down to
    32 px so that small window resizes reuse the cache (and the view still
    paints the image 1:1, never scaled); a smaller file is kept at its own size
    unless `enlarge`."""
    w = max(32, bounds.width() // 32 * 32)
    h = max(32, bounds.height() // 32 * 32)
    return ImageKey(str(path), w, h, enlarge)


def full_key(path: Path | str) -> ImageKey:
    return ImageKey(str(path))
