"""Dawid–Skene (reviewer.panel.dawid_skene) against one EM iteration worked by hand from
Dawid and Skene's (1979) definition, against crowd-kit's DawidSkene on a small case, and on
ReaL's real rater answers (tests/data: the questions about images 1-2,000)."""

from __future__ import annotations

import json
from fractions import Fraction as F

import numpy as np
import pytest

from reviewer.evidence.consensus import REAL_THRESHOLD, fit_rater_consensus
from reviewer.panel.dawid_skene import fit_dawid_skene

# Three raters answer 0 or 1 on four tasks (task, rater, answer).
HAND = [(0, 0, 1), (0, 1, 1), (0, 2, 0),
        (1, 0, 1), (1, 1, 0), (1, 2, 0),
        (2, 0, 0), (2, 1, 0), (2, 2, 1),
        (3, 0, 1), (3, 1, 1), (3, 2, 1)]


def test_one_iteration_worked_by_hand():
    """Start: the vote shares of class 1, 2/3, 1/3, 1/3 and 1, so the priors are (5/12, 7/12).
    M-step, expected counts of (class, answer) per rater, normalised over the answers:
      rater 0: class 0 (2/3, 1)   -> (2/5, 3/5);  class 1 (1/3, 2)   -> (1/7, 6/7)
      rater 1: class 0 (4/3, 1/3) -> (4/5, 1/5);  class 1 (2/3, 5/3) -> (2/7, 5/7)
      rater 2: class 0 (1, 2/3)   -> (3/5, 2/5);  class 1 (1, 4/3)   -> (3/7, 4/7)
    E-step, task 0 (answers 1, 1, 0): class 0 ∝ 5/12 · 3/5 · 1/5 · 3/5 = 3/100,
    class 1 ∝ 7/12 · 6/7 · 5/7 · 3/7 = 15/98, so P(class 1) = (15/98) / (3/100 + 15/98)."""
    t, r, a = np.array(HAND).T
    fit = fit_dawid_skene(t, r, a, classes=2, max_iter=1, tol=-np.inf)
    e = {0: ((F(2, 5), F(3, 5)), (F(1, 7), F(6, 7))), 1: ((F(4, 5), F(1, 5)), (F(2, 7), F(5, 7))),
         2: ((F(3, 5), F(2, 5)), (F(3, 7), F(4, 7)))}
    prior = (F(5, 12), F(7, 12))
    for task in range(4):
        joint = [prior[k] * np.prod([e[rater][k][answer] for tt, rater, answer in HAND if tt == task])
                 for k in (0, 1)]
        assert fit.posteriors[task, 1] == pytest.approx(float(joint[1] / sum(joint)), abs=1e-9)
    assert fit.posteriors[0, 1] == pytest.approx(float(F(15, 98) / (F(3, 100) + F(15, 98))), abs=1e-9)  # 0.8361
    assert fit.iterations == 1


# crowd-kit 1.4.2, `DawidSkene(n_iter=n, tol=-inf).fit(frame).probas_` of this case (computed once with crowd-kit
# installed apart: it is not a dependency), classes 0, 1, 2 as columns; and its `priors_` after 3 iterations.
CASE = [(0, 0, 0), (0, 1, 0), (0, 2, 1), (0, 3, 0), (1, 0, 1), (1, 1, 1), (1, 2, 2), (1, 3, 1),
        (2, 0, 2), (2, 1, 1), (2, 2, 2), (3, 0, 0), (3, 1, 2), (3, 2, 0), (3, 3, 1),
        (4, 1, 1), (4, 2, 1), (4, 3, 0), (5, 0, 2), (5, 1, 2), (5, 2, 0), (5, 3, 2)]
