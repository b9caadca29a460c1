"""The major-error split on a constructed case whose answer is known by hand,
and a run's score on a slice with its Clopper-Pearson interval."""

from __future__ import annotations

import json

import pytest
from project_data import new_project
from review_data import add_images, add_run, decide, read_with, val_name
from scipy.stats import beta

from reviewer.app.imports import import_review
from reviewer.cli import main
from reviewer.errors import UserError
from reviewer.evaluation.slices import save_slice, slice_file_names, slice_rule
from reviewer.evaluation.split import (
    EXCLUDED,
    EXCLUDED_MINOR,
    EXCLUDED_PROBLEMATIC,
    NEEDS_REVIEW,
    NOT_CANDIDATE,
    NOT_ENOUGH,
    SELECTED,
    SplitRule,
    apply_split_rule,
    evaluate_on_slice,
    resolve_members,
    save_split,
)

HUSKY, ESKIMO_DOG = 250, 248


@pytest.fixture
def case(templates, tmp_path):
    """Thirteen images (original label 100 + i), four runs A-D (A the anchor) and the
    panel's decisions; expected statuses by the rule of the paper's 5.1, k=3 of A-D:

    img  A     B     C     D       decisions                                expected
    1    501   501   501   orig    501 wrong/major                          selected (D right: no matter)
    2    502   503   504   505     502, 503 major; 504, 505 minor           excluded: a minor mistake
    3    506   506   506   507     506 major; 507 decided correct           excluded: a new label
    4    508   508   509   orig    508 major; 509 not reviewed              needs review (2 + 1)
    5    510   510   510   510     510 major                                selected (4 major)
    6    511   511   511   512     511 major; 512 not reviewed              needs review (D unreviewed)
    7    513   514   514   orig    513 major; 514 decided unclear           excluded: a new label
    8    515   515   515   orig    none: a published review says Major     selected
    9    orig  orig  orig  248     (husky; Eskimo dog a correct label)      no mistake
    10   orig  orig  orig  777     (777 is an unclear label)                no mistake
    11   orig  520   520   520     520 major                                not a candidate (A right)
    12   530   530   530   orig    none: a published review says Borderline not a candidate (A's: minor)
    13   540   540   orig  orig    540 major                                below k (2 major)
    """
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        originals = [100 + i for i in range(1, 9)] + [HUSKY, 110, 111, 112, 113]
        ids = add_images(project, originals, labels={8: {"correct": [HUSKY, ESKIMO_DOG]},
                                                     9: {"correct": [110], "unclear": [777]}})
        img = dict(zip(range(1, 14), ids))
        preds = {
            "A": [501, 502, 506, 508, 510, 511, 513, 515, HUSKY, 110, 111, 530, 540],
            "B": [501, 503, 506, 508, 510, 511, 514, 515, HUSKY, 110, 520, 530, 540],
            "C": [501, 504, 506, 509, 510, 511, 514, 515, HUSKY, 110, 520, 530, 113],
            "D": [101, 505, 507, 104, 510, 512, 107, 108, ESKIMO_DOG, 777, 520, 112, 113],
        }
        review = tmp_path / "published_mistakes.json"
        review.write_text(json.dumps({
            val_name(8): {"top_prediction": 515, "failure category": "Fine-grained error", "failure severity": "Major"},
            val_name(12): {"top_prediction": 530, "failure category": "Fine-grained error",
                           "failure severity": "Borderline"}}))
        import_review(project, review, model="published")
        runs = {name: add_run(project, f"model-{name}", {img[i + 1]: p for i, p in enumerate(top)})
                for name, top in preds.items()}
        for i, p in ((1, 501), (2, 502), (2, 503), (3, 506), (4, 508), (5, 510), (6, 511), (7, 513), (11, 520),
                     (13, 540)):
            decide(project, img[i], p, "wrong", severity="major", category="fine_grained")
        for i, p in ((2, 504), (2, 505)):
            decide(project, img[i], p, "wrong", severity="minor", category="fine_grained")
        decide(project, img[3], 507, "correct")
        decide(project, img[7], 514, "unclear")
        project.case = img, runs
        return project

    project = templates.copy(build, tmp_path)  # made once, copied per test
    return project, *project.case


