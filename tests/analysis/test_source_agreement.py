"""Source reliability on a hand-built case: published-format evidence files (a ReaL real.json of
50,000 rows, a cleanlab imagenet_mturk.json subset, a Flaws of ImageNet relabeling that covers none
of the project's images, the class groups) against final decisions, with the counts and Wilson
intervals worked out here by hand."""

from __future__ import annotations

import json
import math

import pytest
from project_data import new_project
from review_data import decide
from statsmodels.stats.proportion import proportion_confint

from reviewer.analysis.render import to_markdown, write_report
from reviewer.analysis.report import ReportOptions
from reviewer.analysis.report_json import report_json
from reviewer.analysis.sections import report_sections
from reviewer.analysis.source_agreement import wilson_interval
from reviewer.app.evidence import import_evidence
from reviewer.app.report import build_report
from reviewer.panel.votes import cast_vote, get_panelist

Z = 1.959963984540054


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    """Wilson (1927): the p solving |p̂ - p| = z sqrt(p (1 - p) / n), written out as the roots of
    (1 + z²/n) p² - (2p̂ + z²/n) p + p̂² = 0."""
    p_hat = k / n
    a = 1 + Z**2 / n
    b = -(2 * p_hat + Z**2 / n)
    c = p_hat**2
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


def val(number: int) -> str:
    return f"ILSVRC2012_val_{number:08d}.JPEG"


def mturk(number: int, given_label: int, guessed_label: int, **answers: int) -> dict:
    """A record of cleanlab's imagenet_mturk.json; `answers`: the MTurk counts given, guessed, neither, both."""
    return {"id": number, "given_original_label": given_label, "our_guessed_label": guessed_label,
            "mturk": {"given": 0, "guessed": 0, "neither": 0, "both": 0, **answers}}


@pytest.fixture
def hand_built(templates, tmp_path, add_mistakes, shared_data):
    """Nine mistakes of images val 1-9 (original labels 0-8), predicted 101-109.

    image  predicted  panel             ReaL labels      cleanlab (given, guessed; MTurk)
      1      101      correct           [101] accepts    0, 101; 4 guessed, 1 given: accepts
      2      102      correct           [1]   rejects    1, 102; 5 given: rejects
      3      103      wrong             [2]   rejects    2, 500; 3 given, 2 guessed: no word on 103
      4      104      wrong             [104, 3] accepts not flagged
      5      105      unclear           [105] accepts    4, 105; 3 both, 2 neither: accepts
      6      106      wrong             []    no word    5, 106; 4 neither, 1 guessed: rejects
      7      107      correct           [107] accepts    not flagged
      8      108      none yet          [108] accepts    not flagged
      9      109      correct, reopened [109] accepts    not flagged
    """
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        items = add_mistakes(project, [(100 + i, True) for i in range(1, 10)])
        for item, verdict in zip(items, ["correct", "correct", "wrong", "wrong", "unclear", "wrong", "correct"]):
            decide(project, item.image_id, item.predicted, verdict,
                   **({"severity": "major", "category": "fine_grained"} if verdict == "wrong" else {}))
        decide(project, items[8].image_id, 109, "correct")
        decide(project, items[8].image_id, 109, None, method="reopened")

        real = [[] for _ in range(50_000)]
        for number, labels in {1: [101], 2: [1], 3: [2], 4: [104, 3], 5: [105], 6: [], 7: [107], 8: [108],
                               9: [109], 100: [7]}.items():
            real[number - 1] = labels
        (tmp_path / "real.json").write_text(json.dumps(real))
        (tmp_path / "imagenet_mturk.json").write_text(json.dumps([
            mturk(1, 0, 101, guessed=4, given=1), mturk(2, 1, 102, given=5), mturk(3, 2, 500, given=3, guessed=2),
            mturk(5, 4, 105, both=3, neither=2), mturk(6, 5, 106, neither=4, guessed=1),
            mturk(4000, 9, 10, guessed=5)]))
        (tmp_path / "finegrained.csv").write_text(
            "id,category,original_label,proposed_labels,manually_validated\n"
            f"{val(40)},B,1,2,True\n")
        import_evidence(project, [tmp_path / "real.json", tmp_path / "imagenet_mturk.json",
                                  tmp_path / "finegrained.csv",
                                  shared_data / "published" / "flaws-of-imagenet" / "problem_groups_clusters.json"])
        project.items = items
        return project

    project = templates.copy(build, tmp_path)  # made once, copied per test
    yield project, project.items
    project.close()


