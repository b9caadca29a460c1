"""A complete run's figures that read the run and the labels before the panel's review,
nothing else: its metrics (`reviewer.evaluation.summary.metrics_before_review`: top-1,
MLA, ReaL, variable top-k and ASMA), QUBA's calibration (`calibration`) and class
balance (`class_balance`). A panel's vote or decision leaves them as they are, so the
report keeps them per run (`reviewer.analysis.cache`, under `run_figure_inputs`) and
computes them again only when the run, the labels or the settings change.

The probability file is read once per run, into memory (100 MB at 50,000 images, one
run at a time), for ACE and class balance alike; variable top-k reads its rows only for
the images with more than five valid labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from db.tables import Run
from reviewer.analysis.calibration import Calibration, run_calibration
from reviewer.analysis.class_balance import ClassBalance, run_class_balance
from reviewer.evaluation.patchml import PatchMLSet
from reviewer.evaluation.summary import MetricsBeforeReview, metrics_before_review
from reviewer.labels.labelset import LabelSet
from reviewer.project import Project
from reviewer.runs.predictions import RunPredictions, run_probabilities


@dataclass(frozen=True)
class RunFigures:
    metrics: MetricsBeforeReview
    calibration: Calibration  # QUBA's ECE, ACE, CE against the original labels
    class_balance: ClassBalance | None  # None without a probability file


def run_figures(project: Project, run: Run, labels: LabelSet, predictions: RunPredictions, *,
                collapsed: bool, bins: int, patchml: dict[str, PatchMLSet]) -> RunFigures:
    """The run's figures against `labels` (the labels before the review)."""
    mapped = run_probabilities(project, run)
    probs = None if mapped is None else np.asarray(mapped)  # read once, for both figures
    return RunFigures(
        metrics=metrics_before_review(project, run, labels, predictions, collapsed=collapsed, patchml=patchml),
        calibration=run_calibration(labels, predictions, probs, bins=bins),
        class_balance=None if probs is None else run_class_balance(labels, predictions, probs),
    )


def run_figure_inputs(labels: dict, run: dict, *, collapsed: bool, bins: int) -> dict:
    """The key the figures are kept under: what they read (`reviewer.analysis.inputs`:
    the labels' and the run's) and the options that change them."""
    return {"labels": labels, "run": run, "collapsed_mappings": collapsed, "ece_bins": bins}
