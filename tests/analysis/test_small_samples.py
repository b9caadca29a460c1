"""Chi-square tests on small counts are marked and carry an exact p, checked against a
brute-force enumeration of every table with the same margins (the hypergeometric
probabilities written out from their definition, in exact fractions)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import factorial, prod

import numpy as np
import pandas as pd
import pytest

from reviewer.analysis.comparison import novel_share_tests
from reviewer.analysis.tables import chi_square_tests, freeman_halton


def table_probability(table) -> Fraction:
    """P(table | its margins) = prod(row totals!) prod(column totals!) / (n! prod(cells!))."""
    rows = [sum(r) for r in table]
    columns = [sum(c) for c in zip(*table)]
    n = sum(rows)
    return Fraction(prod(map(factorial, rows)) * prod(map(factorial, columns)),
                    factorial(n) * prod(factorial(x) for r in table for x in r))


def exact_p_by_enumeration(table) -> float:
    """Sum of P over every r x c table with the observed margins no more probable than the observed."""
    rows = [sum(r) for r in table]
    columns = [sum(c) for c in zip(*table)]
    r, c = len(rows), len(columns)
    observed = table_probability(table)
    total = Fraction(0)
    # Every (r-1) x (c-1) top-left block; the last row and column follow from the margins.
    for cells in product(*(range(min(rows[i], columns[j]) + 1) for i in range(r - 1) for j in range(c - 1))):
        block = [list(cells[i * (c - 1):(i + 1) * (c - 1)]) for i in range(r - 1)]
        for i in range(r - 1):
            block[i].append(rows[i] - sum(block[i]))
        block.append([columns[j] - sum(block[i][j] for i in range(r - 1)) for j in range(c)])
        if any(x < 0 for row in block for x in row):
            continue
        p = table_probability(block)
        if p <= observed:
            total += p
    return float(total)


def expected_minimum(table) -> float:
    rows = [sum(r) for r in table]
    columns = [sum(c) for c in zip(*table)]
    return min(a * b for a in rows for b in columns) / sum(rows)


def test_the_brute_force_reference_is_fisher_on_a_textbook_table():
    """Fisher's tea-tasting table: 4 of 4 cups right, p = 2/70 two-sided (Fisher 1935)."""
    assert exact_p_by_enumeration([[4, 0], [0, 4]]) == pytest.approx(2 / 70)


@pytest.mark.parametrize("table", [[[3, 1, 0], [0, 2, 4]], [[5, 0, 2, 1], [1, 4, 0, 3]], [[7, 2, 1], [6, 1, 0]]])
def test_freeman_halton_on_2_x_c_matches_the_enumeration(table):
    p, how = freeman_halton(np.array(table))
    assert how == "Freeman-Halton exact"
    assert p == pytest.approx(exact_p_by_enumeration(table), rel=1e-9)


def test_too_many_tables_fall_back_to_a_seeded_monte_carlo_named_in_the_output():
    table = np.array([[9, 4, 1, 6], [2, 7, 3, 8]])
    exact = exact_p_by_enumeration(table.tolist())
    p, how = freeman_halton(table, limit=10)
    assert how == "Freeman-Halton Monte Carlo (100000 resamples, seed 0)"
    assert abs(p - exact) < 4 * np.sqrt(exact * (1 - exact) / 100_000)
    assert freeman_halton(table, limit=10) == (p, how)  # the same seed, the same p
    assert freeman_halton(table, limit=10, seed=1)[0] != p


def test_small_expected_counts_are_marked_with_an_exact_p():
    counts = pd.DataFrame([[3, 1, 0, 0], [0, 2, 4, 0], [40, 30, 35, 0]], index=["a", "b", "c"],
                          columns=["fine_grained", "fine_grained_oov", "spurious_correlation", "non_prototypical"])
    tests = chi_square_tests(counts).set_index(["model_a", "model_b"])
    small = tests.loc[("a", "b")]  # the empty level is left out: a 2 x 3 table
    assert small["dof"] == 2 and bool(small["small_sample"])
    assert small["min_expected"] == pytest.approx(expected_minimum([[3, 1, 0], [0, 2, 4]]))
    assert small["fisher_p"] == pytest.approx(exact_p_by_enumeration([[3, 1, 0], [0, 2, 4]]))
    assert small["fisher_test"] == "Freeman-Halton exact"
    # 4 against 105 mistakes: still expected counts below 5, so still marked.
    assert bool(tests.loc[("a", "c"), "small_sample"])


def test_a_2_x_2_table_gets_fishers_exact_test_and_large_counts_none():
    counts = pd.DataFrame([[1, 8], [9, 3], [120, 100], [110, 130]], index=["a", "b", "c", "d"],
                          columns=["major", "minor"])
    tests = chi_square_tests(counts).set_index(["model_a", "model_b"])
    row = tests.loc[("a", "b")]
    assert bool(row["small_sample"]) and row["fisher_test"] == "Fisher exact"
    assert row["fisher_p"] == pytest.approx(exact_p_by_enumeration([[1, 8], [9, 3]]))
    large = tests.loc[("c", "d")]
    assert large["min_expected"] == pytest.approx(expected_minimum([[120, 100], [110, 130]]))
    assert not large["small_sample"] and np.isnan(large["fisher_p"]) and large["fisher_test"] == ""


def test_the_novel_share_test_is_checked_too():
    novel = pd.DataFrame({"model": ["a", "b"], "decided": [5, 6], "judged_correct": [4, 1]})
    (test,) = novel_share_tests(novel).to_dict(orient="records")
    assert test["small_sample"] and test["fisher_test"] == "Fisher exact"
    assert test["fisher_p"] == pytest.approx(exact_p_by_enumeration([[4, 1], [1, 5]]))
