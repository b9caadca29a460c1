"""QUBA's ACE over a float16 probability file, all classes at once from histograms
(reviewer.analysis.float16_ace), against the per-class loop of the reference code
(reviewer.analysis.calibration.adaptive_calibration_error, itself checked against the
definition written out in test_calibration.py): the same number to the last bit, on
softmax outputs of every shape a run's file takes (exact zeros, exact ones, ties, classes
with fewer images than bins, classes no image gives a probability)."""

from __future__ import annotations

import numpy as np
import pytest
from project_data import new_project
from review_data import add_images, read_with

from db.tables import Run
from reviewer.analysis.calibration import adaptive_calibration_error, probability_columns, run_calibration
from reviewer.analysis.float16_ace import histogram_ace
from reviewer.cli import main
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.runs.predictions import load_predictions, run_probabilities


def _softmax16(rng: np.random.Generator, images: int, classes: int) -> np.ndarray:
    logits = rng.normal(size=(images, classes)) * rng.uniform(0.1, 15, size=(images, 1))
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (probs / probs.sum(axis=1, keepdims=True)).astype(np.float16)


def _loop(probs: np.ndarray, targets: np.ndarray, bins: int = 15) -> float:
    return adaptive_calibration_error([(0, probs.astype(np.float32))], targets, bins=bins, num_classes=probs.shape[1])


@pytest.mark.parametrize("seed", range(12))
def test_equal_to_the_loop_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    images, classes = int(rng.integers(1, 2500)), int(rng.integers(1, 60))
    probs = _softmax16(rng, images, classes)
    if seed % 3 == 0:
        probs[rng.random(probs.shape) < 0.4] = 0  # float16 underflow: left out (p > 0)
    if seed % 4 == 0:
        probs[rng.random(probs.shape) < 0.05] = 1.0  # saturated: the loop's 16th bin
    if seed % 5 == 0:
        probs = (np.round(probs.astype(np.float32) * 8) / 8).astype(np.float16)  # many ties at the edges
    targets = rng.integers(0, classes, images)
    for bins in (15, 4):
        assert histogram_ace(probs, targets, bins=bins) == _loop(probs, targets, bins)


def test_a_run_at_full_width_and_classes_nothing_scores():
    rng = np.random.default_rng(7)
    probs = _softmax16(rng, 3000, 1000)
    probs[:, 500:510] = 0  # no image gives these classes a probability
    targets = rng.integers(0, 1000, 3000)
    assert histogram_ace(probs, targets) == _loop(probs, targets)


def test_no_number_for_what_is_not_a_float16_probability_file():
    rng = np.random.default_rng(0)
    probs = _softmax16(rng, 100, 10)
    targets = rng.integers(0, 10, 100)
    assert histogram_ace(probs.astype(np.float32), targets) is None
    over = probs.copy()
    over[0, 0] = 2.0  # not a probability: the loop decides
    assert histogram_ace(over, targets) is None
    assert histogram_ace(probs, np.full(100, 10)) is None  # a label beyond the file's classes


def test_a_runs_ace_is_the_loops_over_its_probability_file(tmp_path):
    """Through `reviewer import-logits`: the run's float16 file as the app writes it."""
    project = new_project(tmp_path / "p")
    rng = np.random.default_rng(3)
    originals = [int(c) for c in rng.integers(0, 1000, 400)]
    ids = add_images(project, originals)
    names = [f"ILSVRC2012_val_{i + 1:08d}.JPEG" for i in range(400)]
    logits = rng.normal(size=(400, 1000)).astype(np.float32) * 2
    logits[np.arange(400), originals] += rng.normal(5, 2, 400)
    np.savez(tmp_path / "run.npz", logits=logits, file_names=np.array(names))
    assert main(["import-logits", str(project.root), str(tmp_path / "run.npz"), "--model", "m"]) == 0
    labels = read_with(project, reviewed_labelset, after_review=False)
    predictions = read_with(project, load_predictions, run_id=1)
    with project.read() as session:
        probs = run_probabilities(project, session.get(Run, 1))
    assert probs.dtype == np.float16 and len(ids) == len(predictions) == 400
    result = run_calibration(labels, predictions, probs)
    targets = labels.original[labels.positions(predictions.image_ids)]
    assert result.ace == adaptive_calibration_error(probability_columns(probs, predictions.rows), targets,
                                                    num_classes=1000)
    assert result.ce == float(np.sqrt(result.ece * result.ace))
