"""The Models and Distance sections of the analysis say what they count (issue 23's walk):
"judged correct" counts the correct verdicts alone, unclear has its own share, and a
section with nothing to plot says why."""

from __future__ import annotations

import pytest
from project_data import new_project
from review_data import add_images, add_run, decide, decisions_table_of, read_with

from reviewer.analysis.comparison import compared_runs, novel_judgements
from reviewer.analysis.render import to_markdown
from reviewer.analysis.sections import report_sections
from reviewer.app.report import build_report


@pytest.fixture
def project(templates, tmp_path):
    """Three fish images (classes 1-3) that a run gets wrong (40, 50, 60): novel predictions."""
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        project.ids = add_images(project, [1, 2, 3])
        add_run(project, "model-A", dict(zip(project.ids, [40, 50, 60])), probs=dict.fromkeys(project.ids, 0.8))
        return project

    return templates.copy(build, tmp_path)  # made once, copied per test


def section(project, tmp_path, short: str):
    return next(s for s in report_sections(build_report(project), tmp_path) if s.short == short)


def test_judged_correct_counts_no_unclear_item(project, tmp_path):
    ids = project.ids
    decide(project, ids[0], 40, "unclear")
    decide(project, ids[1], 50, "unclear")
    decide(project, ids[2], 60, "wrong", severity="major", category="fine_grained")
    (row,) = read_with(project, novel_judgements, runs=read_with(project, compared_runs),
                       decisions=decisions_table_of(project)).to_dict(orient="records")
    assert (row["decided"], row["correct"], row["unclear"]) == (3, 0, 2)
    assert row["correct_share"] == 0 and row["unclear_share"] == pytest.approx(2 / 3)
    assert row["share"] == pytest.approx(2 / 3)  # the paper's "deemed correct": correct, unclear or problematic
    models = section(project, tmp_path, "Models")
    caption, table = next((c, t) for c, t in models.tables if c.startswith("Novel predictions"))
    cells = table.iloc[0].to_dict()
    assert cells["judged correct"] == "0.0% (0/3)"
    assert cells["judged unclear"] == "66.7% (2/3)"
    assert cells["correct, unclear or problematic"] == "66.7% (2/3)"


def test_the_distance_section_says_why_it_is_empty(project, tmp_path):
    empty = section(project, tmp_path, "Distance")
    assert not empty.tables and not empty.images
    assert empty.empty.startswith("Nothing to plot yet: no mistake is decided wrong")
    decide(project, project.ids[0], 40, "correct")
    assert section(project, tmp_path, "Distance").empty == empty.empty
    decide(project, project.ids[2], 60, "wrong")  # no category given
    unrated = section(project, tmp_path, "Distance")
    assert unrated.empty.startswith("Nothing to plot yet: none of the 1 mistakes decided wrong has a failure category")
    assert f"**{unrated.empty}**" in to_markdown([unrated], "report")
    decide(project, project.ids[1], 50, "wrong", severity="minor", category="fine_grained")
    plotted = section(project, tmp_path, "Distance")
    assert plotted.tables and plotted.empty == ""
