"""Agreement statistics against textbook examples with published values, and
the same statistics computed from a project's votes."""

from __future__ import annotations

import pytest
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.panel.agreement import (
    agreement_report,
    cohen,
    disagreeing_items,
    field_agreement,
    gwet_ac1,
    pairwise_kappa,
)

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
# 4 observers, 12 units, values 1-5, missing data; nominal alpha = 0.743, ordinal 0.815.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]
# Fleiss (1971) as on Wikipedia ("Fleiss' kappa", worked example): 10 subjects,
# 14 raters, 5 categories; P-bar = 0.378, kappa = 0.210.
FLEISS_TABLE = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
                [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]


def test_krippendorff_2011_example():
    ratings = {f"observer {r}": {u: v for u, v in enumerate(row) if v is not None}
               for r, row in enumerate(KRIPPENDORFF_2011)}
    result = field_agreement(ratings, values=[1, 2, 3, 4, 5], ordinal=True, resamples=200, seed=3)
    assert result.alpha_nominal.value == pytest.approx(0.743, abs=5e-4)
    assert result.alpha_ordinal.value == pytest.approx(0.815, abs=5e-4)
    assert result.items == 11  # unit 12 has a single value: not pairable
    low, high = result.alpha_nominal.low, result.alpha_nominal.high
    assert low < result.alpha_nominal.value <= high
    again = field_agreement(ratings, values=[1, 2, 3, 4, 5], ordinal=True, resamples=200, seed=3)
    assert (again.alpha_nominal.low, again.alpha_nominal.high) == (low, high)  # seeded: reproducible


def test_fleiss_1971_example():
    ratings = {rater: {} for rater in range(14)}
    for subject, row in enumerate(FLEISS_TABLE):
        raters = iter(range(14))
        for category, count in enumerate(row):
            for _ in range(count):
                ratings[next(raters)][subject] = category
    result = field_agreement(ratings, values=range(5), resamples=0)
    assert result.fleiss_kappa.value == pytest.approx(0.210, abs=5e-4)
    assert result.percent.value == pytest.approx(0.378, abs=5e-4)
    assert result.fleiss_kappa.low is None  # no resamples asked, no interval claimed


def test_cohen_wikipedia_example():
    # Wikipedia "Cohen's kappa": 50 proposals, yes/yes 20, yes/no 5, no/yes 10, no/no 15: kappa = 0.4.
    a, b = {}, {}
    for first, second, count in (("y", "y", 20), ("y", "n", 5), ("n", "y", 10), ("n", "n", 15)):
        for _ in range(count):
            a[len(a)], b[len(b)] = first, second
    assert cohen(a, b, values=["y", "n"]) == (pytest.approx(0.4), 50)


def test_agreement_from_the_projects_votes(project, add_mistakes):
    """The Cohen example voted by two panelists: kappa 0.4, alpha 0.4, Fleiss
    (Scott's pi for two raters) 0.394, and the matrix cell lists the 15 disagreements."""
    items = add_mistakes(project, [(100 + i, True) for i in range(50)])
    ann, bob = acts.add_panelist(project, "ann").value.id, acts.add_panelist(project, "bob").value.id
    plan = [("wrong", "wrong")] * 20 + [("wrong", "correct")] * 5 + [("correct", "wrong")] * 10 + \
           [("correct", "correct")] * 15
    for item, (first, second) in zip(items, plan):
        acts.vote(project, panelist_id=ann, item=item, verdict=first)
        acts.vote(project, panelist_id=bob, item=item, verdict=second)
    snap = snapshot_of(project)
    verdict = {r.field: r for r in agreement_report(snap, resamples=100)}["verdict"]
    assert (verdict.phase, verdict.raters, verdict.items, verdict.complete_items) == (1, 2, 50, 50)
    assert verdict.percent.value == pytest.approx(0.7)
    assert verdict.unanimous_share == pytest.approx(0.7)
    assert verdict.alpha_nominal.value == pytest.approx(1 - 99 * 30 / (2 * 55 * 45))
    assert verdict.fleiss_kappa.value == pytest.approx((0.7 - 0.505) / 0.495)
    # AC1 over q = 3 verdicts: pi(wrong) = 27.5/50, pi(correct) = 22.5/50, p_e = 2 * 0.55 * 0.45 / 2.
    assert verdict.gwet_ac1.value == pytest.approx((0.7 - 0.2475) / (1 - 0.2475))
    assert verdict.alpha_ordinal is None
    matrix = pairwise_kappa(snap, "verdict")
    assert matrix.names == ["ann", "bob"]
    assert matrix.kappa[0][1] == pytest.approx(0.4) and matrix.kappa[1][0] == pytest.approx(0.4)
    assert matrix.disagreements[0][1] == 15 and matrix.common[0][1] == 50
    assert disagreeing_items(snap, field="verdict", first=ann, second=bob) == items[20:35]


