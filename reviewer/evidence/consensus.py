"""The raters' consensus on ReaL's questions: Dawid–Skene over their raw answers.

ReaL (Beyer et al. 2020, "Are we done with ImageNet?", §3) asked crowd raters "is this class
in the image?" about the classes its models proposed for an image, five raters a question,
each answering no, maybe or yes. Raw counts ("3 yes, 0 maybe, 2 no") mislead: the raters differ
in reliability. ReaL combined the answers with the Dawid–Skene algorithm (its repository's
README: `scores.npz`, "the scores for each rated (image, label) pair, as computed by the Dawid &
Skene 1979 algorithm") and kept, as `real.json`, the classes whose score is at least 0.8 (checked
on the published files: `scores.npz` >= 0.8 gives `real.json`'s labels on all 184,962 questions).

Here: `reviewer.panel.dawid_skene.fit_dawid_skene` over every answer of the file, two true classes
(the class is absent / present) and three answers (no / maybe / yes); each rater gets a 2 x 3
confusion matrix, and each question a posterior P(present | its five answers), stored with the
rater counts. The start is the vote share with "maybe" counted half.

How close it comes to ReaL's labels on all 50,000 images (`raters.npz` and `real.json` of
google-research/reassessed-imagenet; `scripts/real_consensus_agreement.py` computes the figures,
docs/evidence.md lists them):

- 25,111 images have no question; `real.json` gives each its original label alone (checked against
  cleanlab's list of original labels). The posteriors say nothing about them.
- The 184,962 questions on the other 24,889 images, thresholded at ReaL's 0.8: 181,747 agree with
  `real.json` (98.26 %); 2,046 the posterior accepts and ReaL does not, 1,169 the other way. At 0.5:
  178,982 (96.77 %); the best threshold, 0.88, reaches 182,245 (98.53 %).
- Image by image at 0.8: 21,921 of the 24,889 rated images (88.08 %) get exactly ReaL's label set
  (3,112 are left without a label here, 3,163 in `real.json`); with the 25,111 unrated images,
  which keep their original label as in ReaL, 47,032 of 50,000 (94.06 %).

Why differences remain: ReaL's scores are not plain Dawid–Skene on these answers alone. For the
same five answers they are far less extreme (five "no": ReaL 6e-5 to 0.11, here below 0.003) and
higher when the class is the image's original label (five "no": median 0.0022 against 0.00076 for
a proposed class; one "yes" and four "no": up to 0.86), so their model has priors or smoothing that
depend on the question, which the paper does not state in full and the published files do not
carry. Against ReaL's scores (`scores.npz`, same repository) the posteriors correlate at r = 0.985
(mean absolute difference 0.018), and the 3,215 questions on different sides of 0.8 are split
ones: none is unanimous, 3,110 have no four raters agreeing (the commonest: 3 no and 2 yes, 1,019;
2 no, 2 maybe and 1 yes, 926), where the weight each model gives each rater decides.
"""

from __future__ import annotations

import numpy as np

from reviewer.panel.dawid_skene import DawidSkeneFit, fit_dawid_skene

ANSWERS = ("no", "maybe", "yes")
# The start belief each answer gives about (absent, present): "maybe" counts half.
START = ((1.0, 0.0), (0.5, 0.5), (0.0, 1.0))
REAL_THRESHOLD = 0.8  # ReaL's operating point: a class is a label when its score is at least this
MAX_ITER = 200
TOL = 1e-7  # log-likelihood gained per answer below which EM stops


def fit_rater_consensus(tasks: np.ndarray, raters: np.ndarray, answers: np.ndarray, *, n_tasks: int,
                        n_raters: int) -> DawidSkeneFit:
    """Dawid–Skene over ReaL-style answers: `answers[i]` (0 no, 1 maybe, 2 yes) by rater `raters[i]`
    on question `tasks[i]`. `posteriors[:, 1]` of the fit is P(the class is in the image)."""
    return fit_dawid_skene(tasks, raters, answers, classes=2, n_answers=len(ANSWERS), n_tasks=n_tasks,
                           n_raters=n_raters, initial=START, max_iter=MAX_ITER, tol=TOL)


def consensus_of(payload: dict | None, cls: int) -> float | None:
    """The stored posterior that class `cls` is in the image, None when not asked (or not computed)."""
    for asked, p in (payload or {}).get("consensus", ()):
        if asked == cls:
            return float(p)
    return None


def probability_text(p: float) -> str:
    """'0.93'; '> 0.99' and '< 0.01' rather than a rounded certainty."""
    if p > 0.995:
        return "> 0.99"
    if p < 0.005:
        return "< 0.01"
    return f"{p:.2f}"


def consensus_words(p: float | None, class_name: str) -> str:
    """"raters' consensus: 0.93 that tailed frog is in the image"."""
    if p is None:
        return ""
    return f"raters' consensus: {probability_text(p)} that {class_name} is in the image"