def test_an_image_whose_ground_truth_is_problematic_is_never_selected(case):
    """The paper's mistakes leave problematic images out (§3.1, §4.2), so ImageNet-M cannot
    hold one. Image 5 (four major mistakes) is flagged problematic by a later decision on D's
    prediction; image 1 is marked problematic in the imported labels."""
    from sqlalchemy import update

    from db.engine import write_session
    from db.tables import Image

    project, img, runs = case
    decide(project, img[5], 510, "wrong", severity="major", category="fine_grained", problematic=True)
    with write_session(project.engine) as session:
        session.execute(update(Image).where(Image.id == img[1]).values(problematic=True))
    members = read_with(project, resolve_members, specs=[str(runs[n]) for n in "ABCD"])
    result = read_with(project, apply_split_rule, rule=SplitRule(members, k=3))
    status = dict(zip(result.table["file_name"], result.table["status"]))
    assert status[val_name(5)] == status[val_name(1)] == EXCLUDED_PROBLEMATIC
    assert result.images() == [val_name(8)]
    assert result.counts()[EXCLUDED_PROBLEMATIC] == 2


def test_rule_on_a_constructed_case(case):
    project, img, runs = case
    members = read_with(project, resolve_members, specs=[str(runs[n]) for n in "ABCD"])
    result = read_with(project, apply_split_rule, rule=SplitRule(members, k=3))
    status = dict(zip(result.table["file_name"], result.table["status"]))
    assert status == {val_name(1): SELECTED, val_name(2): EXCLUDED_MINOR, val_name(3): EXCLUDED,
                      val_name(4): NEEDS_REVIEW, val_name(5): SELECTED, val_name(6): NEEDS_REVIEW,
                      val_name(7): EXCLUDED, val_name(8): SELECTED, val_name(11): NOT_CANDIDATE,
                      val_name(12): NOT_CANDIDATE, val_name(13): NOT_ENOUGH}
    assert result.images() == [val_name(1), val_name(5), val_name(8)]
    # The candidates (A's major or unrated mistakes: images 1-8 and 13) are what the other
    # counts add up to.
    assert result.counts() == {SELECTED: 3, NEEDS_REVIEW: 2, EXCLUDED: 2, EXCLUDED_MINOR: 1, EXCLUDED_PROBLEMATIC: 0,
                               NOT_CANDIDATE: 2, NOT_ENOUGH: 1}
    row = result.table.set_index("file_name").loc[val_name(6)]
    assert (row["major"], row["unreviewed"]) == (3, 1)
    assert row[members[3].label] == 512  # the candidates show each member's prediction

    # k = 4 of 4: only image 5 had a major mistake from every run.
    assert read_with(project, apply_split_rule, rule=SplitRule(members, k=4)).images() == [val_name(5)]
    # Three members A-C: D's new label and D's unreviewed mistake no longer count.
    abc = read_with(project, apply_split_rule, rule=SplitRule(members[:3], k=3))
    assert abc.images() == [val_name(1), val_name(3), val_name(5), val_name(6), val_name(8)]
    # B as the anchor: image 11 (B's 520, major, with C and D) becomes a selected candidate.
    by_b = read_with(project, apply_split_rule, rule=SplitRule(members, k=3, anchor=1))
    assert by_b.images() == [val_name(1), val_name(5), val_name(8), val_name(11)]
    assert by_b.rule.as_dict()["anchor"]["id"] == runs["B"]


def test_published_reviews_as_members_on_the_real_files(tmp_path, shared_data):
    """ViT-3B's review as the anchor and Greedy Soups' as the second member, k=2, checked
    against the rule applied by hand to the two published files."""
    vit = json.loads((shared_data / "imagenet-mistakes" / "vit3b_mistakes.json").read_text())
    soups = json.loads((shared_data / "imagenet-mistakes" / "greedy_soups_mistakes.json").read_text())
    project = new_project(tmp_path / "p")
    names = sorted(set(vit) | set(soups))
    for model, path in (("vit3b", "vit3b_mistakes.json"), ("greedy_soups", "greedy_soups_mistakes.json")):
        import_review(project, shared_data / "imagenet-mistakes" / path, model=model)
    members = read_with(project, resolve_members, specs=["vit3b", "greedy_soups"])
    result = read_with(project, apply_split_rule, rule=SplitRule(members, k=2))

    def severity(review, name):
        return review[name]["failure severity"].lower() if name in review else None

    # A published review lists only its model's mistakes: an image missing from Greedy Soups'
    # review is one it got right, which neither counts towards k nor excludes the image.
    # The candidates are ViT-3B's major mistakes; the other statuses sort them only.
    candidates = sorted(n for n in vit if severity(vit, n) == "major")
    expected_selected = sorted(n for n in candidates if severity(soups, n) == "major")
    expected_minor = sorted(n for n in candidates if severity(soups, n) in ("minor", "borderline"))
    assert result.images() == expected_selected and len(expected_selected) > 10
    assert result.images(EXCLUDED_MINOR) == expected_minor
    assert result.counts()[NOT_CANDIDATE] == len(names) - len(candidates)
    assert result.counts()[SELECTED] + result.counts()[NOT_ENOUGH] + len(expected_minor) == len(candidates)


