"""What the review window shows about one mistake, built headless from a real project."""

from __future__ import annotations

import shutil

import pytest
from project_data import new_project
from review_data import add_images, add_run
from sqlalchemy import update

from db.engine import write_session
from db.tables import Image
from reviewer.app.mistake_detail import DetailSource, label_kind

GOLDEN, LABRADOR, TABBY, TIGER_CAT = 207, 208, 281, 282


@pytest.fixture
def project(templates, tmp_path, shared_data):
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        images = tmp_path / "images"
        images.mkdir()
        for name in ("n02099601_golden_retriever.JPEG", "n02099712_Labrador_retriever.JPEG"):
            shutil.copy(shared_data / "imagenet-samples" / name, images / name)
        project.set_setting("images_root", str(images))
        ids = add_images(project, [GOLDEN, LABRADOR, GOLDEN, TABBY],
                         labels={0: {"correct": [GOLDEN], "wrong": [TABBY], "unclear": [LABRADOR]},
                                 2: {"correct": [GOLDEN, LABRADOR]}})
        with write_session(project.engine) as session:
            session.execute(update(Image).where(Image.id == ids[0]).values(path="n02099601_golden_retriever.JPEG",
                                                                            problematic=True))
            session.execute(update(Image).where(Image.id == ids[1]).values(path="n02099712_Labrador_retriever.JPEG"))
            session.execute(update(Image).where(Image.id == ids[2]).values(path="missing.JPEG"))
        # Run 1 predicts tabby on image 0 (a wrong label); run 2 predicts tiger cat there.
        project.run1 = add_run(project, "resnet50", {ids[0]: TABBY, ids[1]: LABRADOR, ids[2]: GOLDEN, ids[3]: TABBY},
                               probs={ids[0]: 0.55})
        project.run2 = add_run(project, "vit", {ids[0]: TIGER_CAT, ids[1]: LABRADOR, ids[2]: GOLDEN, ids[3]: TABBY})
        project.ids = ids
        return project

    return templates.copy(build, tmp_path)  # made once, copied per test


def test_detail_of_a_mistake(project):
    source = DetailSource(project)
    detail = source.detail(run_id=project.run1, image_id=project.ids[0])
    assert detail.predicted.name == "tabby" and detail.probability == pytest.approx(0.55)
    assert detail.image_exists and detail.image_path.name == "n02099601_golden_retriever.JPEG"
    # Top-5 (tabby, tiger cat, ...): tabby is a wrong label; the next ones are unreviewed.
    assert [(r.cls.index, r.label_kind) for r in detail.topk[:2]] == [(TABBY, "wrong"), (TIGER_CAT, None)]
    assert [c.index for c in detail.correct] == [GOLDEN]
    assert [c.index for c in detail.wrong] == [TABBY] and [c.index for c in detail.unclear] == [LABRADOR]
    assert detail.problematic
    assert detail.original_label.name == "golden retriever"
    [other] = detail.other_runs
    assert (other.model, other.cls.index, other.label_kind) == ("vit", TIGER_CAT, None)
    relation = detail.wordnet
    assert relation.label.index == GOLDEN
    assert relation.predicted_path[0] == "tabby" and relation.label_path[0] == "golden retriever"
    assert relation.predicted_path[-1] == relation.label_path[-1] == relation.common_ancestor
    assert relation.distance == max(len(relation.label_path), len(relation.predicted_path)) - 1
    assert detail.label_class.definition == "an English breed having a long silky golden coat"
    assert "cat" in detail.predicted.definition  # WordNet's gloss of tabby
    # Exemplars: the other images whose correct labels hold the class, with files.
    assert [e.image_id for e in detail.label_exemplars] == [project.ids[2]]
    assert detail.predicted_exemplars == ()


def test_missing_file_and_labels_only_image(project):
    source = DetailSource(project)
    missing = source.detail(run_id=project.run1, image_id=project.ids[2], predicted=GOLDEN)
    assert missing.image_path is not None and not missing.image_exists
    no_file = source.detail(run_id=project.run1, image_id=project.ids[3])
    assert no_file.image_path is None and not no_file.image_exists
    with pytest.raises(KeyError, match="no image with id"):
        source.detail(run_id=project.run1, image_id=999)


def test_label_kind_uses_collapsed_mappings():
    labels = {"correct": [250], "wrong": [], "unclear": []}  # a Siberian husky image
    assert label_kind(labels, 248) == "correct"  # it accepts "Eskimo dog" (Appendix C)
    assert label_kind({"correct": [248], "wrong": [], "unclear": []}, 250) is None  # not the other way round


def _zoom(project, run_id: int, image_id: int, predicted: int, tops: list[int]):
    """Store a complete zoom probe whose crops answer `tops` in turn (one scale per entry)."""
    import numpy as np

    from reviewer.runs.zoom import ZoomParams, ZoomResult, save_zoom

    params = ZoomParams(scales=tuple(128 * (i + 1) for i in range(len(tops))))
    result = ZoomResult.empty(params, model="resnet50", weights_sha256=None, image_size=(500, 375))
    for scale, top in zip(params.scales, tops):
        for row in range(3):
            for col in range(3):
                result.set_cell(scale, row, col, np.array([top, 1, 2, 3, 4]), np.array([0.6, .1, .1, .1, .1]))
    project.write(lambda s: save_zoom(session=s, run_id=run_id, image=image_id, predicted=predicted, result=result))


def test_the_detail_carries_a_suggestion_the_zoom_probe_can_change(tmp_path):
    """An analog clock predicted for a wall clock (WordNet siblings under 'clock'), nothing else
    known: fine-grained and major; a complete zoom probe whose every crop still says analog clock
    keeps it major and says so; one with a crop answering 'wall clock' makes it minor (a rule the
    published reviews cannot measure, reviewer.review.suggest)."""
    wall, analog = 892, 409
    project = new_project(tmp_path / "p")
    ids = add_images(project, [wall, wall])
    run = add_run(project, "resnet50", {ids[0]: analog, ids[1]: analog})
    source = DetailSource(project)
    found = source.detail(run_id=run, image_id=ids[0]).suggestion
    assert (found.category, found.severity) == ("fine_grained", "major")
    assert found.reasons.startswith("WordNet distance 1 to wall clock (both a kind of clock)")
    _zoom(project, run, ids[0], analog, [analog, analog])
    _zoom(project, run, ids[1], analog, [analog, wall])
    found = source.detail(run_id=run, image_id=ids[0]).suggestion
    assert found.severity == "major" and "no crop of the zoom probe corrects it (18 crops)" in found.reasons
    corrected = source.detail(run_id=run, image_id=ids[1]).suggestion
    assert corrected.severity == "minor" and not corrected.measured
    project.close()
