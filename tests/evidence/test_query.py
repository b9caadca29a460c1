"""The queue's questions on a hand-built case (which sources accept a prediction, where they
disagree, which images none covers), and each source's rule on hand-made rows."""

from __future__ import annotations

import json

import pytest

from reviewer.app.evidence import import_evidence
from reviewer.evidence import evidence_by_pair, evidence_for, uncovered_images
from reviewer.evidence.verdicts import ACCEPTS, REJECTS, verdict


def val(number: int) -> str:
    return f"ILSVRC2012_val_{number:08d}.JPEG"


def _record(number: int, given: int, guessed: int, answers: dict) -> dict:
    return {"id": number, "given_original_label": given, "our_guessed_label": guessed,
            "mturk": {"given": 0, "guessed": 0, "neither": 0, "both": 0, **answers}}


@pytest.fixture
def hand_built(project, tmp_path, published):
    (tmp_path / "mturk.json").write_text(json.dumps([
        _record(10, 5, 7, {"guessed": 4, "given": 1}),  # the crowd takes cleanlab's guess, 7
        _record(20, 3, 9, {"given": 5}),  # the crowd keeps the given label, 3
    ]))
    (tmp_path / "relabeling.csv").write_text(
        "id,category,original_label,proposed_labels,manually_validated\n"
        f"{val(10)},A,5,5,True\n"  # keeps 5: rejects 7, which cleanlab's crowd accepts
        f"{val(30)},B,1,2,True\n"
        f"{val(50)},X,1,,True\n")  # ambiguous: no word on any class
    import_evidence(project, [tmp_path / "mturk.json", tmp_path / "relabeling.csv",
                              published / "flaws-of-imagenet" / "problem_groups_clusters.json"])
    return project


def test_accepted_disputed_and_uncovered_on_a_hand_built_case(hand_built):
    pairs = [(val(10), 7), (val(20), 9), (val(30), 2), (val(40), 1), (val(50), 1), ("n01440764_1.JPEG", 0)]
    found = evidence_by_pair(hand_built, pairs)
    assert found[(val(10), 7)].accepted_by == ("cleanlab",)
    assert found[(val(10), 7)].rejected_by == ("Flaws of ImageNet (relabeling)",)
    assert found[(val(10), 7)].disputed
    assert found[(val(20), 9)].rejected_by == ("cleanlab",) and not found[(val(20), 9)].accepted
    assert not found[(val(20), 9)].disputed
    assert found[(val(30), 2)].accepted_by == ("Flaws of ImageNet (relabeling)",)
    assert not found[(val(50), 1)].accepted and not found[(val(50), 1)].rejected_by and found[(val(50), 1)].covered
    assert not found[(val(40), 1)].covered and not found[("n01440764_1.JPEG", 0)].covered
    assert uncovered_images(hand_built, [name for name, _ in pairs]) == {val(40), "n01440764_1.JPEG"}
    # The class groups cover classes, not images: image 40 stays uncovered though class 385 is in a group.
    assert not evidence_by_pair(hand_built, [(val(40), 385)])[(val(40), 385)].covered


def test_the_same_lines_from_a_session_or_the_project(hand_built):
    with hand_built.read() as session:
        from_session = evidence_for(session, val(10), 7, 5)
    assert from_session == evidence_for(hand_built, val(10), 7, 5)
    assert [line.text for line in from_session] == [
        "cleanlab: flagged; MTurk 1 given, 4 guessed, 0 both, 0 neither (guessed = the prediction)",
        "Flaws of ImageNet (relabeling): proposed electric ray (the original label); not the prediction",
        "class group: neither the prediction nor the original label is in one of its groups"]


def test_no_evidence_imported_gives_no_lines(project):
    assert evidence_for(project, val(1), 1, 0) == []
    assert evidence_by_pair(project, [(val(1), 1)])[(val(1), 1)].covered_by == ()


