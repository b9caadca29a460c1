"""QUBA's calibration (ECE, ACE, CE) and class balance, and the multi-label ECE: on cases
computed by hand, against torchmetrics (the ECE QUBA's code calls), and on a project."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from project_data import new_project
from review_data import add_images, add_run, read_with

from reviewer.analysis.calibration import (
    adaptive_calibration_error,
    calibration,
    multilabel_calibration,
    run_calibration,
)
from reviewer.analysis.class_balance import class_balance
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.runs.predictions import load_predictions


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


def test_confidence_one_has_a_bin_of_its_own_as_in_torchmetrics_and_empty_input_is_nan():
    result = calibration(np.array([1.0, 1.0, 0.95]), np.array([True, False, True]))
    assert len(result.bins) == 16 and result.bins.iloc[-1]["count"] == 2
    assert (result.bins.iloc[-1]["lower"], result.bins.iloc[-1]["upper"]) == (1.0, 1.0)
    assert result.ece == pytest.approx(2 / 3 * 0.5 + 1 / 3 * 0.05)
    empty = calibration(np.array([]), np.array([]))
    assert math.isnan(empty.ece) and empty.images == 0


def test_ece_equals_torchmetrics_multiclass_calibration_error():
    """QUBA's code: torchmetrics MulticlassCalibrationError(num_classes, norm="l1"), 15 bins."""
    from torchmetrics.classification import MulticlassCalibrationError

    rng = np.random.default_rng(3)
    logits = rng.normal(size=(4000, 1000)) * rng.uniform(0.5, 6, size=(4000, 1))
    logits[:1000, 7] += 40  # saturated rows: a top-1 probability of exactly 1.0 in float32
    probs = torch.softmax(torch.tensor(logits, dtype=torch.float32), dim=1)
    target = torch.tensor(np.where(rng.random(4000) < 0.6, probs.argmax(1).numpy(), rng.integers(0, 1000, 4000)))
    reference = MulticlassCalibrationError(num_classes=1000, n_bins=15, norm="l1")(probs, target).item()
    top, top1 = probs.max(dim=1)
    ours = calibration(top.numpy(), (top1 == target).numpy())
    assert (top == 1.0).sum() > 0
    assert ours.ece == pytest.approx(reference, abs=1e-6)


def test_ace_with_one_image_per_bin_is_the_mean_gap():
    # 15 images with distinct probabilities: each of the 15 equal-mass bins holds one, so a
    # class's error is the mean of |1[label = c] - p_c| over its images with p_c > 0.
    rng = np.random.default_rng(0)
    first = rng.permutation(np.linspace(0.05, 0.95, 15))
    probs = np.stack([first, 1 - first], axis=1)
    targets = rng.integers(0, 2, 15)
    expected = np.mean([np.mean(np.abs((targets == c) - probs[:, c])) for c in (0, 1)])
    assert adaptive_calibration_error([(0, probs)], targets, num_classes=2) == pytest.approx(expected)


def test_ace_by_the_definition_on_many_images():
    """Nixon et al.'s ACE as QUBA's code configures it (adaptive bins, class-conditional,
    all classes, probabilities > 0, 15 bins), written out plainly here."""
    rng = np.random.default_rng(1)
    n, c = 700, 6
    probs = rng.dirichlet(np.full(c, 0.3), size=n)
    probs[rng.random((n, c)) < 0.05] = 0.0  # some exact zeros: left out, as the threshold does
    targets = rng.integers(0, c, n)
    total = 0.0
    for j in range(c):
        keep = probs[:, j] > 0
        p, y = probs[keep, j], (targets[keep] == j).astype(float)
        order = np.sort(p)
        cut = [order[min(int(round(i * len(p) / 15)), len(p) - 1)] for i in range(1, 15)] + [1.0]
        error = 0.0
        for b in range(15):
            low = -np.inf if b == 0 else cut[b - 1]
            inside = (p >= low) & (p < cut[b])
            if inside.any():
                error += inside.sum() / len(p) * abs(y[inside].mean() - p[inside].mean())
        total += error / c
    assert adaptive_calibration_error([(0, probs[:, :4]), (4, probs[:, 4:])], targets, num_classes=c) == \
        pytest.approx(total, rel=1e-9)


