"""Before the chair locks, the report says so and can show provisional shares from the
votes; the provisional decision of an item is the one the chair's lock then records."""

from __future__ import annotations

import json

import pytest
from project_data import new_project
from review_data import add_images, add_run

from reviewer.analysis.render import write_report
from reviewer.analysis.report import ReportOptions, Unrated
from reviewer.analysis.report_json import report_json
from reviewer.app.report import build_report
from reviewer.cli import main
from reviewer.items import Item
from reviewer.panel.decisions import lock_all
from reviewer.panel.votes import cast_vote, get_panelist

PROVISIONAL = ReportOptions(provisional=True)


@pytest.fixture
def panel(templates, tmp_path):
    """Seven images; the run gets five wrong. The prediction on the fourth was a wrong label
    already (not novel: phase 2 only). Three panelists, ann the chair; nothing voted yet."""
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        ids = add_images(project, [1, 2, 3, 4, 5, 6, 7], labels={5: {"correct": [6], "wrong": [60]}})
        add_run(project, "model-A", dict(zip(ids, [1, 2, 30, 40, 50, 60, 70])), probs=dict.fromkeys(ids, 0.8))
        people = project.write(lambda s: [get_panelist(session=s, name=n, chair=n == "ann").id
                                          for n in ("ann", "bob", "cy")])
        items = [Item(ids[i], p) for i, p in ((2, 30), (3, 40), (4, 50), (5, 60), (6, 70))]
        # Here only the chair's lock decides (the chair turned the paper's "unanimous is final" off),
        # so what the votes give stays provisional until the lock: reviewer.panel.final.
        project.set_setting("unanimous_final", "off")
        project.panel = dict(zip(("ann", "bob", "cy"), people)), items
        return project

    project = templates.copy(build, tmp_path)  # made once, copied per test
    return project, *project.panel


def vote(project, panelist_id, item, **fields):
    project.write(lambda s: cast_vote(session=s, panelist_id=panelist_id, item=item, **fields))


def lock(project, chair_id):
    project.write(lambda s: lock_all(session=s, chair_id=chair_id))


def counts(report, name: str) -> dict:
    return getattr(report, name).to_dict(orient="index")


def test_nothing_locked_is_said_and_provisional_shares_are_what_the_lock_then_records(panel, tmp_path):
    project, who, (a, b, c, d, e) = panel
    report = build_report(project)
    assert report.note == "No final decision yet: the panel's own mistakes are not counted; no item " \
                          "has votes yet."
    wrong = dict(verdict="wrong", problematic=False)
    # a: wrong 2 - correct 1, major, fine-grained; b: a verdict tie (unclear: no mistake);
    # c: minor 2 - major 1 and a category tie (none); d: already wrong, rated only;
    # e: flagged problematic by two of three, minor, non-prototypical.
    for name, cat in (("ann", "fine_grained"), ("bob", "fine_grained")):
        vote(project, who[name], a, **wrong, severity="major", category=cat)
    vote(project, who["cy"], a, verdict="correct", problematic=False)
    for name, verdict in (("ann", "wrong"), ("bob", "correct"), ("cy", "unclear")):
        vote(project, who[name], b, verdict=verdict, problematic=False,
             **({"severity": "minor", "category": "fine_grained"} if verdict == "wrong" else {}))
    for name, sev, cat in (("ann", "major", "fine_grained"), ("bob", "minor", "spurious_correlation"),
                           ("cy", "minor", "non_prototypical")):
        vote(project, who[name], c, **wrong, severity=sev, category=cat)
    for name, sev, cat in (("ann", "minor", "spurious_correlation"), ("bob", "minor", "spurious_correlation"),
                           ("cy", "major", "fine_grained")):
        vote(project, who[name], d, severity=sev, category=cat)
    for name in ("ann", "bob", "cy"):
        vote(project, who[name], e, verdict="wrong", problematic=name != "cy", severity="minor",
             category="non_prototypical")

    final = build_report(project)
    assert "model-A" not in final.categories.index and final.provisional_categories.empty
    assert final.note.startswith("No final decision yet: the panel's own mistakes are not counted; "
                                 "5 items have votes.")
    provisional = build_report(project, PROVISIONAL)
    marked = provisional.provisional_reviewed
    # b is unclear: no mistake; e's image is problematic: no mistake either (the paper leaves
    # problematic images out before it categorises). a major; c and d minor.
    assert set(marked["source"]) == {"provisional"} and len(marked) == 3
    assert counts(provisional, "provisional_severities") == {"model-A": {"major": 1, "minor": 2}}
    assert counts(provisional, "provisional_categories") == {"model-A": {
        "fine_grained": 1, "fine_grained_oov": 0, "spurious_correlation": 1, "non_prototypical": 0}}

    lock(project, who["ann"])
    # A lock settles severity and category only once everyone has rated: cy voted a correct, so a
    # is locked wrong, not rated, and its ratings so far stay provisional.
    locked = build_report(project, PROVISIONAL)
    assert locked.unrated == {"model-A": Unrated(category=2, severity=1)}  # a; and c's category tie
    assert locked.note == ""  # every item with votes has a final decision
    assert counts(locked, "provisional_severities") == counts(provisional, "provisional_severities")
    assert set(locked.provisional_reviewed["source"]) == {"panel", "provisional"}
    vote(project, who["cy"], a, severity="minor", category="spurious_correlation")
    lock(project, who["ann"])
    final = build_report(project, PROVISIONAL)
    assert counts(final, "severities") == counts(provisional, "provisional_severities")
    assert counts(final, "categories") == counts(provisional, "provisional_categories")
    assert final.provisional_categories.empty  # nothing left to be provisional


