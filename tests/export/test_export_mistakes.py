"""The imagenet-mistakes format: the published files and ours are interchangeable."""

from __future__ import annotations

import json

import pytest
from project_data import new_project
from review_data import add_run, decide, read_with

from reviewer.app.export import export_reviews
from reviewer.app.imports import import_review, init_project
from reviewer.cli import main
from reviewer.errors import UserError
from reviewer.export import model_mistakes
from reviewer.review.reviewed_mistakes import image_table, reviewed_mistakes

FILES = {"vit3b": "vit3b_mistakes.json", "greedy_soups": "greedy_soups_mistakes.json"}


def test_published_reviews_export_to_the_same_bytes(tmp_path, shared_data, capsys):
    project = new_project(tmp_path / "p")
    for model, name in FILES.items():
        import_review(project, shared_data / "imagenet-mistakes" / name, model=model)
    for model, name in FILES.items():
        published = (shared_data / "imagenet-mistakes" / name).read_bytes()
        out = tmp_path / f"{model}.json"
        assert main(["export-reviews", str(project.root), str(out), "--model", model]) == 0
        assert out.read_bytes() == published  # spelling variants, order and layout kept
    assert "wrote 249 reviewed mistakes of greedy_soups" in capsys.readouterr().out
    # Both spellings of the OOV category survive (the file has 17 and 9 of them).
    records = model_of(project, "greedy_soups").records.values()
    spellings = [r["failure category"] for r in records]
    assert (spellings.count("Fine-grained error with OOV"), spellings.count("Fine-grained with OOV")) == (17, 9)

    # Our export, imported into another project and exported again: the same bytes.
    again = new_project(tmp_path / "q")
    import_review(again, tmp_path / "vit3b.json", model="vit3b")
    export_reviews(again, "vit3b", tmp_path / "vit3b_again.json")
    assert (tmp_path / "vit3b_again.json").read_bytes() == (shared_data / "imagenet-mistakes" / FILES["vit3b"]
                                                            ).read_bytes()


def test_panel_decisions_join_and_override_the_published_review(tmp_path, shared_data):
    # The annotated list gives the images their original labels, so a rerun's mistakes are found.
    project, _ = init_project(tmp_path / "p", labels=[shared_data / "formats" / "imagenet-annotatedval20k.json"])
    import_review(project, shared_data / "imagenet-mistakes" / FILES["vit3b"], model="vit3b")
    published = json.loads((shared_data / "imagenet-mistakes" / FILES["vit3b"]).read_text())
    first, second = list(published)[:2]
    ids = dict(zip(read_with(project, image_table)["file_name"], read_with(project, image_table).index))
    # The panel re-decides two published items: one is a correct label after all,
    # the other stays wrong with another severity.
    decide(project, ids[first], published[first]["top_prediction"], "correct")
    decide(project, ids[second], published[second]["top_prediction"], "wrong", severity="major",
           category="non_prototypical")
    # A rerun of vit3b makes a new mistake the panel decides, and one nobody reviewed.
    run = add_run(project, "vit3b", {ids[first]: 7, ids[second]: published[second]["top_prediction"],
                                     ids[list(published)[2]]: 9})
    items = model_of(project, "vit3b")
    assert first not in items.records
    assert items.records[second] == {"top_prediction": published[second]["top_prediction"],
                                     "failure category": "Non-prototypical", "failure severity": "Major"}
    assert len(items.records) == 377  # 378 - 1 decided correct; the undecided rerun mistakes are not reviewed
    decide(project, ids[first], 7, "wrong", severity="minor", category="fine_grained")
    items = model_of(project, "vit3b")
    # The image's published record was dropped, so the panel's record on it is the only one.
    assert items.records[first] == {"top_prediction": 7, "failure category": "Fine-grained error",
                                    "failure severity": "Minor"}
    assert list(items.records)[-1] == first  # the panel's own items follow the published ones
    assert run > 0
    third = list(published)[2]
    decide(project, ids[third], 9, "wrong")  # the rerun's other mistake: wrong, no category or severity yet
    items = model_of(project, "vit3b")
    assert items.incomplete == [third] and items.records[third] == published[third]
    with pytest.raises(UserError, match="has no reviewed mistakes"):
        model_of(project, "resnet50")


def test_an_image_flagged_problematic_has_no_mistakes(tmp_path, shared_data):
    """The paper drops problematic images before it categorises mistakes (of 676, 296
    "were either problematic or correct"; 378 left): a published item whose image the
    panel flags problematic, on that item or on another model's prediction of the image,
    is no longer a mistake, as the multi-label accuracy after the review leaves it out."""
    project = new_project(tmp_path / "p")
    import_review(project, shared_data / "imagenet-mistakes" / FILES["vit3b"], model="vit3b")
    published = json.loads((shared_data / "imagenet-mistakes" / FILES["vit3b"]).read_text())
    first, second, third = list(published)[:3]
    ids = dict(zip(read_with(project, image_table)["file_name"], read_with(project, image_table).index))
    decide(project, ids[first], published[first]["top_prediction"], "wrong", severity="major",
           category="fine_grained", problematic=True)
    other = (published[second]["top_prediction"] + 1) % 1000  # another model's prediction on the image
    decide(project, ids[second], other, "correct", problematic=True)
    decide(project, ids[third], published[third]["top_prediction"], "wrong", severity="major",
           category="fine_grained")
    items = model_of(project, "vit3b")
    assert first not in items.records and second not in items.records and third in items.records
    assert len(items.records) == len(published) - 2


def model_of(project, model: str):
    """A model's reviewed mistakes as the export writes them."""
    return model_mistakes(model=model, reviewed=read_with(project, reviewed_mistakes))
