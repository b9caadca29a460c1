"""Precomputed scores (logits or probabilities) from a file, e.g. computed on a
GPU cluster: a `.npy` array with one row per validation image in file order
(row i = ILSVRC2012_val_{i+1:08d}.JPEG, as published logits are laid out), or
an `.npz` holding the array and, optionally, the file name of each row.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.errors import ModelInputError

NUM_CLASSES = 1000
VALIDATION_IMAGES = 50_000
SCORE_KEYS = ("logits", "probs", "probabilities", "scores", "predictions")
NAME_KEYS = ("file_names", "filenames", "file_name", "names", "images", "keys")
KINDS = ("auto", "logits", "probs")
CHUNK = 4096


@dataclass
class ScoreFile:
    path: Path
    scores: np.ndarray  # [N, 1000], memory-mapped for .npy
    names: list[str] | None  # file name of each row; None: validation-file order
    kind: str  # logits | probs

    def __len__(self) -> int:
        return len(self.scores)

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """float32 probabilities of some rows (softmax of logits); reads only those rows."""
        block = np.asarray(self.scores[np.asarray(rows, dtype=np.int64)], dtype=np.float64)
        if self.kind == "probs":
            return (block / block.sum(axis=1, keepdims=True)).astype(np.float32)
        block -= block.max(axis=1, keepdims=True)
        np.exp(block, out=block)
        block /= block.sum(axis=1, keepdims=True)
        return block.astype(np.float32)


def validation_file_name(index: int) -> str:
    """The file name of validation image `index` (0-based)."""
    return f"ILSVRC2012_val_{index + 1:08d}.JPEG"


def read_scores(path: str | Path, *, kind: str = "auto") -> ScoreFile:
    """Read and check a score file; every problem raises ModelInputError naming it."""
    path = Path(path)
    where = str(path)
    if kind not in KINDS:
        raise ModelInputError(f"--kind {kind}", "unknown kind", hint=f"use one of {', '.join(KINDS)}")
    if not path.is_file():
        raise ModelInputError(where, "no such file")
    suffix = path.suffix.lower()
    try:
        if suffix == ".npy":
            scores, names = np.load(path, mmap_mode="r", allow_pickle=False), None
        elif suffix == ".npz":
            scores, names = _read_npz(path)
        else:
            raise ModelInputError(where, f"'{suffix}' is not a score format this tool reads",
                                  hint="save the array with numpy.save (.npy) or numpy.savez (.npz)")
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ModelInputError(where, f"is not a readable numpy file ({exc})",
                              hint="save with numpy.save/savez; object arrays are not read") from exc
    _check_shape(scores, names, where)
    _check_finite(scores, names, where)
    detected = _detect_kind(scores) if kind == "auto" else kind
    if detected == "probs":
        _check_probabilities(scores, names, where)
    return ScoreFile(path=path, scores=scores, names=names, kind=detected)


def _read_npz(path: Path) -> tuple[np.ndarray, list[str] | None]:
    where = str(path)
    with np.load(path, allow_pickle=False) as archive:
        keys = list(archive.keys())
        score_key = next((k for k in SCORE_KEYS if k in keys), None)
        name_key = next((k for k in NAME_KEYS if k in keys), None)
        arrays = {k: archive[k] for k in keys}
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
        values = arrays[name_key]
        if values.dtype.kind not in "US" or values.ndim != 1:
            raise ModelInputError(where, f"'{name_key}' must be a 1-D array of file names, not "
                                  f"{values.dtype} {values.shape}")
        names = [str(v.decode() if isinstance(v, bytes) else v) for v in values]
    return arrays[score_key], names


def _check_shape(scores: np.ndarray, names: list[str] | None, where: str) -> None:
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


def _check_finite(scores: np.ndarray, names: list[str] | None, where: str) -> None:
    if scores.dtype.kind != "f":
        return
    for start in range(0, len(scores), CHUNK):
        bad = ~np.isfinite(np.asarray(scores[start:start + CHUNK])).all(axis=1)
        if bad.any():
            row = start + int(np.flatnonzero(bad)[0])
            count = sum(int((~np.isfinite(np.asarray(scores[s:s + CHUNK])).all(axis=1)).sum())
                        for s in range(0, len(scores), CHUNK))
            raise ModelInputError(where, f"{count} rows hold NaN or infinite values, the first is row {row} "
                                  f"({_row_name(row, names)})", hint="recompute or drop those rows")


def _detect_kind(scores: np.ndarray) -> str:
    """probs when every row is non-negative and sums to 1, else logits."""
    for start in range(0, len(scores), CHUNK):
        block = np.asarray(scores[start:start + CHUNK], dtype=np.float64)
        if (block < 0).any() or not np.allclose(block.sum(axis=1), 1.0, atol=1e-2):
            return "logits"
    return "probs"


def _check_probabilities(scores: np.ndarray, names: list[str] | None, where: str) -> None:
    for start in range(0, len(scores), CHUNK):
        block = np.asarray(scores[start:start + CHUNK], dtype=np.float64)
        bad = (block < 0).any(axis=1) | (np.abs(block.sum(axis=1) - 1.0) > 1e-2)
        if bad.any():
            row = start + int(np.flatnonzero(bad)[0])
            raise ModelInputError(where, f"row {row} ({_row_name(row, names)}) is not a probability vector "
                                  "(negative values or a sum other than 1)",
                                  hint="pass --kind logits if the file holds logits")


def _row_name(row: int, names: list[str] | None) -> str:
    return names[row] if names is not None else validation_file_name(row)
