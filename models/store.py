"""A run's full softmax on disk: one float16 `.npy` file, [images, 1000].

Rows are written in place at their offsets (no memory map while writing), so
a 50,000-image run never holds more than a batch of probabilities in memory; `sync()`
makes them durable before the database records them. Readers get a read-only memory map.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

DTYPE = np.dtype("<f2")
NUM_CLASSES = 1000


def to_float16(values: np.ndarray) -> np.ndarray:
    """float32 values as float16, bit for bit what `values.astype(np.float16)` gives (IEEE
    round to nearest, ties to even), in integer and float32 operations over whole arrays:
    numpy's own cast takes 30-70 ns a value on this machine's numpy build (3.5 of a 50,000-
    image import's seconds, the same in every predict's writer thread), about 12 here."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    bits = values.view(np.uint32)
    magnitude = bits & np.uint32(0x7FFFFFFF)
    if magnitude.size and magnitude.max() >= 0x477FF000:  # 65520 and up round to inf (or are inf, NaN)
        return values.astype(np.float16)  # numpy's rules for those, and its overflow warning
    # A normal float16 (from 2**-14): the exponent rebiased (127 -> 15) and 13 mantissa bits
    # dropped, rounding up past the halfway point or at it when the kept last bit is odd.
    half = magnitude >> np.uint32(13)
    half &= np.uint32(1)
    half += magnitude
    half += np.uint32(0xC8000FFF)  # -(127 - 15) << 23, plus 0xFFF: just under half of the dropped bits
    half >>= np.uint32(13)
    # A subnormal one (below 2**-14, a multiple of 2**-24): 0.5 + x in float32 rounds x to that
    # multiple, ties to even, and the low bits of the sum count the multiples.
    subnormal = (magnitude.view(np.float32) + np.float32(0.5)).view(np.uint32)
    subnormal -= np.uint32(0x3F000000)
    # The subnormal where the value is below 2**-14, blended by arithmetic (a masked copy branches per value).
    subnormal -= half
    subnormal *= magnitude < np.uint32(0x38800000)
    half += subnormal
    if np.signbit(values).any():
        half |= (bits >> np.uint32(16)) & np.uint32(0x8000)
    return half.astype(np.uint16).view(np.float16)


class ProbabilityWriter:
    """Write rows of a float16 probability file created with a fixed shape."""

    def __init__(self, path: Path, shape: tuple[int, int], offset: int):
        self.path, self.shape, self._offset = path, shape, offset
        self._file = open(path, "r+b")  # noqa: SIM115 - closed by close()

    @classmethod
    def create(cls, path: str | Path, rows: int, classes: int = NUM_CLASSES) -> "ProbabilityWriter":
        """A new zero-filled file (sparse on disk until rows are written)."""
        path = Path(path)
        array = np.lib.format.open_memmap(path, mode="w+", dtype=DTYPE, shape=(rows, classes))
        del array  # only the header and the file size were wanted
        return cls.open(path)

    @classmethod
    def open(cls, path: str | Path) -> "ProbabilityWriter":
        path = Path(path)
        with open(path, "rb") as handle:
            version = np.lib.format.read_magic(handle)
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            shape, fortran, dtype = read_header(handle)
            offset = handle.tell()
        if dtype != DTYPE or fortran or len(shape) != 2:
            raise ValueError(f"{path} is not a float16 [images, classes] probability file")
        return cls(path, (int(shape[0]), int(shape[1])), offset)

    def write(self, rows: np.ndarray, probs: np.ndarray) -> None:
        """Write `probs[i]` at row `rows[i]`; consecutive rows go in one call."""
        rows = np.asarray(rows, dtype=np.int64)
        # float32 (every run's probabilities) through the fast conversion; other types as numpy casts them
        data = np.ascontiguousarray(to_float16(probs) if np.asarray(probs).dtype == np.float32 else probs, dtype=DTYPE)
        if data.shape != (len(rows), self.shape[1]):
            raise ValueError(f"{data.shape} rows do not fit a {self.shape} probability file")
        if len(rows) and (rows.min() < 0 or rows.max() >= self.shape[0]):
            raise IndexError(f"rows outside 0..{self.shape[0] - 1}")
        row_bytes = self.shape[1] * DTYPE.itemsize
        start = 0
        while start < len(rows):  # group runs of consecutive rows
            stop = start + 1
            while stop < len(rows) and rows[stop] == rows[stop - 1] + 1:
                stop += 1
            self._file.seek(self._offset + int(rows[start]) * row_bytes)
            self._file.write(data[start:stop].tobytes())
            start = stop

    def sync(self) -> None:
        """Make the written rows durable (they survive a power cut from here on)."""
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def __enter__(self) -> "ProbabilityWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_probabilities(path: str | Path) -> np.ndarray:
    """The probability file memory-mapped read-only (nothing is read until indexed)."""
    return np.load(path, mmap_mode="r")


def written_rows(path: str | Path, rows: np.ndarray, *, chunk: int = 4096) -> np.ndarray:
    """bool per row: it holds a probability vector (sums to about 1), not the zeros
    of a row that was never written (e.g. lost in a power cut before the sync)."""
    probs = open_probabilities(path)
    rows = np.asarray(rows, dtype=np.int64)
    ok = np.zeros(len(rows), dtype=bool)
    for start in range(0, len(rows), chunk):
        block = np.asarray(probs[rows[start:start + chunk]], dtype=np.float32)
        ok[start:start + chunk] = np.abs(block.sum(axis=1) - 1.0) < 0.05
    return ok
