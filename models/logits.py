"""Precomputed scores (logits or probabilities) from a file, e.g. computed on a
GPU cluster: a `.npy` array with one row per validation image in file order
(row i = ILSVRC2012_val_{i+1:08d}.JPEG, as published logits are laid out), or
an `.npz` holding the array and, optionally, the file name of each row.

The array is read in blocks of rows straight from the file (an `.npz` member as a
stream), never loaded whole nor memory-mapped: a 50,000-row float32 file is 200 MB,
and an import holds a block of it at a time. numpy only: no torch.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from models.errors import ModelInputError

NUM_CLASSES = 1000
VALIDATION_IMAGES = 50_000
SCORE_KEYS = ("logits", "probs", "probabilities", "scores", "predictions")
NAME_KEYS = ("file_names", "filenames", "file_name", "names", "images", "keys")
KINDS = ("auto", "logits", "probs")
CHUNK = 4096
_UNREADABLE_HINT = "save with numpy.save/savez; object arrays are not read"


@dataclass(frozen=True)
class StoredArray:
    """One array in a score file, known by its header: the `.npy` file itself, or a
    member of an `.npz` (`member`), read from its start each time it is read."""

    path: Path
    member: str | None
    shape: tuple[int, ...]
    dtype: np.dtype
    fortran_order: bool

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def _open(self) -> BinaryIO:
        if self.member is None:
            return open(self.path, "rb")  # noqa: SIM115 - closed by the caller's with
        archive = zipfile.ZipFile(self.path)
        try:
            return archive.open(self.member)  # the member keeps the archive's file open until closed
        finally:
            archive.close()

    def read(self) -> np.ndarray:
        """The whole array (for the file names; a score array is read in blocks)."""
        with self._open() as handle:
            return np.lib.format.read_array(handle, allow_pickle=False)

    def blocks(self, chunk: int = CHUNK) -> Iterator[tuple[int, np.ndarray]]:
        """(first row, rows [n, columns]) of a 2-D array, in file order, `chunk` rows at a time."""
        rows, columns = self.shape
        if self.fortran_order:  # column-major on disk: rows are not contiguous, read it whole
            whole = self.read()
            for start in range(0, rows, chunk):
                yield start, np.ascontiguousarray(whole[start:start + chunk])
            return
        row_bytes = columns * self.dtype.itemsize
        with self._open() as handle:
            _read_header(handle)
            for start in range(0, rows, chunk):
                count = min(chunk, rows - start)
                data = handle.read(count * row_bytes)
                if len(data) != count * row_bytes:
                    ended = start + len(data) // max(row_bytes, 1)
                    raise ModelInputError(str(self.path), f"is not a readable numpy file (it ends at row {ended} "
                                          f"of {rows})", hint=_UNREADABLE_HINT)
                yield start, np.frombuffer(data, dtype=self.dtype).reshape(count, columns)


@dataclass
class ScoreFile:
    path: Path
    array: StoredArray  # [N, 1000], read in blocks
    names: list[str] | None  # file name of each row; None: validation-file order
    kind: str  # logits | probs

    def __len__(self) -> int:
        return self.array.shape[0]

    def probabilities(self, block: np.ndarray) -> np.ndarray:
        """float32 probabilities of a block of rows of scores (softmax of logits), computed in
        float64 row by row: a row's result does not depend on the rows read with it."""
        block = np.array(block, dtype=np.float64)
        if self.kind == "probs":
            return (block / block.sum(axis=1, keepdims=True)).astype(np.float32)
        block -= block.max(axis=1, keepdims=True)
        np.exp(block, out=block)
        block /= block.sum(axis=1, keepdims=True)
        return block.astype(np.float32)

    def probability_blocks(self, chunk: int = CHUNK) -> Iterator[tuple[int, np.ndarray]]:
        """(first row, float32 probabilities [n, 1000]) of every row, in file order."""
        for start, block in self.array.blocks(chunk):
            yield start, self.probabilities(block)


def validation_file_name(index: int) -> str:
    """The file name of validation image `index` (0-based)."""
    return f"ILSVRC2012_val_{index + 1:08d}.JPEG"


def read_scores(path: str | Path, *, kind: str = "auto") -> ScoreFile:
    """Read and check a score file (its headers, its names, one pass over its values);
    every problem raises ModelInputError naming it."""
    path = Path(path)
    where = str(path)
    if kind not in KINDS:
        raise ModelInputError(f"--kind {kind}", "unknown kind", hint=f"use one of {', '.join(KINDS)}")
    if not path.is_file():
        raise ModelInputError(where, "no such file")
    suffix = path.suffix.lower()
    try:
        if suffix == ".npy":
            array, names = _stored_array(path, None), None
        elif suffix == ".npz":
            array, names = _read_npz(path)
        else:
            raise ModelInputError(where, f"'{suffix}' is not a score format this tool reads",
                                  hint="save the array with numpy.save (.npy) or numpy.savez (.npz)")
        if array.dtype.hasobject:
            raise ValueError("it holds Python objects")
        _check_shape(array, names, where)
        detected = _check_values(array, names, where, kind)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        if isinstance(exc, ModelInputError):
            raise
        raise ModelInputError(where, f"is not a readable numpy file ({exc})", hint=_UNREADABLE_HINT) from exc
    return ScoreFile(path=path, array=array, names=names, kind=detected)