def test_a_new_decision_moves_an_image(case):
    project, img, runs = case
    members = read_with(project, resolve_members, specs=[str(runs[n]) for n in "ABCD"])
    decide(project, img[4], 509, "wrong", severity="major", category="spurious_correlation")
    decide(project, img[1], 501, "correct")  # the chair reconsiders: 501 is a correct label after all
    result = read_with(project, apply_split_rule, rule=SplitRule(members, k=3))
    assert result.images() == [val_name(4), val_name(5), val_name(8)]
    # A's prediction on image 1 is a correct label now: A made no mistake there, no candidate.
    assert result.images(EXCLUDED) == [val_name(3), val_name(7)]
    assert val_name(1) in result.images(NOT_CANDIDATE)


def test_save_and_evaluate_with_clopper_pearson(case):
    project, img, runs = case
    members = read_with(project, resolve_members, specs=["model-A", "model-B", "model-C", "model-D"])
    assert [m.id for m in members] == [runs[n] for n in "ABCD"]
    result = read_with(project, apply_split_rule, rule=SplitRule(members, k=3))
    assert project.write(lambda session: save_split(session=session, result=result, name="major_split")) == 3
    assert read_with(project, slice_file_names, name="major_split") == [val_name(1), val_name(5), val_name(8)]
    assert read_with(project, slice_rule, name="major_split")["k"] == 3
    with pytest.raises(UserError, match="already has a slice named 'major_split'"):
        project.write(lambda session: save_split(session=session, result=result, name="major_split"))

    # D: image 1 right, 5 wrong, 8 right -> 2 of 3.
    score = read_with(project, evaluate_on_slice, run_id=runs["D"], slice_name="major_split")
    assert (score.correct, score.total, score.missing) == (2, 3, 0)
    # Clopper-Pearson from its definition (beta quantiles), independent of statsmodels.
    assert score.low == pytest.approx(beta.ppf(0.025, 2, 2))
    assert score.high == pytest.approx(beta.ppf(0.975, 3, 1))

    # Correct (the husky image's Eskimo dog) and unclear labels count as correct.
    project.write(lambda session: save_slice(session=session, name="hand", image_ids=[img[1], img[5], img[8], img[9], img[10]]))
    score = read_with(project, evaluate_on_slice, run_id=runs["D"], slice_name="hand")
    assert (score.correct, score.total) == (4, 5)
    assert "4 of 5 (80.0%" in score.describe()


def test_bad_rules_are_refused(case):
    project, _, runs = case
    members = read_with(project, resolve_members, specs=[str(runs["A"]), str(runs["B"])])
    with pytest.raises(UserError, match="k must be between 1 and the number of members"):
        read_with(project, apply_split_rule, rule=SplitRule(members, k=3))
    with pytest.raises(UserError, match="no run with id 999"):
        read_with(project, resolve_members, specs=["999"])
    with pytest.raises(UserError, match="name the same run or review twice"):
        read_with(project, resolve_members, specs=["model-A", str(runs["A"])])


def test_split_command(case, tmp_path, capsys):
    project, _, runs = case
    out = tmp_path / "split.json"
    assert main(["split", str(project.root), "--runs", "model-A", "model-B", "model-C", "model-D", "--k", "3",
                 "--save", "imagenet_m_curated", "--export", str(out)]) == 0
    text = capsys.readouterr().out
    assert "3 selected, 2 need a final review, 2 excluded (a correct or unclear new label), 1 excluded (a minor" in text
    assert val_name(4) in text and val_name(6) in text  # the images to look at again
    data = json.loads(out.read_text())
    assert data["images"] == [val_name(1), val_name(5), val_name(8)]
    assert data["rule"]["k"] == 3 and data["rule"]["m"] == 4
    assert data["rule"]["anchor"]["id"] == runs["A"]
    assert len(data["candidates"]) == 11
    assert main(["split", str(project.root), "--runs", "model-A", "--k", "2"]) == 2
    assert "error: --k 2: between 1 and the number of 1 --runs (model-A" in capsys.readouterr().err
    # 3 is --k's default, which the user never typed: the message says so and what to do (issue 24).
    assert main(["split", str(project.root), "--runs", "model-A", "model-B"]) == 2
    err = capsys.readouterr().err
    assert "error: --k is 3 by default, more than the 2 --runs (model-A" in err
    assert "name at least 3 runs or reviews with --runs, or pass --k 1 to 2" in err