@pytest.mark.parametrize("kind, payload, cls, expected", [
    ("real_labels", {"labels": [3, 4]}, 4, ACCEPTS),
    ("real_labels", {"labels": [3, 4]}, 5, REJECTS),
    ("real_labels", {"labels": []}, 5, None),  # ReaL leaves the image out
    ("real_raters", {"answers": [[7, 1, 1, 3]]}, 7, ACCEPTS),  # no, maybe, yes
    ("real_raters", {"answers": [[7, 1, 2, 2]]}, 7, None),  # yes is not more than half
    ("real_experts", {"answers": [[7, 3, 1, 1]]}, 7, REJECTS),
    ("real_raters", {"answers": [[7, 0, 0, 5]]}, 8, None),  # not asked
    # With the raters' consensus stored (Dawid–Skene's posterior), it decides, not the raw counts:
    # 3 yes of 5 from unreliable raters may be a posterior of 0.3 (no word) or 0.1 (rejects).
    ("real_raters", {"answers": [[7, 2, 0, 3]], "consensus": [[7, 0.3]]}, 7, None),
    ("real_raters", {"answers": [[7, 2, 0, 3]], "consensus": [[7, 0.1]]}, 7, REJECTS),
    ("real_raters", {"answers": [[7, 3, 0, 2]], "consensus": [[7, 0.8]]}, 7, ACCEPTS),  # ReaL's threshold
    ("real_raters", {"answers": [[7, 3, 0, 2]], "consensus": [[7, 0.79]]}, 7, None),
    ("real_experts", {"answers": [[7, 0, 0, 5], [9, 5, 0, 0]], "consensus": [[7, 0.99], [9, 0.2]]}, 9, REJECTS),
    ("cleanlab", {"given": 1, "guessed": 2, "mturk": {"given": 0, "guessed": 3, "neither": 0, "both": 2}}, 2, ACCEPTS),
    # The given label: 2 'both' for it, 3 'guessed' against.
    ("cleanlab", {"given": 1, "guessed": 2, "mturk": {"given": 0, "guessed": 3, "neither": 0, "both": 2}}, 1, REJECTS),
    ("cleanlab", {"given": 1, "guessed": 2, "mturk": {"given": 1, "guessed": 2, "neither": 1, "both": 0}}, 2, None),
    ("cleanlab", {"given": 1, "guessed": 2, "mturk": {"given": 3, "guessed": 1, "neither": 1, "both": 0}}, 2, REJECTS),
    ("cleanlab", {"given": 1, "guessed": 2, "mturk": {"given": 3, "guessed": 1, "neither": 1, "both": 0}}, 9, None),
    ("flaws_label_errors", {"original": 1, "guessed": 2, "category": "M", "proposed": [1, 2]}, 2, ACCEPTS),
    ("flaws_label_errors", {"original": 1, "guessed": 2, "category": "Z", "proposed": []}, 2, REJECTS),
    ("flaws_label_errors", {"original": 1, "guessed": 2, "category": "X", "proposed": []}, 2, None),
    ("flaws_clean", {"original": 1, "proposed": [1], "validated": 2, "unvalidated": 0}, 2, REJECTS),
    ("flaws_relabeling", {"original": 1, "category": "Z", "proposed": []}, 1, REJECTS),
    ("flaws_expert", {"old": 356, "type": "uncertain", "new": None, "detail": "", "candidates": [357]}, 357, None),
    ("flaws_expert", {"old": 356, "type": "custom", "new": None, "detail": "Tayra", "candidates": []}, 356, REJECTS),
    ("flaws_expert", {"old": 356, "type": "multilabel", "new": [356, 357], "detail": "", "candidates": []}, 357,
     ACCEPTS),
    ("tfds_multilabel", {"original": 1, "correct": [1], "unclear": [2], "wrong": [3], "problematic": False}, 2,
     ACCEPTS),
    ("tfds_multilabel", {"original": 1, "correct": [1], "unclear": [], "wrong": [], "problematic": False}, 5,
     REJECTS),
])
def test_each_sources_rule(kind, payload, cls, expected):
    assert verdict(kind, payload, cls) == expected
