"""Score files of precomputed logits or probabilities: layouts accepted, mistakes rejected."""

from __future__ import annotations

import numpy as np
import pytest

from models import ModelInputError
from models.logits import read_scores, validation_file_name


def _positional(path, rows=None, dtype=np.float16):
    """A [50000, 1000] .npy (sparse on disk) with some rows set."""
    array = np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=(50_000, 1000))
    for row, values in (rows or {}).items():
        array[row] = values
    array.flush()
    del array
    return path


def test_positional_logits_map_to_validation_file_names(tmp_path):
    logits = np.zeros(1000)
    logits[7] = 5
    scores = read_scores(_positional(tmp_path / "l.npy", {3: logits}))
    assert scores.kind == "logits" and scores.names is None and len(scores) == 50_000
    start, first = next(scores.probability_blocks())
    probs = first[3:5]
    assert start == 0 and probs.shape == (2, 1000) and probs[0].argmax() == 7
    assert probs.dtype == np.float32 and np.allclose(probs.sum(axis=1), 1)
    assert np.allclose(probs[1], 1 / 1000)
    assert validation_file_name(3) == "ILSVRC2012_val_00000004.JPEG"


def test_named_probabilities_in_npz(tmp_path):
    probs = np.full((2, 1000), 1 / 1000, np.float32)
    np.savez(tmp_path / "p.npz", probs=probs, file_names=np.array(["a.JPEG", "b.JPEG"]))
    scores = read_scores(tmp_path / "p.npz")
    assert scores.kind == "probs" and scores.names == ["a.JPEG", "b.JPEG"]
    assert read_scores(tmp_path / "p.npz", kind="logits").kind == "logits"


@pytest.mark.parametrize("make,problem", [
    (lambda p: np.save(p / "s.npy", np.zeros((100, 1000), np.float32)), r"has 100 rows.*50000 rows"),
    (lambda p: np.save(p / "s.npy", np.zeros((50_000, 1001), np.float16)), r"1001 columns: drop the background"),
    (lambda p: np.save(p / "s.npy", np.zeros((10,), np.float32)), r"has shape \(10,\)"),
    (lambda p: np.save(p / "s.npy", np.array([["a"] * 1000])), r"not numbers"),
    (lambda p: np.save(p / "s.npy", np.array([None] * 3, dtype=object)), r"not a readable numpy file"),
    (lambda p: (p / "s.npy").write_bytes(b"garbage"), r"not a readable numpy file"),
    (lambda p: np.savez(p / "s.npz", a=np.zeros((2, 1000)), b=np.zeros((2, 1000))), r"cannot tell which array"),
    (lambda p: np.savez(p / "s.npz", logits=np.zeros((2, 1000)), file_names=np.array(["a", "b", "c"])),
     r"2 rows of scores but 3 file names"),
    (lambda p: np.savez(p / "s.npz", logits=np.zeros((2, 1000)), file_names=np.array(["a", "a"])),
     r"file name a appears twice"),
    (lambda p: np.savez(p / "s.npz", probs=np.full((2, 1000), 0.5), file_names=np.array(["a", "b"])),
     r"row 0 \(a\) is not a probability vector"),
    (lambda p: (p / "s.csv").write_text("1,2"), r"not a score format"),
])
def test_bad_score_files_are_rejected_clearly(tmp_path, make, problem):
    make(tmp_path)
    path = next(tmp_path.iterdir())
    with pytest.raises(ModelInputError, match=problem) as info:
        read_scores(path, kind="probs" if "probability vector" in problem else "auto")
    assert str(path) in str(info.value)


def test_nan_and_inf_rows_are_named(tmp_path):
    bad = np.zeros(1000)
    bad[3] = np.nan
    path = _positional(tmp_path / "l.npy", {12: bad, 40_000: np.full(1000, np.inf)})
    with pytest.raises(ModelInputError, match=r"2 rows hold NaN or infinite values, the first is row 12 "
                                              r"\(ILSVRC2012_val_00000013.JPEG\)"):
        read_scores(path)


def _read_back(scores) -> np.ndarray:
    blocks = list(scores.array.blocks(chunk=3))
    assert [start for start, _ in blocks] == list(range(0, len(scores), 3))
    return np.concatenate([block for _, block in blocks])


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_npz_scores_are_read_in_blocks_as_saved(tmp_path, save):
    """Plain and compressed archives, any number type and byte order, a Fortran-ordered
    array: read a few rows at a time, the same values as numpy's own reader."""
    rng = np.random.default_rng(1)
    for dtype in (np.float16, np.float32, ">f8", np.int32):
        logits = (rng.normal(size=(8, 1000)) * 10).astype(dtype)
        for array in (logits, np.asfortranarray(logits)):
            save(tmp_path / "s.npz", scores=array, file_names=np.array([f"{i}.JPEG" for i in range(8)]))
            scores = read_scores(tmp_path / "s.npz")
            assert scores.kind == "logits" and len(scores) == 8
            assert np.array_equal(_read_back(scores), logits)


def test_softmax_of_a_row_does_not_depend_on_the_rows_read_with_it(tmp_path):
    """An import reads its file in blocks of rows, and only the rows of the project's images:
    each row's probabilities are the same whatever block it came in."""
    logits = np.random.default_rng(2).normal(size=(10, 1000)).astype(np.float32) * 8
    np.savez(tmp_path / "s.npz", logits=logits, file_names=np.array([f"{i}.JPEG" for i in range(10)]))
    scores = read_scores(tmp_path / "s.npz")
    whole = scores.probabilities(logits)
    assert np.array_equal(np.concatenate([probs for _, probs in scores.probability_blocks(chunk=4)]), whole)
    assert np.array_equal(scores.probabilities(logits[[7, 2]]), whole[[7, 2]])
    expected = np.exp(logits.astype(np.float64) - logits.max(axis=1, keepdims=True))
    assert np.array_equal(whole, (expected / expected.sum(axis=1, keepdims=True)).astype(np.float32))


def test_a_truncated_file_is_not_readable(tmp_path):
    path = tmp_path / "s.npy"
    np.save(path, np.zeros((50_000, 1000), np.float16))
    path.write_bytes(path.read_bytes()[:-2000])
    with pytest.raises(ModelInputError, match=r"not a readable numpy file \(it ends at row 49999 of 50000\)"):
        read_scores(path)