CROWD_KIT = {
    1: [[0.934154, 0.065846, 0.0], [0.0, 0.901029, 0.098971], [0.0, 0.353766, 0.646234],
        [0.686811, 0.045077, 0.268112], [0.254477, 0.745523, 0.0], [0.029256, 0.0, 0.970744]],
    3: [[0.999998, 2e-06, 0.0], [0.0, 0.999785, 0.000215], [0.0, 0.855129, 0.144871],
        [0.825003, 0.0, 0.174997], [0.19144, 0.80856, 0.0], [0.0, 0.0, 1.0]],
}
CROWD_KIT_PRIORS_3 = [0.336074, 0.443913, 0.220014]


@pytest.mark.parametrize("iterations", sorted(CROWD_KIT))
def test_same_posteriors_as_crowd_kit(iterations):
    t, r, a = np.array(CASE).T
    fit = fit_dawid_skene(t, r, a, classes=3, max_iter=iterations, tol=-np.inf)
    assert fit.posteriors == pytest.approx(np.array(CROWD_KIT[iterations]), abs=2e-6)
    if iterations == 3:
        assert fit.priors == pytest.approx(CROWD_KIT_PRIORS_3, abs=2e-6)


def test_a_reliable_rater_outweighs_a_careless_one():
    """Raters 0 and 1 agree on 20 tasks; rater 2 answers the opposite on half of them. On a task
    where rater 0 says 1 and rater 2 says 0 (rater 1 silent), the reliable rater wins, though
    the votes are tied; and the estimated accuracies order the raters so."""
    rows = []
    for task in range(20):
        truth = task % 2
        rows += [(task, 0, truth), (task, 1, truth), (task, 2, truth if task < 10 else 1 - truth)]
    rows += [(20, 0, 1), (20, 2, 0)]
    t, r, a = np.array(rows).T
    fit = fit_dawid_skene(t, r, a, classes=2)
    assert fit.converged
    assert fit.posteriors[20, 1] > 0.9
    accuracy = fit.accuracy()
    assert accuracy[0] > 0.99 and accuracy[1] > 0.99 and accuracy[2] == pytest.approx(0.5, abs=0.1)
    assert list(fit.answered) == [21, 20, 21]


def test_rectangular_answers_need_the_correct_answers_named():
    t, r, a = np.array(HAND).T
    fit = fit_dawid_skene(t, r, a * 2, classes=2, n_answers=3, initial=[[1, 0], [0.5, 0.5], [0, 1]])
    with pytest.raises(ValueError, match="which answer is correct"):
        fit.accuracy()
    assert fit.accuracy([[1, 0, 0], [0, 0, 1]]).shape == (3,)
    with pytest.raises(ValueError, match="answers must be codes"):
        fit_dawid_skene(t, r, a + 2, classes=2)


def test_real_raters_consensus_matches_reals_labels(shared_data):
    """ReaL's own labels are its Dawid–Skene scores at 0.8. Ours, over the same answers (the questions on
    images 1-2,000), agree with `real.json` on at least 97 % of the questions; a question all five raters
    answered yes is a label, one they all answered no is not."""
    real_dir = shared_data / "published" / "real"
    with np.load(real_dir / "raters.npz", allow_pickle=False) as z:
        tensor, info = z["tensor"], z["info"]
    raters, questions, answers = np.nonzero(tensor)
    fit = fit_rater_consensus(questions, raters, answers, n_tasks=len(info), n_raters=len(tensor))
    present = fit.posteriors[:, 1]
    real = json.loads((real_dir / "real.json").read_text())
    in_real = np.array([int(cls) in real[int(name[15:23]) - 1] for name, cls in info.tolist()])
    agree = ((present >= REAL_THRESHOLD) == in_real).mean()
    assert agree >= 0.97
    counts = tensor.sum(axis=0)
    assert (present[counts[:, 2] == 5] > 0.99).all() and (present[counts[:, 0] == 5] < 0.01).all()
    # The threshold that ReaL chose is near the best for ours too: 0.5 agrees less.
    assert ((present >= 0.5) == in_real).mean() < agree
