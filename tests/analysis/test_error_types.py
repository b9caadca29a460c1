"""The report's error types per run (reviewer.analysis.error_types, issue 37), on the real files of
tests/data (error_types_data): for every complete run, each error type's and severity's count and
share among its mistakes, from the panel's decisions, the published review (the raw JSON) and the
suggestions, counted per source; in `report --json`, the Markdown and HTML reports with the plot
against MLA, and the window's tab; the suggestions kept between reports, recomputed when the
evidence they read changes and not when a vote does."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest
from error_types_data import build

from reviewer.analysis.cache import FigureCache
from reviewer.analysis.report import ReportOptions, build_report
from reviewer.analysis.report_json import report_json
from reviewer.cli import main
from reviewer.project import Project

SPELLED = {"Fine-grained error": "fine_grained", "Fine-grained error with OOV": "fine_grained_oov",
           "Fine-grained with OOV": "fine_grained_oov", "Spurious Correlation": "spurious_correlation",
           "Non-prototypical": "non_prototypical", "Fine-grained with Multilabel Options": "fine_grained"}
TYPES = ("fine_grained", "fine_grained_oov", "spurious_correlation", "non_prototypical", "no_explanation")


@pytest.fixture(scope="module")
def made(tmp_path_factory, shared_data):
    return build(tmp_path_factory.mktemp("error_types"), shared_data)


@pytest.fixture
def project(made, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(made["root"], root, ignore=shutil.ignore_patterns("cache"))
    project = Project.open(root)
    yield project
    project.close()


def _json(project: Project, cache: FigureCache | None = None) -> dict:
    with project.read() as session:
        report = build_report(project, ReportOptions(), session=session, cache=cache)
    return json.loads(json.dumps(report_json(report), default=str))


def expected_counts(made, project: Project, run_id: int) -> dict:
    """{(error type or severity, source): count} among the run's counted mistakes: the decisions
    made, the raw review, else the suggestion `reviewer suggest` prints for the mistake."""
    from reviewer.app.suggest import suggest_mistakes

    listed = suggest_mistakes(project, run_id=run_id)["mistakes"]
    problematic_rows = {r[0] for r in made["rows"] if r[7] == "True"}
    flagged = {image for (image, _), d in made["decided"].items() if d[3]}
    counts: Counter = Counter()
    for m in listed:
        key = (m["image_id"], m["predicted"])
        if m["image_id"] in flagged or m["file_name"] in problematic_rows:
            continue
        item = made["review"].get(m["file_name"])
        if key in made["decided"]:
            verdict, severity, category, _ = made["decided"][key]
            if verdict != "wrong":
                continue
            answer = (category, severity, "panel")
        elif item is not None and item["top_prediction"] == m["predicted"]:
            answer = (SPELLED[item["failure category"]], item["failure severity"].lower(), "published")
        else:
            answer = (m["suggestion"]["error_type"], m["suggestion"]["severity"], "suggested")
        counts[("mistakes", answer[2])] += 1
        if answer[0] is not None:
            counts[(answer[0], answer[2])] += 1
        if answer[1] is not None:
            counts[("major" if answer[1] == "major" else "minor", answer[2])] += 1
    return counts


def test_every_run_has_its_error_types_counted_by_source(made, project):
    analysis = _json(project)
    runs = analysis["error_types"]["runs"]
    assert [r["run_id"] for r in runs] == [1, 2]
    mla = {row["run_id"]: row["all_after"] for row in analysis["mla"]}
    for run in runs:
        counts = expected_counts(made, project, run["run_id"])
        assert run["mla_after_review"] == pytest.approx(mla[run["run_id"]])
        assert run["sources"] == {s: counts[("mistakes", s)] for s in ("panel", "published", "suggested")}
        typed = sum(counts[(t, s)] for t in TYPES for s in ("panel", "published", "suggested"))
        for kind in TYPES:
            by_source = {s: counts[(kind, s)] for s in ("panel", "published", "suggested")}
            assert run["error_types"][kind]["by_source"] == by_source
            assert run["error_types"][kind]["share"] == pytest.approx(sum(by_source.values()) / typed)
        for level in ("major", "minor"):
            assert run["severity"][level]["count"] == sum(counts[(level, s)] for s in ("panel", "published",
                                                                                       "suggested"))
    first = runs[0]
    assert first["sources"]["panel"] == 3 and first["not_counted"] == 2  # 5 decided: 1 correct, 1 problematic
    assert first["sources"]["published"] >= 5 and first["sources"]["suggested"] > 100
    assert runs[1]["sources"]["published"] == 0  # run 2 never predicts what the review judged


def test_the_written_report_has_the_section_and_its_plot(project, tmp_path):
    for fmt, name in (("markdown", "report.md"), ("html", "report.html")):
        out = tmp_path / fmt
        assert main(["report", str(project.root), "--format", fmt, "--out", str(out)]) == 0
        text = (out / name).read_text()
        assert "Error types per run" in text and "Counts by where the answer came from" in text
        assert "the panel 3, a published review" in text and "No explanation found" in text
        assert (out / "error_types.png").stat().st_size > 10_000 and "error_types.png" in text
    # Most of each run's answers are suggestions: the report says so before its figures.
    assert "Most answers of runs 1, 2 are the categoriser's suggestions" in (tmp_path / "markdown" / "report.md"
                                                                           ).read_text()


def test_a_vote_keeps_the_suggestions_and_moves_the_shares(made, project):
    from review_data import decide

    before = _json(project, FigureCache(project.root, code="this code"))
    run = before["error_types"]["runs"][1]
    with project.read() as session:
        from reviewer.runs.mistakes import stored_mistakes

        m = next(m for m in stored_mistakes(session=session, run_id=2)
                 if (m.image_id, m.predicted) not in made["decided"])
    decide(project, m.image_id, m.predicted, "wrong", severity="major", category="non_prototypical")
    cache = FigureCache(project.root, code="this code")
    after = _json(project, cache)
    assert {"suggested-1", "suggested-2"} <= set(cache.hits)
    moved = after["error_types"]["runs"][1]
    assert moved["sources"]["panel"] == run["sources"]["panel"] + 1
    assert moved["sources"]["suggested"] == run["sources"]["suggested"] - 1
    assert moved["error_types"]["non_prototypical"]["by_source"]["panel"] == 1
    assert after == _json(project)  # never stale: a report computed afresh says the same


def test_new_evidence_recomputes_the_suggestions(made, project, shared_data):
    from reviewer.app.evidence import import_evidence

    _json(project, FigureCache(project.root, code="this code"))
    import_evidence(project, [shared_data / "published" / "flaws-of-imagenet" / "label_errors.csv"])
    cache = FigureCache(project.root, code="this code")
    kept = _json(project, cache)
    assert {"suggested-1", "suggested-2"} <= set(cache.misses)
    assert kept == _json(project)


@pytest.mark.gui
def test_the_analysis_window_shows_the_section_as_a_tab(made, qtbot):
    from reviewer.ui.dialogs.qt_analysis import QtAnalysisView

    project = Project.open(made["root"])
    view = QtAnalysisView(project, load=False)
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.loaded, timeout=120_000):
        view.refresh()
    titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]
    assert "Error types" in titles
    project.close()


def test_the_text_report_prints_each_runs_error_types_with_their_sources(made, project, capsys):
    """`reviewer report` (text) prints what `--json` gives: each run's counted mistakes, where
    the answers came from, and each error type's and severity's share among those answered."""
    data = _json(project)["error_types"]["runs"]
    assert main(["report", str(project.root)]) == 0
    out = capsys.readouterr().out
    assert "Error types per run" in out
    for run in data:
        sources = " / ".join(str(run["sources"][s]) for s in ("panel", "published", "suggested"))
        assert f"{run['counted']} counted (answers {sources})" in out
        for table in ("error_types", "severity"):
            total = sum(entry["count"] for entry in run[table].values())
            for level, entry in run[table].items():
                share = f"{100 * entry['count'] / total:.1f}% ({entry['count']}/{total})" if total else "-"
                assert f"{level.replace('_', ' ')} {share}" in out