def _read_header(handle: BinaryIO) -> tuple[tuple[int, ...], bool, np.dtype]:
    version = np.lib.format.read_magic(handle)
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(handle)
    if version == (2, 0):
        return np.lib.format.read_array_header_2_0(handle)
    raise ValueError(f"numpy file format {version[0]}.{version[1]} is not read")


def _stored_array(path: Path, member: str | None) -> StoredArray:
    array = StoredArray(path, member, (), np.dtype(np.float32), False)
    with array._open() as handle:
        shape, fortran_order, dtype = _read_header(handle)
    return StoredArray(path, member, tuple(shape), dtype, fortran_order)


def _read_npz(path: Path) -> tuple[StoredArray, list[str] | None]:
    where = str(path)
    with zipfile.ZipFile(path) as archive:
        members = archive.namelist()
    arrays = {(m[:-4] if m.endswith(".npy") else m): _stored_array(path, m) for m in members}
    keys = list(arrays)
    score_key = next((k for k in SCORE_KEYS if k in keys), None)
    name_key = next((k for k in NAME_KEYS if k in keys), None)
    if score_key is None:
        two_d = [k for k, v in arrays.items() if v.ndim == 2]
        if len(two_d) != 1:
            raise ModelInputError(where, f"cannot tell which array holds the scores (arrays: {', '.join(keys)})",
                                  hint=f"name it one of {', '.join(SCORE_KEYS)}")
        score_key = two_d[0]
    if name_key is None:
        strings = [k for k, v in arrays.items() if v.ndim == 1 and v.dtype.kind in "US"]
        name_key = strings[0] if len(strings) == 1 else None
    names = None
    if name_key is not None:
        stored = arrays[name_key]
        if stored.dtype.kind not in "US" or stored.ndim != 1:
            raise ModelInputError(where, f"'{name_key}' must be a 1-D array of file names, not "
                                  f"{stored.dtype} {stored.shape}")
        names = [str(v.decode() if isinstance(v, bytes) else v) for v in stored.read()]
    return arrays[score_key], names


def _check_shape(scores: StoredArray, names: list[str] | None, where: str) -> None:
    if scores.dtype.kind not in "fiu":
        raise ModelInputError(where, f"holds {scores.dtype} values, not numbers")
    if scores.ndim != 2 or scores.shape[1] != NUM_CLASSES:
        extra = (" (1001 columns: drop the background class 0 of TF-slim models first)"
                 if scores.ndim == 2 and scores.shape[1] == 1001 else "")
        raise ModelInputError(where, f"has shape {scores.shape}; expected [images, {NUM_CLASSES}]{extra}")
    if names is None and scores.shape[0] != VALIDATION_IMAGES:
        raise ModelInputError(
            where, f"has {scores.shape[0]} rows; an array without file names must have one row per "
            f"validation image in file order ({VALIDATION_IMAGES} rows)",
            hint="for a subset, save an .npz with the scores and a 'file_names' array naming each row")
    if names is not None:
        if len(names) != scores.shape[0]:
            raise ModelInputError(where, f"has {scores.shape[0]} rows of scores but {len(names)} file names")
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise ModelInputError(where, f"file name {name} appears twice")
            seen.add(name)


def _check_values(scores: StoredArray, names: list[str] | None, where: str, kind: str) -> str:
    """The kind of scores (`kind`, or detected: probs when every row is non-negative and sums
    to 1, else logits), after checking, in one pass over the file: no NaN or infinite
    value, and with probabilities, every row a probability vector. Reads no further than
    it must (a file of logits named so: only its NaN and infinite values)."""
    nonfinite, first_nonfinite = 0, None
    looks_like_logits = kind == "logits"
    first_not_probability = None
    for start, block in scores.blocks():
        if scores.dtype.kind == "f":
            bad = ~np.isfinite(block).all(axis=1)
            if bad.any():
                nonfinite += int(bad.sum())
                first_nonfinite = start + int(np.flatnonzero(bad)[0]) if first_nonfinite is None else first_nonfinite
        elif looks_like_logits:
            break  # integers are finite, and logits are not checked further
        if nonfinite or looks_like_logits:
            continue  # only the count of bad rows is still wanted
        values = np.asarray(block, dtype=np.float64)
        sums, negative = values.sum(axis=1), (values < 0).any(axis=1)
        if kind == "auto" and (negative.any() or not np.allclose(sums, 1.0, atol=1e-2)):
            looks_like_logits = True
            continue
        if first_not_probability is None:
            bad = negative | (np.abs(sums - 1.0) > 1e-2)
            if bad.any():
                first_not_probability = start + int(np.flatnonzero(bad)[0])
    if nonfinite:
        raise ModelInputError(where, f"{nonfinite} rows hold NaN or infinite values, the first is row "
                              f"{first_nonfinite} ({_row_name(first_nonfinite, names)})",
                              hint="recompute or drop those rows")
    if looks_like_logits:
        return "logits"
    if first_not_probability is not None:
        row = first_not_probability
        raise ModelInputError(where, f"row {row} ({_row_name(row, names)}) is not a probability vector "
                              "(negative values or a sum other than 1)",
                              hint="pass --kind logits if the file holds logits")
    return "probs"


def _row_name(row: int, names: list[str] | None) -> str:
    return names[row] if names is not None else validation_file_name(row)
