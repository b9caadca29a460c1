"""Dawid–Skene: the true class of each task and each rater's confusion matrix, estimated
together by expectation–maximisation from the raters' answers alone.

A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer
error-rates using the EM algorithm", Journal of the Royal Statistical Society,
Series C (Applied Statistics) 28(1), 20–28 (doi:10.2307/2346806). The model: each
task has a true class k with prior probability p[k]; rater w answers r with
probability e[w, k, r], independently of the other raters given k. EM alternates

- E-step: P(class k | task's answers) ∝ p[k] · Π over the task's answers e[w, k, r];
- M-step: e[w, k, r] ∝ Σ over w's answers r of P(class k | task) (the expected counts),
  p[k] = the mean posterior of class k;

from an initial posterior given by the vote shares (majority vote), until the
log-likelihood of the answers gains less than `tol` per answer.

This follows the reference implementation crowd-kit (Toloka/crowd-kit,
`crowdkit.aggregation.DawidSkene`): the same start, order of steps and floor of
1e-10 on the expected counts and the priors; with as many classes as answers and
the identity as `initial` it gives crowd-kit's posteriors (tests/panel/test_dawid_skene.py
checks it against crowd-kit 1.4.2's output on a small case). crowd-kit itself is not a
dependency: it requires transformers, pyarrow and scikit-learn for its other models.

Beyond crowd-kit, the answers may be fewer or more than the classes: ReaL's raters
answered no / maybe / yes to "is this class in the image?", two true classes and
three answers (Dawid and Skene's observers answer on the classes' own scale; the
rectangular confusion matrix is the same likelihood). `initial` maps each answer to a
starting belief about the class ("maybe": half present).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FLOOR = 1e-10  # crowd-kit's _EPS: no zero probability, so no log(0)


@dataclass(frozen=True)
class DawidSkeneFit:
    """What EM found. Tasks, raters, classes and answers are the integer codes given."""

    posteriors: np.ndarray  # [tasks, classes]: P(true class | the task's answers); rows sum to 1
    priors: np.ndarray  # [classes]
    confusion: np.ndarray  # [raters, classes, answers]: P(answer | true class) per rater; sums to 1 over answers
    iterations: int
    converged: bool
    log_likelihood: float  # of the answers under the fitted model (natural log)
    answered: np.ndarray  # [raters]: how many answers each rater gave

    def accuracy(self, correct: np.ndarray | None = None) -> np.ndarray:
        """Each rater's estimated accuracy: P(a correct answer) = Σ_k p[k] · Σ_r correct[k, r] e[w, k, r].
        `correct[k, r]` (classes x answers, 0/1) says which answer is right for class k; by default
        answer k for class k (as many answers as classes)."""
        if correct is None:
            k, r = self.confusion.shape[1:]
            if k != r:
                raise ValueError("with fewer or more answers than classes, say which answer is correct per class")
            correct = np.eye(k)
        return np.einsum("k,wkr,kr->w", self.priors, self.confusion, np.asarray(correct, dtype=float))


def fit_dawid_skene(tasks, raters, answers, *, classes: int, n_answers: int | None = None,
                    n_tasks: int | None = None, n_raters: int | None = None, initial=None,
                    max_iter: int = 100, tol: float = 1e-5) -> DawidSkeneFit:
    """Fit Dawid–Skene to answers given as three equal-length integer arrays: answer `answers[i]`
    by rater `raters[i]` on task `tasks[i]` (codes from 0). `classes`: the number of true classes;
    `n_answers`: of possible answers (default `classes`); `initial` [answers, classes]: the start
    belief each answer gives (default: the identity, i.e. the majority vote's shares).
    A task without answers keeps the prior."""
    tasks, raters, answers = (np.asarray(a, dtype=np.int64).ravel() for a in (tasks, raters, answers))
    if not len(tasks) == len(raters) == len(answers):
        raise ValueError("tasks, raters and answers must be of one length")
    n_answers = classes if n_answers is None else n_answers
    n_tasks = int(tasks.max()) + 1 if n_tasks is None else n_tasks
    n_raters = int(raters.max()) + 1 if n_raters is None else n_raters
    if len(answers) and (answers.min() < 0 or answers.max() >= n_answers):
        raise ValueError(f"answers must be codes 0..{n_answers - 1}")
    initial = np.eye(classes, n_answers).T if initial is None else np.asarray(initial, dtype=float)
    if initial.shape != (n_answers, classes):
        raise ValueError(f"initial must be answers x classes, {n_answers} x {classes}")
    answered = np.bincount(raters, minlength=n_raters)
    # The start: each task's mean start belief over its answers (the vote shares).
    start = np.stack([np.bincount(tasks, weights=initial[answers, k], minlength=n_tasks) for k in range(classes)], 1)
    count = np.bincount(tasks, minlength=n_tasks)[:, None]
    posteriors = np.divide(start, count, out=np.full_like(start, 1.0 / classes), where=count > 0)
    priors = posteriors.mean(axis=0)
    confusion = _m_step(posteriors, tasks, raters, answers, n_raters, n_answers)
    previous, converged, iterations, log_likelihood = -np.inf, False, 0, -np.inf
    for iterations in range(1, max_iter + 1):
        posteriors, log_likelihood = _e_step(priors, confusion, tasks, raters, answers, n_tasks)
        priors = posteriors.mean(axis=0)
        confusion = _m_step(posteriors, tasks, raters, answers, n_raters, n_answers)
        if len(answers) and (log_likelihood - previous) / len(answers) < tol:
            converged = True
            break
        previous = log_likelihood
    return DawidSkeneFit(posteriors=posteriors, priors=priors, confusion=confusion, iterations=iterations,
                         converged=converged, log_likelihood=float(log_likelihood), answered=answered)


def _m_step(posteriors, tasks, raters, answers, n_raters: int, n_answers: int) -> np.ndarray:
    """Each rater's confusion matrix from the expected counts of (true class, answer)."""
    classes = posteriors.shape[1]
    cell = raters * n_answers + answers
    counts = np.stack([np.bincount(cell, weights=posteriors[tasks, k], minlength=n_raters * n_answers)
                       for k in range(classes)], axis=1).reshape(n_raters, n_answers, classes)
    # Over the answers each rater gave (crowd-kit's rows): a class the rater has no expected count of
    # leaves their answers uninformative about it, rather than spread over answers never given.
    given = (np.bincount(cell, minlength=n_raters * n_answers) > 0).reshape(n_raters, n_answers, 1)
    counts = np.where(given, np.maximum(counts, FLOOR), 0.0).transpose(0, 2, 1)  # [raters, classes, answers]
    total = counts.sum(axis=2, keepdims=True)
    return np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)


def _e_step(priors, confusion, tasks, raters, answers, n_tasks: int) -> tuple[np.ndarray, float]:
    """Posteriors of every task's class, and the log-likelihood of all answers."""
    logs = np.log(confusion[raters, :, answers])  # [answers given, classes]; every given answer is > 0
    log_joint = np.log(np.maximum(priors, FLOOR))[None, :] + np.stack(
        [np.bincount(tasks, weights=logs[:, k], minlength=n_tasks) for k in range(len(priors))], axis=1)
    top = log_joint.max(axis=1, keepdims=True)
    scaled = np.exp(log_joint - top)
    total = scaled.sum(axis=1, keepdims=True)
    return scaled / total, float((top + np.log(total)).sum())