def test_wilson_interval_against_the_formula_by_hand_and_statsmodels():
    for k, n in ((2, 3), (3, 5), (10, 12), (0, 10), (7, 7), (1, 1), (123, 456)):
        low, high = wilson_interval(k, n)
        assert (low, high) == pytest.approx(wilson_by_hand(k, n), abs=1e-12)
        assert (low, high) == pytest.approx(proportion_confint(k, n, alpha=0.05, method="wilson"), abs=1e-9)
    # The figures a reader can check on paper: 10 of 12 is 55.2-95.3%; 0 of 10 reaches 27.8%.
    assert [round(100 * x, 1) for x in wilson_interval(10, 12)] == [55.2, 95.3]
    assert wilson_interval(0, 10)[0] == 0 and round(wilson_interval(0, 10)[1], 4) == 0.2775
    assert wilson_interval(0, 0) is None


def test_each_source_against_the_panel_on_the_hand_built_case(hand_built, tmp_path):
    project, _ = hand_built
    report = build_report(project)
    reliability = report.source_reliability
    assert reliability.decided == 7  # item 8 is undecided, item 9 reopened
    by_name = {s.source: s for s in reliability.sources}
    # In the order of the evidence lines; the class groups and nothing else left out.
    assert list(by_name) == ["ReaL", "cleanlab", "Flaws of ImageNet (finegrained)"]

    real = by_name["ReaL"]
    # Agree: 1 (accepts, correct), 3 (rejects, wrong), 7 (accepts, correct); disagree: 2, 4; unclear: 5.
    assert (real.n, real.agreements, real.disagreements, real.unclear) == (5, 3, 2, 1)
    assert (real.covered, real.no_verdict) == (7, 1)  # image 6: ReaL leaves it out
    assert real.confusion == {"accepts": {"correct": 2, "wrong": 1, "unclear": 1},
                              "rejects": {"correct": 1, "wrong": 1, "unclear": 0}}
    assert real.share == 3 / 5
    assert real.interval == pytest.approx(wilson_by_hand(3, 5), abs=1e-12)

    cleanlab = by_name["cleanlab"]
    # Agree: 1 (accepts, correct), 6 (rejects, wrong); disagree: 2; unclear: 5; no word on 103 (image 3).
    assert (cleanlab.n, cleanlab.agreements, cleanlab.unclear, cleanlab.covered, cleanlab.no_verdict) == (3, 2, 1, 5, 1)
    assert cleanlab.confusion == {"accepts": {"correct": 1, "wrong": 0, "unclear": 1},
                                  "rejects": {"correct": 1, "wrong": 1, "unclear": 0}}
    assert cleanlab.interval == pytest.approx(wilson_by_hand(2, 3), abs=1e-12)

    flaws = by_name["Flaws of ImageNet (finegrained)"]
    assert (flaws.n, flaws.covered, flaws.share, flaws.interval) == (0, 0, None, None)

    # The JSON of `reviewer report --json` ...
    data = report_json(report)["source_reliability"]
    assert data["decided"] == 7 and data["note"] == "" and data["provisional"] is None
    rows = {row["source"]: row for row in data["sources"]}
    low, high = wilson_by_hand(2, 3)
    assert rows["cleanlab"]["n"] == 3 and rows["cleanlab"]["agreements"] == 2
    assert rows["cleanlab"]["ci_low"] == pytest.approx(low) and rows["cleanlab"]["ci_high"] == pytest.approx(high)
    assert rows["Flaws of ImageNet (finegrained)"]["share"] is None
    json.dumps(data)  # plain JSON

    # ... and the report's section: the table, the confusion table and the plot.
    sections = {s.title: s for s in report_sections(report, tmp_path)}
    section = sections["Source reliability"]
    assert section.short == "Sources" and section.images == ["source_reliability.png"]
    (caption, table), (_, confusion) = section.tables
    assert caption == "Agreement with the panel"
    cells = table.set_index("source")
    low, high = wilson_by_hand(3, 5)
    assert cells.loc["ReaL", "share agreeing"] == f"60.0% (3/5), 95% CI {100 * low:.1f}-{100 * high:.1f}%"
    assert cells.loc["ReaL", "share agreeing"] == "60.0% (3/5), 95% CI 23.1-88.2%"
    assert cells.loc["cleanlab", "share agreeing"] == "66.7% (2/3), 95% CI 20.8-93.9%"
    assert cells.loc["cleanlab", "unclear"] == "1"
    assert cells.loc["Flaws of ImageNet (finegrained)", "share agreeing"] == "no decided mistake covered"
    assert cells.loc["Flaws of ImageNet (finegrained)", "n"] == "0"
    assert confusion.set_index("source").loc["ReaL"].to_dict() == {
        "accepts, panel correct": "2", "accepts, panel wrong": "1", "accepts, panel unclear": "1",
        "rejects, panel correct": "1", "rejects, panel wrong": "1", "rejects, panel unclear": "0"}
    markdown = to_markdown(list(sections.values()), "t")
    assert "## Source reliability" in markdown and "| ReaL | 5 | 3 | 60.0% (3/5), 95% CI 23.1-88.2% | 1 |" in markdown
    path = write_report(report, tmp_path / "html", fmt="html")
    assert "Source reliability" in path.read_text() and (path.parent / "source_reliability.png").stat().st_size


