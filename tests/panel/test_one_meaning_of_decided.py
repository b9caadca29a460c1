"""One meaning of "decided" (issue 23): a two-panelist panel votes through the command
line; panel-status, the report, the export's manifest and the labels after the review
count the same decided items, for unanimous, majority, tie and override decisions, and
after a vote is amended. The paper's rule (Vasudevan et al. 2022, §3.1): unanimous
items need no meeting; after it "we took the majority assessment, or used 'unclear'
for a tie"."""

from __future__ import annotations

import json

import pytest
from project_data import new_project

from reviewer.cli import main
from reviewer.panel.final import DecidedHow
from reviewer.project import Project


def run(capsys, *args) -> str:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


@pytest.fixture
def two(tmp_path, add_mistakes, capsys):
    project = new_project(tmp_path / "p")
    items = add_mistakes(project, [(10 + i, True) for i in range(6)])
    project.close()
    root = tmp_path / "p"
    run(capsys, "panelist", root, "ann", "--chair")
    run(capsys, "panelist", root, "bob")
    return root, items


def vote(capsys, root, who, item, *extra):
    image = f"ILSVRC2012_val_{item.image_id:08d}.JPEG"
    run(capsys, "vote", root, "--panelist", who, "--image", image, "--predicted", item.predicted, *extra)


def decided_counts(capsys, root, tmp_path, name):
    """(panel-status's decided items, the report's, the export manifest's review counts, None)."""
    status = json.loads(run(capsys, "panel-status", root, "--json"))
    phase_1 = next(p for p in status["phases"] if p["phase"] == 1)
    report = json.loads(run(capsys, "report", root, "--json"))["analysis"]["decision_status"]
    run(capsys, "export", root, tmp_path / name)
    def strict(constant):  # NaN or Infinity is not JSON: a strict reader refuses the file
        raise ValueError(f"{constant} in manifest.json")

    manifest = json.loads(next((tmp_path / name).rglob("manifest.json")).read_text(), parse_constant=strict)
    return phase_1["decided"], report["locked"], manifest["reviews"], None


def test_every_count_and_output_agrees_on_what_is_decided(two, capsys, tmp_path):
    root, (a, b, c, d, e, f) = two
    wrong = ("--verdict", "wrong", "--not-problematic")
    for who in ("ann", "bob"):
        vote(capsys, root, who, a, *wrong, "--severity", "major", "--category", "fine_grained")  # unanimous
        vote(capsys, root, who, b, "--verdict", "correct", "--not-problematic")  # unanimous
        vote(capsys, root, who, e, "--verdict", "unclear", "--not-problematic")  # unanimous, amended below
    vote(capsys, root, "ann", c, *wrong)  # a tie: unclear once the chair locks it
    vote(capsys, root, "bob", c, "--verdict", "correct", "--not-problematic")
    vote(capsys, root, "ann", d, "--verdict", "correct", "--not-problematic")  # split: the chair overrides
    vote(capsys, root, "bob", d, *wrong)
    vote(capsys, root, "ann", f, "--verdict", "correct", "--not-problematic")  # bob has not voted f

    # Unanimous items are final without a lock: every count says 3 (a, b, e).
    status, report, reviews, _ = decided_counts(capsys, root, tmp_path, "x1")
    assert status == report == reviews["decided_items"] == 3
    assert reviews["decided_how"] == {"unanimous": 3}
    assert reviews["voted_not_decided"] == 3  # c, d (split) and f (bob to vote)

    run(capsys, "decide", root, "--chair", "ann", "--image", f"ILSVRC2012_val_{c.image_id:08d}.JPEG",
        "--predicted", c.predicted)
    run(capsys, "decide", root, "--chair", "ann", "--image", f"ILSVRC2012_val_{d.image_id:08d}.JPEG",
        "--predicted", d.predicted, "--override", "--verdict", "unclear", "--reason", "both readings hold")
    vote(capsys, root, "bob", e, "--verdict", "correct", "--not-problematic")  # e stops being unanimous
    status, report, reviews, _ = decided_counts(capsys, root, tmp_path, "x2")
    assert status == report == reviews["decided_items"] == 4  # a, b unanimous; c tie; d override
    how = {(r["image"], r["verdict"], r["decided_how"]) for r in reviews["decisions"]}
    name = "ILSVRC2012_val_{:08d}.JPEG".format
    assert how == {(name(a.image_id), "wrong", DecidedHow.UNANIMOUS), (name(b.image_id), "correct", "unanimous"),
                   (name(c.image_id), "unclear", DecidedHow.TIE_UNCLEAR), (name(d.image_id), "unclear", "override")}
    assert reviews["voted_not_decided"] == 2  # e (amended) and f
    assert "2 items have votes but no final decision" in reviews["voted_not_decided_note"]


def test_the_chair_may_leave_unanimity_to_the_lock(two, capsys, tmp_path):
    root, (a, b, *_) = two
    for who in ("ann", "bob"):
        vote(capsys, root, who, a, "--verdict", "correct", "--not-problematic")
    project = Project.open(root)
    project.set_setting("unanimous_final", "off")
    project.close()
    status, report, reviews, _ = decided_counts(capsys, root, tmp_path, "x1")
    assert status == report == reviews["decided_items"] == 0 and reviews["voted_not_decided"] == 1
    out = run(capsys, "decide", root, "--chair", "ann", "--unanimous-only")
    assert "locked 1 unanimous decision" in out
    status, report, reviews, _ = decided_counts(capsys, root, tmp_path, "x2")
    assert status == report == reviews["decided_items"] == 1 and reviews["decided_how"] == {"majority": 1}


def test_a_majority_lock_rated_alike_by_everyone_stays_a_majority_decision(panel):
    """A verdict locked by the majority, then rated alike by the whole panel in phase 2, is
    decided "majority" with the ratings: the manifest and the report said "unanimous" (the
    severity was, the verdict was not)."""
    from review_data import decisions_table_of

    from reviewer.app import panel as acts

    project, (ann, bob, cy), items = panel
    item = items[0]
    rating = dict(severity="major", category="fine_grained")
    for who, verdict in ((ann, "wrong"), (bob, "wrong"), (cy, "correct")):
        acts.vote(project, panelist_id=who, item=item, verdict=verdict, problematic=False,
                  **(rating if verdict == "wrong" else {}))
    acts.lock(project, chair_id=ann, item=item)
    acts.vote(project, panelist_id=cy, item=item, **rating)  # phase 2: cy rates, keeping "correct"
    row = decisions_table_of(project).set_index(["image_id", "predicted"]).loc[(item.image_id, item.predicted)]
    assert (row["verdict"], row["severity"], row["category"]) == ("wrong", "major", "fine_grained")
    assert row["decided_how"] == DecidedHow.MAJORITY and row["chair"] == "ann"
    assert row["reason"] == ("verdict: wrong 2, correct 1; problematic: no 3; "
                             "severity and category unanimous: all 3 panelists")