def test_gwet_ac1_handbook_example():
    """Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed., p. 120: 4 raters, 12 units, 5 categories,
    missing ratings (irrCAC's dataset cac.raw4raters: Krippendorff's 2011 data above). Published:
    p_a = 0.8181818, p_e = 0.1903212, AC1 = 0.7754 (irrCAC's gwet.ac1.raw; afergadis/irrCAC's tests: 0.818,
    0.190, 0.775). The unit rated once counts in p_e, not in p_a."""
    ratings = {f"observer {r}": {u: v for u, v in enumerate(row) if v is not None}
               for r, row in enumerate(KRIPPENDORFF_2011)}
    result = field_agreement(ratings, values=[1, 2, 3, 4, 5], resamples=200, seed=1)
    assert result.gwet_ac1.value == pytest.approx((0.8181818 - 0.1903212) / (1 - 0.1903212), abs=1e-6)
    assert result.gwet_ac1.value == pytest.approx(0.7754, abs=5e-5)
    assert result.gwet_ac1.low < result.gwet_ac1.value <= result.gwet_ac1.high


def test_gwet_ac1_two_raters_table():
    """irrCAC's vignette, cont3x3abstractors (2 raters, 100 subjects; from Gwet's handbook): gwet.ac1.table gives
    AC1 = 0.8493305 beside Cohen's kappa 0.7964094."""
    table = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
    pairs = [(i, j) for i, row in enumerate(table) for j, n in enumerate(row) for _ in range(n)]  # 100 subjects
    counts = [[(i == k) + (j == k) for k in range(3)] for i, j in pairs]
    assert gwet_ac1(counts) == pytest.approx(0.8493305, abs=1e-7)
    first, second = dict(enumerate(i for i, _ in pairs)), dict(enumerate(j for _, j in pairs))
    assert cohen(first, second, values=[0, 1, 2])[0] == pytest.approx(0.7964094, abs=1e-7)


def test_ac1_stays_high_where_kappa_collapses():
    """The kappa paradox: two panelists agree on 19 of 20 verdicts, all 'correct', and split once
    (correct / wrong). Fleiss: P-bar 0.95, chance 0.975^2 + 0.025^2 = 0.95125, kappa -1/39 = -0.026. AC1 over
    the 3 verdicts: pi = (0.975, 0.025, 0), p_e = 2 * 0.975 * 0.025 / 2 = 0.024375, AC1 = 0.9487."""
    ratings = {"ann": {u: "correct" for u in range(20)}, "bob": {u: "correct" for u in range(19)} | {19: "wrong"}}
    result = field_agreement(ratings, values=["correct", "wrong", "unclear"], resamples=0)
    assert result.fleiss_kappa.value == pytest.approx((0.95 - 0.95125) / (1 - 0.95125))
    assert result.gwet_ac1.value == pytest.approx((0.95 - 0.024375) / (1 - 0.024375))
    assert gwet_ac1([[1, 0, 0]]) is None  # no unit with two ratings: undefined, not 0