def test_a_locked_wrong_still_being_rated_takes_the_ratings_cast_so_far(panel):
    project, who, (a, *_) = panel
    for name in who:
        vote(project, who[name], a, verdict="wrong", problematic=False)
    lock(project, who["ann"])  # the verdict only: phase 2 opens for everyone
    vote(project, who["bob"], a, severity="minor", category="spurious_correlation")
    vote(project, who["cy"], a, severity="minor", category="fine_grained")
    vote(project, who["ann"], a, severity="major", category="spurious_correlation")
    report = build_report(project, PROVISIONAL)
    assert report.unrated == {"model-A": Unrated(category=1, severity=1)}  # final: locked wrong, not rated yet
    assert counts(report, "provisional_categories")["model-A"]["spurious_correlation"] == 1
    assert counts(report, "provisional_severities")["model-A"] == {"major": 0, "minor": 1}
    lock(project, who["ann"])
    assert counts(build_report(project), "severities")["model-A"] == {"major": 0, "minor": 1}


def test_partial_votes_are_provisional_everywhere_they_appear(panel, tmp_path, capsys):
    project, who, (a, b, *_) = panel
    for name in who:
        vote(project, who[name], a, verdict="correct", problematic=False)
    lock(project, who["ann"])
    vote(project, who["bob"], b, verdict="wrong", problematic=False, severity="major", category="fine_grained")

    report = build_report(project, PROVISIONAL)
    assert report.note.startswith("1 final decision; 1 item has votes but no final decision: not counted.")
    data = report_json(report)
    assert data["options"]["provisional"] is True
    assert data["decision_status"] == {"panel_items": 5, "locked": 1, "voted_not_locked": 1, "provisional_items": 1,
                                       "no_longer_mistakes_with_history": 0, "outside_scope_with_history": 0,
                                       "note": report.note}
    assert data["provisional"]["reviewed_mistakes"] == {"model-A": {"total": 1, "provisional": 1}}
    assert data["provisional"]["severities"]["model-A"]["major"] == {"count": 1, "share": 1.0}
    assert "model-A" not in data["severities"]
    assert report_json(build_report(project))["provisional"] is None

    text = write_report(report, tmp_path / "md").read_text()
    assert "> **Warning:** 1 final decision; 1 item has votes" in text
    assert "**Severities, PROVISIONAL, not locked" in text
    assert "| model-A (provisional) | 100.0% (1/1) | 0.0% (0/1) | 1 | 1 |" in text
    assert (tmp_path / "md" / "shares_provisional.png").exists()

    assert main(["report", str(project.root), "--provisional"]) == 0
    out = capsys.readouterr().out
    assert "Note: 1 final decision; 1 item has votes" in out
    assert "  model-A (provisional): major 100.0% (1/1), minor 0.0% (0/1)" in out
    assert main(["report", str(project.root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["analysis"]["decision_status"]["voted_not_locked"] == 1
