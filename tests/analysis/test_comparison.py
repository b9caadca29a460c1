"""Model against model (the paper's §3.1, §4.3): overlap of mistakes, novel predictions
judged correct, and the chi-square test, on a case counted by hand."""

from __future__ import annotations

import numpy as np
import pytest
from project_data import new_project
from review_data import add_images, add_run, decide, decisions_table_of, read_with
from scipy.stats import chi2

from reviewer.analysis.comparison import compared_runs, mistake_overlap, novel_judgements, novel_share_tests
from reviewer.analysis.report import ReportOptions
from reviewer.analysis.report_json import report_json
from reviewer.app.report import build_report


@pytest.fixture
def two_models(templates, tmp_path):
    """Eight images (original 100 + i; image 8 lists 900 as a wrong label). Runs A and B:

    img  A     B     mistakes
    1    101   101   none
    2    502   102   A only
    3    103   503   B only
    4    504   504   both, same prediction
    5    505   605   both, different predictions
    6    506   606   both, different
    7    507   107   A only
    8    900   901   both, different; A's 900 is a wrong label already (not novel)
    """
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        originals = [100 + i for i in range(1, 9)]
        ids = add_images(project, originals, labels={7: {"correct": [108], "wrong": [900]}})
        img = dict(zip(range(1, 9), ids))
        a = add_run(project, "A", dict(zip(ids, [101, 502, 103, 504, 505, 506, 507, 900])))
        b = add_run(project, "B", dict(zip(ids, [101, 102, 503, 504, 605, 606, 107, 901])))
        # The panel: A's novel 502 correct, 504 unclear (B shares it), 505 wrong + problematic, 506 wrong,
        # 507 undecided; B's 503 correct, 605 wrong, 606 wrong, 901 wrong.
        decide(project, img[2], 502, "correct")
        decide(project, img[4], 504, "unclear")
        decide(project, img[5], 505, "wrong", severity="minor", category="fine_grained", problematic=True)
        decide(project, img[6], 506, "wrong", severity="major", category="fine_grained")
        decide(project, img[3], 503, "correct")
        for i, p in ((5, 605), (6, 606), (8, 901)):
            decide(project, img[i], p, "wrong", severity="major", category="fine_grained")
        project.runs = a, b
        return project

    project = templates.copy(build, tmp_path)  # made once, copied per test
    return project, *project.runs


def test_overlap_of_mistakes(two_models):
    project, a, b = two_models
    runs = read_with(project, compared_runs)
    assert runs == {"A": a, "B": b}
    (row,) = read_with(project, mistake_overlap, runs=runs).to_dict(orient="records")
    assert row == {"model_a": "A", "model_b": "B", "run_a": a, "run_b": b, "images": 8, "mistakes_a": 6,
                   "mistakes_b": 5, "only_a": 2, "only_b": 1, "both_same": 1, "both_different": 3}


def test_novel_predictions_judged_correct_and_their_test(two_models):
    project, a, b = two_models
    novel = read_with(project, novel_judgements, runs=read_with(project, compared_runs),
                      decisions=decisions_table_of(project)).set_index("model")
    # A: novel 502, 504, 505, 506, 507 (900 was a wrong label): decided 4, judged correct 502, 504 and
    # 505 (problematic) = 3. B: novel 503, 504, 605, 606, 901: all decided, judged correct 503, 504 = 2.
    assert novel.loc["A", ["novel", "undecided", "decided", "judged_correct"]].tolist() == [5, 1, 4, 3]
    assert novel.loc["A", ["correct", "unclear", "problematic", "wrong"]].tolist() == [1, 1, 1, 2]
    assert novel.loc["B", ["novel", "decided", "judged_correct"]].tolist() == [5, 5, 2]
    assert novel.loc["A", "share"] == pytest.approx(3 / 4) and novel.loc["B", "share"] == pytest.approx(2 / 5)
    (test,) = novel_share_tests(novel.reset_index()).to_dict(orient="records")
    table = np.array([[3, 1], [2, 3]], dtype=float)  # Pearson's statistic by hand, no continuity correction
    expected = np.outer(table.sum(1), table.sum(0)) / table.sum()
    stat = ((table - expected) ** 2 / expected).sum()
    assert (test["n_a"], test["n_b"], test["dof"]) == (4, 5, 1)
    assert test["chi2"] == pytest.approx(stat) and test["p_value"] == pytest.approx(chi2.sf(stat, 1))


def test_the_papers_counts_give_a_test_a_user_can_check():
    """ViT-3B 140 of 221 novel predictions deemed correct, Greedy Soups 92 of 198 (§3.1, §4.3)."""
    import pandas as pd

    novel = pd.DataFrame([{"model": "vit3b", "decided": 221, "judged_correct": 140},
                          {"model": "greedy_soups", "decided": 198, "judged_correct": 92}])
    (test,) = novel_share_tests(novel).to_dict(orient="records")
    table = np.array([[140, 81], [92, 106]], dtype=float)
    expected = np.outer(table.sum(1), table.sum(0)) / table.sum()
    assert test["chi2"] == pytest.approx(((table - expected) ** 2 / expected).sum())
    assert test["p_value"] < 0.001  # the panel kept far more of ViT-3B's novel predictions


def test_in_the_report(two_models):
    project, a, b = two_models
    analysis = report_json(build_report(project, ReportOptions(yates=True)))
    comparison = analysis["model_comparison"]
    assert comparison["overlap"][0]["only_a"] == 2 and comparison["novel"][0]["judged_correct"] == 3
    table = np.array([[3, 1], [2, 3]], dtype=float)
    expected = np.outer(table.sum(1), table.sum(0)) / table.sum()
    yates = ((np.abs(table - expected) - 0.5) ** 2 / expected).sum()
    assert comparison["chi_square"][0]["chi2"] == pytest.approx(yates)
