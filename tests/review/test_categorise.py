"""`reviewer suggest` (reviewer.review.categorise): every mistake of an imported review with its
suggestion, the published answer named beside it, and the shares counted from the published
answers where they exist, each marked as such; nothing stored. On the real published review
(tests/data, trimmed to images 1-2,000), the counts worked out here from the raw JSON."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from reviewer.cli import main


@pytest.fixture(scope="module")
def project(tmp_path_factory, shared_data):
    from reviewer.app.imports import import_review, init_project

    published = shared_data / "published"
    project, _ = init_project(tmp_path_factory.mktemp("categorise") / "p", labels=[
        published / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv"])
    import_review(project, shared_data / "imagenet-mistakes" / "vit3b_mistakes.json", model="vit3b")
    project.close()
    return project.root


def test_suggest_lists_every_reviewed_mistake_with_the_published_answer(project, shared_data, capsys):
    review = json.loads((shared_data / "imagenet-mistakes" / "vit3b_mistakes.json").read_text())
    assert main(["suggest", str(project), "--review", "vit3b", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {m["file_name"] for m in result["mistakes"]} == set(review)
    assert all(m["source"] == "published" and m["suggestion"]["line"] for m in result["mistakes"])
    shares = result["shares"]
    assert shares["sources"] == {"panel": 0, "published": len(review), "suggested": 0}
    spelled = {"Fine-grained error": "fine_grained", "Fine-grained error with OOV": "fine_grained_oov",
               "Fine-grained with OOV": "fine_grained_oov", "Spurious Correlation": "spurious_correlation",
               "Non-prototypical": "non_prototypical", "Fine-grained with Multilabel Options": "fine_grained"}
    counts = Counter(spelled[r["failure category"]] for r in review.values())
    for kind, count in counts.items():
        assert shares["error_types"][kind]["count"] == count
    assert shares["error_types"]["no_explanation"]["count"] == 0
    majors = sum(r["failure severity"] == "Major" for r in review.values())
    assert shares["severity"]["major"]["share"] == pytest.approx(majors / len(review))


def test_suggest_as_text_and_a_wrong_review(project, capsys):
    assert main(["suggest", str(project), "--review", "vit3b"]) == 0
    out = capsys.readouterr().out
    assert "(suggestions, never votes" in out and "answers from: panel 0, published" in out
    assert main(["suggest", str(project), "--review", "nobody"]) == 2
    assert "no imported review of a model named 'nobody'" in capsys.readouterr().err