def test_provisional_counts_the_current_majority_in_a_table_of_its_own(hand_built, tmp_path):
    project, items = hand_built
    ann = project.write(lambda s: get_panelist(session=s, name="ann", chair=True).id)
    project.write(lambda s: cast_vote(session=s, panelist_id=ann, item=items[7], verdict="correct",
                                      problematic=False))
    report = build_report(project, ReportOptions(provisional=True))
    assert {s.source: s.n for s in report.source_reliability.sources}["ReaL"] == 5  # the final table: unchanged
    real = {s.source: s for s in report.provisional_source_reliability.sources}["ReaL"]
    assert (report.provisional_source_reliability.decided, real.n, real.agreements) == (8, 6, 4)
    section = {s.title: s for s in report_sections(report, tmp_path)}["Source reliability"]
    assert section.images == ["source_reliability.png", "source_reliability_provisional.png"]
    caption, table = section.tables[2]
    assert caption.startswith("Agreement with the panel, PROVISIONAL")
    assert table.set_index("source").loc["ReaL (provisional)", "share agreeing"].startswith("66.7% (4/6)")
    assert report_json(report)["source_reliability"]["provisional"]["decided"] == 8


def test_no_evidence_or_nothing_decided_is_one_line(tmp_path, add_mistakes):
    project = new_project(tmp_path / "p")
    items = add_mistakes(project, [(101, True)])
    section = {s.title: s for s in report_sections(build_report(project), tmp_path)}["Source reliability"]
    assert section.text.startswith("No evidence source imported") and not section.tables and not section.images
    assert report_json(build_report(project))["source_reliability"]["sources"] == []

    (tmp_path / "mturk.json").write_text(json.dumps([mturk(1, 0, 101, guessed=5)]))
    import_evidence(project, [tmp_path / "mturk.json"])
    report = build_report(project)
    section = {s.title: s for s in report_sections(report, tmp_path)}["Source reliability"]
    assert section.text == "No mistake has a final decision yet: nothing to compare the evidence sources with."
    assert not section.tables and not section.images
    assert [s["n"] for s in report_json(report)["source_reliability"]["sources"]] == [0]

    decide(project, items[0].image_id, 101, "correct")
    cleanlab = build_report(project).source_reliability.sources[0]
    assert (cleanlab.n, cleanlab.agreements) == (1, 1)
    project.close()
