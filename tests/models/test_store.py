"""The float16 probability file: rows written in place, read memory-mapped."""

from __future__ import annotations

import numpy as np
import pytest

from models import ProbabilityWriter, open_probabilities
from models.store import written_rows


def _softmax_rows(n, seed=0):
    x = np.random.default_rng(seed).normal(size=(n, 1000)).astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_rows_written_in_any_order_read_back_memory_mapped(tmp_path):
    path = tmp_path / "run_1.probs.f16.npy"
    probs = _softmax_rows(10)
    with ProbabilityWriter.create(path, 10) as writer:
        writer.write(np.array([0, 1, 2]), probs[:3])
        writer.write(np.array([7, 3, 4]), probs[[7, 3, 4]])
        writer.sync()
    with ProbabilityWriter.open(path) as writer:  # resume: reopen and go on
        writer.write(np.array([9]), probs[[9]])
    stored = open_probabilities(path)
    assert isinstance(stored, np.memmap) and stored.dtype == np.float16 and stored.shape == (10, 1000)
    done = [0, 1, 2, 3, 4, 7, 9]
    np.testing.assert_allclose(stored[done], probs[done], atol=1e-3)
    assert not stored[[5, 6, 8]].any()
    assert written_rows(path, np.arange(10)).tolist() == [i in done for i in range(10)]


def test_rows_outside_the_file_are_refused(tmp_path):
    with ProbabilityWriter.create(tmp_path / "p.npy", 2) as writer:
        with pytest.raises(IndexError):
            writer.write(np.array([2]), _softmax_rows(1))
        with pytest.raises(ValueError):
            writer.write(np.array([0, 1]), _softmax_rows(1))


def test_another_npy_is_not_taken_for_a_probability_file(tmp_path):
    np.save(tmp_path / "f32.npy", np.zeros((2, 1000), np.float32))
    with pytest.raises(ValueError, match="not a float16"):
        ProbabilityWriter.open(tmp_path / "f32.npy")


def test_float16_conversion_is_numpys_bit_for_bit():
    """The file's float16 values are what numpy's cast gives, for every kind of float32: the
    float32s around each rounding midpoint of the float16s, subnormal and normal (ties to
    even), the rounding up to the smallest normal and to inf, zero, both signs, inf and NaN."""
    from models.store import to_float16

    def around(values: np.ndarray) -> np.ndarray:  # each float32 value and its 2 neighbours each side
        bits = values.astype(np.float32).view(np.uint32).astype(np.int64)
        return (bits[:, None] + np.arange(-2, 3)[None, :]).ravel().astype(np.uint32).view(np.float32)

    halves = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)  # 0 to 65504
    midpoints = np.append((halves[:-1] + halves[1:]) / 2, 65520.0)  # 65520: the midpoint to inf
    strided = np.arange(0, 0x47800000, 997, dtype=np.uint32).view(np.float32)  # 0 to 65536, every 997th
    values = np.concatenate([around(midpoints), around(halves), strided, _softmax_rows(20).ravel(),
                             np.float32([1e-30, 1.0, 65504.0, 65519.99, 1e10, np.inf, np.nan])])
    for signed in (values, -values):
        with np.errstate(over="ignore"):  # values that round to inf: numpy warns, and so does to_float16
            expected, got = signed.astype(np.float16), to_float16(signed)
        assert np.array_equal(got.view(np.uint16), expected.view(np.uint16))
        finite = signed[np.abs(signed) < 65504]  # the fast path alone, without the overflow fallback
        assert np.array_equal(to_float16(finite).view(np.uint16), finite.astype(np.float16).view(np.uint16))
    assert to_float16(values[:6].reshape(2, 3)).shape == (2, 3)
