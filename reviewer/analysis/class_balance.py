"""Class balance of a run, as QUBA defines it.

QUBA ("Beyond Accuracy: What Matters in Designing Well-Behaved Image
Classification Models?", Appendix A, "Class balance", Eqs. 10-12), as printed:

    F_Acc  = 1 − sqrt(1/C Σ_c (A_c − A)²)                    (Eq. 10)
    F_Conf = 1 − sqrt(1/C Σ_c (Conf_c − Conf)²)              (Eq. 11)
    F      = GM(F_Acc, F_Conf)                                (Eq. 12)

"with A_c denoting the accuracy for images of class c", "Conf_c denoting the
average confidence for images of class c and Conf denoting the average
confidence for all images"; the confidence is the "target softmax output".
So the centre of Eq. 11 is the mean target probability over all images, not
the mean of the class means. The paper does not spell out the bare A of
Eq. 10; read as Conf is read (the bare symbol is the quantity over all
images) and as Fig. 9 compares two models "with equal average accuracy", it
is the top-1 accuracy over all images. Here A_c is the top-1 accuracy on the
images of class c (their original label), Conf_c the mean probability those
images give their class, A and Conf the same over every image. On a balanced
set (ImageNet's 50 images per class) the centres equal the means of the class
values and the terms are the population standard deviations of the class
values; on an unbalanced subset (a partial project) they are not, and the
equations as printed are what is computed. 1 is perfectly balanced.

The authors' code (visinf/beyond-accuracy, helper/benchmarks.py
`test_fair_accuracies` / `test_fair_confidence`) computes something else for
the confidence term: 1 − the mean over classes of the standard deviation of
the target probability *within* each class (and the accuracy term with the
sample standard deviation of the class accuracies). Both are reported:
`class_balance` follows the paper's equations, `reference_code` the code
behind its published numbers.

The target probabilities come from the run's probability file (float16).
Images: every predicted image with an original label; classes: those with at
least one such image (C).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reviewer.labels.labelset import LabelSet
from reviewer.runs.predictions import RunPredictions


@dataclass(frozen=True)
class ClassBalance:
    accuracy_balance: float  # F_Acc, Eq. 10: class accuracies around the accuracy over all images
    confidence_balance: float  # F_Conf, Eq. 11: class mean confidences around the mean over all images
    class_balance: float  # F, Eq. 12
    code_accuracy_balance: float  # 1 - sample std of per-class accuracy (the reference code)
    code_confidence_balance: float  # 1 - mean within-class std of the target probability (the reference code)
    code_class_balance: float  # their geometric mean
    images: int
    classes: int

    def as_dict(self) -> dict:
        return {"accuracy_balance": self.accuracy_balance, "confidence_balance": self.confidence_balance,
                "class_balance": self.class_balance, "images": self.images, "classes": self.classes,
                "reference_code": {"accuracy_balance": self.code_accuracy_balance,
                                   "confidence_balance": self.code_confidence_balance,
                                   "class_balance": self.code_class_balance}}


def class_balance(original: np.ndarray, top1: np.ndarray, target_probability: np.ndarray) -> ClassBalance:
    """Class balance from each image's original label, top-1 class and probability of its label."""
    original = np.asarray(original, dtype=np.int64)
    nan = float("nan")
    if not len(original):
        return ClassBalance(nan, nan, nan, nan, nan, nan, 0, 0)
    target = np.asarray(target_probability, dtype=np.float64)
    counts = np.bincount(original, minlength=1000)
    present = counts > 0
    n = counts[present]
    right = np.asarray(top1) == original
    accuracy = np.bincount(original, weights=right, minlength=1000)[present] / n  # A_c
    mean_conf = np.bincount(original, weights=target, minlength=1000)[present] / n  # Conf_c
    mean_sq = np.bincount(original, weights=target ** 2, minlength=1000)[present] / n
    within_std = np.sqrt(np.maximum(mean_sq - mean_conf ** 2, 0.0))  # np.std per class (population)
    # Eqs. 10-11 as printed: around A and Conf over all images, not the mean of the class values.
    f_acc = 1 - float(np.sqrt(np.mean((accuracy - right.mean()) ** 2)))
    f_conf = 1 - float(np.sqrt(np.mean((mean_conf - target.mean()) ** 2)))
    code_acc = 1 - float(np.std(accuracy, ddof=1)) if len(accuracy) > 1 else nan
    code_conf = 1 - float(np.mean(within_std))
    return ClassBalance(
        accuracy_balance=f_acc, confidence_balance=f_conf, class_balance=_geometric_mean(f_acc, f_conf),
        code_accuracy_balance=code_acc, code_confidence_balance=code_conf,
        code_class_balance=_geometric_mean(code_conf, code_acc), images=int(len(original)), classes=int(present.sum()))


def _geometric_mean(a: float, b: float) -> float:
    return float(np.sqrt(a * b)) if a >= 0 and b >= 0 else float("nan")


def run_class_balance(labels: LabelSet, predictions: RunPredictions, probs: np.ndarray) -> ClassBalance:
    """A run's class balance; `probs` is its probability file (memory-mapped)."""
    positions = labels.positions(predictions.image_ids)
    known = positions >= 0
    original = np.full(len(predictions), -1, dtype=np.int64)
    original[known] = labels.original[positions[known]]
    use = np.flatnonzero(original >= 0)
    # Each image's probability of its label, one value a row (not whole rows made float64 first).
    target = np.asarray(probs[predictions.rows[use], original[use]], dtype=np.float64)
    return class_balance(original[use], predictions.top1[use], target)