def test_class_balance_by_the_papers_equations_and_the_authors_code():
    # Class 0: 2 images, both right, target probabilities 0.9 and 0.5.
    # Class 1: 2 images, one right, target probabilities 0.6 and 0.2.
    result = class_balance(np.array([0, 0, 1, 1]), np.array([0, 0, 1, 0]), np.array([0.9, 0.5, 0.6, 0.2]))
    f_acc = 1 - np.sqrt(((1.0 - 0.75) ** 2 + (0.5 - 0.75) ** 2) / 2)  # Eq. 10: population std of 1.0, 0.5
    f_conf = 1 - np.sqrt(((0.7 - 0.55) ** 2 + (0.4 - 0.55) ** 2) / 2)  # Eq. 11: class means 0.7, 0.4
    assert result.accuracy_balance == pytest.approx(f_acc) and result.confidence_balance == pytest.approx(f_conf)
    assert result.class_balance == pytest.approx(np.sqrt(f_acc * f_conf))  # Eq. 12
    code_acc = 1 - np.std([1.0, 0.5], ddof=1)  # torch.std: the sample standard deviation
    code_conf = 1 - np.mean([np.std([0.9, 0.5]), np.std([0.6, 0.2])])  # within-class spread
    assert result.code_accuracy_balance == pytest.approx(code_acc)
    assert result.code_confidence_balance == pytest.approx(code_conf)
    assert result.code_class_balance == pytest.approx(np.sqrt(code_acc * code_conf))
    assert (result.images, result.classes) == (4, 2)


def test_class_balance_on_an_unbalanced_set_is_centred_on_all_images():
    """QUBA Eq. 11 (and Eq. 10 read alike): the class values' deviations from the value over
    ALL images ("Conf denoting the average confidence for all images"), not from the mean
    of the class values; the two differ when the classes have different numbers of images.
    Class 0: 3 images, all right, target probabilities 0.9, 0.8, 0.7 -> A_0 = 1, Conf_0 = 0.8.
    Class 1: 1 image, wrong, target probability 0.2                 -> A_1 = 0, Conf_1 = 0.2.
    All images: A = 3/4 = 0.75, Conf = 2.6/4 = 0.65 (the class means' means: 0.5 and 0.5)."""
    result = class_balance(np.array([0, 0, 0, 1]), np.array([0, 0, 0, 7]), np.array([0.9, 0.8, 0.7, 0.2]))
    # By hand: F_Acc = 1 - sqrt(((1 - .75)^2 + (0 - .75)^2) / 2) = 1 - sqrt(.3125) = 0.440983...
    #          F_Conf = 1 - sqrt(((.8 - .65)^2 + (.2 - .65)^2) / 2) = 1 - sqrt(.1125) = 0.664590...
    assert result.accuracy_balance == pytest.approx(1 - math.sqrt(0.3125)) == pytest.approx(0.4409830)
    assert result.confidence_balance == pytest.approx(1 - math.sqrt(0.1125)) == pytest.approx(0.6645898)
    target = np.array([0.9, 0.8, 0.7, 0.2])
    f_conf = 1 - np.sqrt(np.mean((np.array([target[:3].mean(), target[3]]) - target.mean()) ** 2))
    assert result.confidence_balance == pytest.approx(f_conf)
    assert result.class_balance == pytest.approx(math.sqrt((1 - math.sqrt(0.3125)) * (1 - math.sqrt(0.1125))))
    # Not the spread around the class means' mean (1 - 0.5 and 1 - 0.3 here).
    assert result.accuracy_balance != pytest.approx(0.5) and result.confidence_balance != pytest.approx(0.7)
    assert (result.images, result.classes) == (4, 2)


def test_run_calibration_is_against_the_original_label(tmp_path):
    project = new_project(tmp_path / "p")
    ids = add_images(project, [1, 2, 3, 4], labels={1: {"correct": [2, 20]}})
    # Right on image 1 only by the original labels (20 is a correct multi-label of image 2), all at 0.9.
    run = add_run(project, "m", {ids[0]: 1, ids[1]: 20, ids[2]: 30, ids[3]: 40}, probs=dict.fromkeys(ids, 0.9))
    labels = read_with(project, reviewed_labelset)
    predictions = read_with(project, load_predictions, run_id=run)
    result = run_calibration(labels, predictions)
    assert result.images == 4 and result.ece == pytest.approx(abs(0.25 - 0.9), abs=1e-6)
    assert math.isnan(result.ace)  # no probability file given
    multi = multilabel_calibration(labels, predictions)  # the variant: 20 accepted on image 2
    assert multi.images == 4 and multi.ece == pytest.approx(abs(0.5 - 0.9), abs=1e-6)
