"""A run's mistakes categorised in bulk (reviewer.review.categorise, issue 37), on the real files of
tests/data (error_types_data): the bulk reads give each mistake the suggestion that reading its
labels and evidence one mistake at a time gives; the answer counted is the panel's final decision,
else ViT-3B's published one (the raw JSON), else the suggestion; a mistake judged correct, or on an
image flagged problematic, is listed and not counted; the shares count each answer by source."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from error_types_data import build

from reviewer.evidence import evidence_for, evidence_for_many
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.project import Project
from reviewer.review.categorise import answered, categorise, decided_answers, error_type_shares, suggested_run
from reviewer.review.suggest import SuggestionFacts, suggest
from reviewer.runs.mistakes import stored_mistakes

SPELLED = {"Fine-grained error": "fine_grained", "Fine-grained error with OOV": "fine_grained_oov",
           "Fine-grained with OOV": "fine_grained_oov", "Spurious Correlation": "spurious_correlation",
           "Non-prototypical": "non_prototypical", "Fine-grained with Multilabel Options": "fine_grained"}


@pytest.fixture(scope="module")
def made(tmp_path_factory, shared_data):
    return build(tmp_path_factory.mktemp("bulk"), shared_data)


@pytest.fixture
def session(made):
    project = Project.open(made["root"])
    with project.read() as session:
        yield session
    project.close()


def one_at_a_time(session, run_id: int, *, probabilities: bool = True) -> dict:
    """{(image, predicted): suggestion} read as `reviewer show` reads one mistake: its labels by
    `LabelSet.labels_of`, its evidence by `evidence_for`."""
    labels = reviewed_labelset(session=session, after_review=False)
    out = {}
    for m in stored_mistakes(session=session, run_id=run_id):
        position = int(labels.positions(np.array([m.image_id]))[0])
        known = labels.labels_of(position) if position >= 0 else {"correct": [], "wrong": []}
        targets = tuple(known["correct"]) or ((m.original_label,) if m.original_label is not None else ())
        lines = tuple(evidence_for(session, m.file_name, m.predicted, m.original_label))
        out[(m.image_id, m.predicted)] = suggest(SuggestionFacts(
            m.predicted, targets, lines, wrong=tuple(known["wrong"]) or None,
            probability=m.probability if probabilities else None))
    return out


def test_the_evidence_of_many_is_the_evidence_of_each(session):
    mistakes = [(m.file_name, m.predicted, m.original_label) for m in stored_mistakes(session=session, run_id=1)]
    many = evidence_for_many(session, mistakes)
    bare = evidence_for_many(session, mistakes, texts=False)
    assert len(many) == len(mistakes) > 100
    for mistake in mistakes:
        each = evidence_for(session, *mistake)
        assert many[mistake] == each and len(each) >= 5
        # Without their words: the same data but the class names the words use.
        for line, full in zip(bare[mistake], each):
            assert line.source == full.source
            assert {k: v for k, v in line.data.items() if k != "class_names"} == \
                {k: v for k, v in full.data.items() if k != "class_names"}


@pytest.mark.parametrize("run_id", [1, 2])
def test_bulk_suggestions_are_those_of_one_mistake_at_a_time(session, run_id):
    expected = one_at_a_time(session, run_id)
    rows = categorise(session=session, run_id=run_id)
    assert {(r.image_id, r.predicted): r.suggestion for r in rows} == expected
    assert Counter(str(s.error_type) for s in expected.values() if s).keys() >= {"fine_grained", "no_explanation"}
    # Kept per run without the probability: the same answers.
    plain = one_at_a_time(session, run_id, probabilities=False)
    frame = suggested_run(session=session, run_id=run_id, labels=reviewed_labelset(session=session,
                                                                                   after_review=False))
    assert {(i, p): (t, s, c, v) for i, p, t, s, c, v in frame.itertuples(index=False)} == {
        k: (str(x.error_type), str(x.severity), str(x.category_rule), str(x.severity_rule)) for k, x in plain.items()}


def expected_answers(made, session, run_id: int) -> dict:
    """{(image, predicted): (error type, severity, source, counted)} from the decisions made, the raw
    review JSON and the suggestions."""
    suggestions = one_at_a_time(session, run_id)
    review = made["review"]
    names = {m.image_id: m.file_name for m in stored_mistakes(session=session, run_id=run_id)}
    problematic_rows = {r[0] for r in made["rows"] if r[7] == "True"}
    flagged = {image for (image, _), d in made["decided"].items() if d[3]}
    out = {}
    for key, s in suggestions.items():
        image, predicted = key
        counted = key[0] not in flagged and names[image] not in problematic_rows
        if key in made["decided"]:
            verdict, severity, category, _ = made["decided"][key]
            out[key] = (category, severity, "panel", counted) if verdict == "wrong" else (None, None, "panel", False)
        elif names[image] in review and review[names[image]]["top_prediction"] == predicted:
            item = review[names[image]]
            out[key] = (SPELLED[item["failure category"]], "major" if item["failure severity"] == "Major" else "minor",
                        "published", counted)
        else:
            out[key] = (str(s.error_type), str(s.severity), "suggested", counted)
    return out


def test_the_answer_counted_is_the_panels_else_the_published_else_the_suggestion(made, session):
    expected = expected_answers(made, session, 1)
    rows = categorise(session=session, run_id=1)
    assert {(r.image_id, r.predicted): (r.error_type, r.severity, str(r.source), r.counted) for r in rows} == expected
    sources = Counter(v[2] for v in expected.values())
    assert sources["panel"] == 5 and sources["published"] >= 5 and sources["suggested"] > 100
    # The same from the table the report keeps per run.
    frame = answered(suggested_run(session=session, run_id=1, labels=reviewed_labelset(
        session=session, after_review=False)), decided_answers(session=session))
    assert {(i, p): (t, s, src, c) for i, p, t, s, src, c in zip(
        frame["image_id"], frame["predicted"], frame["error_type"], frame["severity"], frame["source"],
        frame["counted"])} == expected


def test_the_shares_count_each_answer_by_source(made, session):
    expected = expected_answers(made, session, 1)
    shares = error_type_shares(categorise(session=session, run_id=1))
    counted = [v for v in expected.values() if v[3]]
    assert (shares["mistakes"], shares["counted"]) == (len(expected), len(counted))
    assert shares["not_counted"] == 2  # the one judged correct, the one on the flagged image
    typed = [v for v in counted if v[0] is not None]
    for kind in ("fine_grained", "fine_grained_oov", "spurious_correlation", "non_prototypical", "no_explanation"):
        entry = shares["error_types"][kind]
        assert entry["count"] == sum(v[0] == kind for v in typed)
        assert entry["share"] == pytest.approx(entry["count"] / len(typed))
        for source in ("panel", "published", "suggested"):
            assert entry["by_source"][source] == sum(v[0] == kind and v[2] == source for v in typed)
    rated = [v for v in counted if v[1] is not None]
    assert shares["severity"]["major"]["share"] == pytest.approx(sum(v[1] == "major" for v in rated) / len(rated))
    assert shares["unrated"] == {"error_type": 1, "severity": 1}  # the decision with neither
    assert shares["sources"] == dict(Counter(v[2] for v in counted)) | {
        s: 0 for s in ("panel", "published", "suggested") if s not in Counter(v[2] for v in counted)}


def test_reviewer_suggest_marks_what_no_longer_counts(made, capsys):
    from reviewer.cli import main

    assert main(["suggest", str(made["root"]), "--run", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    judged = [m for m in result["mistakes"] if not m["counted"]]
    assert len(judged) == 2 and result["shares"]["not_counted"] == 2
    assert all(m["suggestion"]["line"] for m in result["mistakes"])  # suggested all the same, never stored
