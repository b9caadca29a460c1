"""The report's panel section on a panel whose every figure is counted by hand: Gwet's AC1
beside kappa and alpha, each panelist against the final decisions with Wilson intervals,
Dawid–Skene's accuracy, and the queue orders the votes were cast in."""

from __future__ import annotations

import math

import pytest
from project_data import new_project

from reviewer.analysis.render import to_markdown
from reviewer.analysis.report import ReportOptions
from reviewer.analysis.report_json import report_json
from reviewer.analysis.sections.panel import panel_section
from reviewer.app import panel as acts
from reviewer.app.report import build_report

# ann (the chair), bob, cy on six novel items; None: not voted.
VERDICTS = [("wrong", "wrong", "wrong"), ("wrong", "wrong", "correct"), ("correct", "correct", "correct"),
            ("wrong", "correct", "correct"), ("unclear", "wrong", "wrong"), ("wrong", "wrong", None)]


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson (1927) score interval, written out here from its formula."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.fixture
def panel_project(templates, tmp_path, add_mistakes):
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        items = add_mistakes(project, [(10 + i, True) for i in range(6)])
        ann, bob, cy = (acts.add_panelist(project, n, chair=n == "ann").value.id for n in ("ann", "bob", "cy"))
        for item, votes in zip(items, VERDICTS):
            for who, verdict in zip((ann, bob, cy), votes):
                if verdict:  # ann works in the 'most informative next' order of the review page
                    acts.vote(project, panelist_id=who, item=item, verdict=verdict,
                              queue_order="informative" if who == ann else None)
        for item in (items[1], items[3], items[4]):
            acts.lock(project, chair_id=ann, item=item)
        return project

    project = templates.copy(build, tmp_path)  # made once, copied per test
    yield project
    project.close()


def test_the_panel_section_counts_by_hand(panel_project, tmp_path):
    """Verdict, six items with two or more votes, q = 3 values. p_a = (1 + 1/3 + 1 + 1/3 + 1/3 + 1) / 6 = 2/3;
    pi(wrong) = 11/18, pi(correct) = 1/3, pi(unclear) = 1/18, so p_e = (77 + 72 + 17) / 324 / 2 = 83/324 and
    AC1 = (2/3 - 83/324) / (1 - 83/324) = 133/241. Five decisions (items 0 and 2 unanimous; 1, 3 and 4 locked
    by majority): ann's verdict misses 3 and 4 (3/5), bob's none (5/5), cy's item 1 (4/5). Current votes:
    ann's 6 cast in the 'informative' order, bob's 6 and cy's 5 with none recorded."""
    report = build_report(panel_project, ReportOptions(agreement_resamples=50))
    panel = report.panel
    verdict = next(r for r in panel.fields if r.field == "verdict")
    assert verdict.gwet_ac1.value == pytest.approx(133 / 241)
    assert panel.reliability.decided == 5
    cells = {row.reliability.name: row for row in panel.panelists}
    assert (cells["cy"].reliability.matches["verdict"].agreements, cells["cy"].reliability.matches["verdict"].n) == (4, 5)
    assert cells["cy"].intervals["verdict"] == pytest.approx(wilson(4, 5))
    assert panel.votes_by_order == {"informative": 6, "not recorded": 11}

    section = panel_section(panel)
    (_, fields), (_, people), (_, orders) = section.tables
    assert fields.set_index("field").loc["verdict", "Gwet's AC1"].startswith(f"{133 / 241:.3f} [")
    low, high = wilson(4, 5)
    assert people.set_index("panelist").loc["cy", "verdict = decision"] == (
        f"80.0% (4/5), 95% CI {100 * low:.1f}-{100 * high:.1f}%")
    assert people.set_index("panelist").loc["bob", "verdict = decision"].startswith("100.0% (5/5)")
    assert orders.set_index("queue order").loc["informative", "current votes"] == "35.3% (6/17)"
    assert "Gwet's AC1" in to_markdown([section], "report")
    data = report_json(report)["panel"]
    assert data["votes_by_queue_order"] == {"informative": 6, "not recorded": 11}
    assert next(p for p in data["panelists"] if p["name"] == "cy")["verdict_agreement"]["agreements"] == 4


def test_no_panel_says_so(tmp_path):
    project = new_project(tmp_path / "p")
    section = panel_section(build_report(project, ReportOptions(agreement_resamples=10)).panel)
    assert section.text == "No panelist yet: the panel's agreement waits for the first votes." and not section.tables
    project.close()
