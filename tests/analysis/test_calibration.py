"""Expected calibration error and the reliability bins, on cases computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from review_data import add_images, add_run

from reviewer.analysis.calibration import calibration, run_calibration
from reviewer.judgements import reviewed_labelset
from reviewer.predictions import load_predictions
from reviewer.project import Project


def test_ece_by_hand():
    # Ten predictions at 0.95 (8 right) and ten at 0.55 (5 right):
    # ECE = 0.5 * |0.8 - 0.95| + 0.5 * |0.5 - 0.55| = 0.1.
    confidence = np.array([0.95] * 10 + [0.55] * 10)
    correct = np.array([1] * 8 + [0] * 2 + [1] * 5 + [0] * 5, dtype=bool)
    result = calibration(confidence, correct)
    assert result.ece == pytest.approx(0.1)
    assert result.images == 20 and len(result.bins) == 15
    top = result.bins.iloc[14]
    assert (top["count"], top["accuracy"], top["confidence"]) == (10, pytest.approx(0.8), pytest.approx(0.95))
    assert result.bins["count"].sum() == 20
    assert math.isnan(result.bins.iloc[0]["accuracy"])  # empty bins have no accuracy


def test_confidence_one_is_in_the_last_bin_and_empty_input_is_nan():
    result = calibration(np.array([1.0, 1.0]), np.array([True, False]))
    assert result.bins.iloc[-1]["count"] == 2 and result.ece == pytest.approx(0.5)
    empty = calibration(np.array([]), np.array([]))
    assert math.isnan(empty.ece) and empty.images == 0


def test_run_calibration_uses_multilabels_after_review(tmp_path):
    project = Project.create(tmp_path / "p")
    ids = add_images(project, [1, 2, 3, 4], labels={1: {"correct": [2, 20]}})
    # Right on images 1 and 2 (20 is a correct label of image 2), wrong on 3 and 4, all at 0.9.
    run = add_run(project, "m", {ids[0]: 1, ids[1]: 20, ids[2]: 30, ids[3]: 40},
                  probs=dict.fromkeys(ids, 0.9))
    result = run_calibration(reviewed_labelset(project), load_predictions(project, run))
    assert result.images == 4
    assert result.ece == pytest.approx(abs(0.5 - 0.9), abs=1e-6)
