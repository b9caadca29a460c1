"""Chi-square tests of independence between every two models' category and severity
counts, with an exact test where an expected count is small (`reviewer.analysis.tables`)."""

from __future__ import annotations

import pandas as pd

from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.section import Section
from reviewer.analysis.tables import SMALL_EXPECTED


def chi_table(tests: pd.DataFrame) -> pd.DataFrame:
    """Chi-square tests (`reviewer.analysis.tables.chi_square_tests`) as cells, the exact p where it counts."""
    return pd.DataFrame({"model A": tests["model_a"], "model B": tests["model_b"],
                         "n A": tests["n_a"].astype(str), "n B": tests["n_b"].astype(str),
                         "chi²": [f"{v:.3f}" if pd.notna(v) else "–" for v in tests["chi2"]],
                         "dof": tests["dof"].astype(str),
                         "p": [f"{v:.4f}" if pd.notna(v) else "–" for v in tests["p_value"]],
                         "min expected": [f"{v:.2f}" + (f" (< {SMALL_EXPECTED})" if small else "")
                                          if pd.notna(v) else "–"
                                          for v, small in zip(tests["min_expected"], tests["small_sample"])],
                         "exact p": [f"{p:.4f} ({name})" if small else ""
                                     for p, name, small in zip(tests["fisher_p"], tests["fisher_test"],
                                                               tests["small_sample"])]})


def small_sample_warning(*tests: pd.DataFrame) -> list[str]:
    """A warning when a test rests on an expected count below SMALL_EXPECTED (Cochran's rule); none otherwise."""
    small = sum(int(t["small_sample"].sum()) for t in tests if len(t))
    if not small:
        return []
    return [f"{small} test{'s have' if small > 1 else ' has'} an expected count below {SMALL_EXPECTED} (see "
            "'min expected'): the chi-square p is not reliable there; read the exact p beside it (Fisher's exact "
            "test on 2 × 2, Freeman-Halton on larger tables)."]


def chi_square_section(report: AnalysisReport) -> Section:
    o = report.options
    text = ("Pearson's chi-square test on each pair of models' counts (levels neither model has left out)"
            + (", Yates-corrected on 2 × 2 tables." if o.yates else ", no continuity correction.")
            + f" Where an expected count is below {SMALL_EXPECTED} (Cochran's rule) the test is marked and an exact "
            "p given: Fisher's exact test on 2 × 2 tables, Freeman and Halton's extension on larger ones (exact "
            "enumeration of the tables with the same margins, or Monte Carlo where there are too many: the "
            "resamples and seed are named). Final decisions and imported reviews only.")
    return Section("Chi-square tests of independence between models", text, short="Chi-square",
                   tables=[("Categories", chi_table(report.chi_categories)),
                           ("Severities", chi_table(report.chi_severities))],
                   warnings=small_sample_warning(report.chi_categories, report.chi_severities))
