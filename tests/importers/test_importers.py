"""Each importer on the real files in tests/data, good and malformed."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest
from project_data import new_project
from sqlalchemy import func, select

from db.engine import read_session
from db.tables import Image, ImageSlice, ImportedReviewItem, Label, ProblematicMark
from reviewer.app.imports import import_labels, import_review, init_project
from reviewer.classes.vocabulary import load_classes
from reviewer.errors import InputError
from reviewer.importers.real import default_path as real_labels_path
from reviewer.project import Project


def count(project: Project, column, *where) -> int:
    with read_session(project.engine) as session:
        return session.execute(select(func.count(column)).where(*where)).scalar_one()


def test_tfds_v3_sample(tmp_path, shared_data):
    path = shared_data / "formats" / "tfds_v3_sample.json"
    project, _ = init_project(tmp_path / "p", labels=[path])
    raw = json.loads(path.read_text())
    kinds = Counter(k for v in raw["initial_annots"].values() for k in v for _ in v[k])
    for kind, n in kinds.items():
        assert count(project, Label.id, Label.kind == kind) == n
    assert count(project, Image.id, Image.problematic) == len(raw["problematic_images"])
    assert count(project, ProblematicMark.id) == len(raw["problematic_images"])
    assert count(project, ImageSlice.id, ImageSlice.name == "imagenet_m") == len(raw["imagenet_m"])
    classes = load_classes()
    with read_session(project.engine) as session:
        image = session.execute(select(Image).where(Image.file_name == "ILSVRC2012_val_00000001.JPEG")).scalar_one()
        labels = session.execute(select(Label.class_index, Label.kind).where(Label.image_id == image.id)).all()
    assert image.val_index == 0
    assert {classes.wnids[c] for c, k in labels if k == "correct"} == {"n01751748"}  # sea snake
    assert len([1 for _, k in labels if k == "wrong"]) == 4


def test_annotated_list_and_tfds_together(tmp_path, shared_data):
    project, summaries = init_project(
        tmp_path / "p",
        labels=[shared_data / "formats" / "imagenet-annotatedval20k.json",
                shared_data / "formats" / "tfds_v3_sample.json"])
    assert project.image_count() == 20_000
    assert summaries[0].images_added == 20_000 and summaries[1].images_added == 0
    with read_session(project.engine) as session:
        label = session.execute(select(Image.original_label).where(
            Image.file_name == "ILSVRC2012_val_00038135.JPEG")).scalar_one()
    assert load_classes().wnids[label] == "n02978881"


def test_real_labels_restricted_to_project_images(tmp_path, shared_data):
    project, _ = init_project(tmp_path / "p", labels=[shared_data / "formats" / "tfds_v3_sample.json"])
    [summary] = import_labels(project, [real_labels_path()]).value
    assert project.image_count() == 11 + 10  # annotated + problematic images, no more
    real = json.loads(real_labels_path().read_text())
    expected = sum(len(set(real[i])) for i in (0, 3, 4, 10, 11, 13, 15, 16, 17, 18, 21))
    expected += sum(len(set(real[int(n[15:23]) - 1])) for n in
                    json.loads((shared_data / "formats" / "tfds_v3_sample.json").read_text())["problematic_images"])
    assert summary.real_labels == expected == count(project, Label.id, Label.label_set == "real")


def test_flat_folder_of_wnid_named_files(tmp_path, shared_data):
    folder = shared_data / "imagenet-samples"
    project, _ = init_project(tmp_path / "p", images=folder)
    files = sorted(p.name for p in folder.iterdir())
    assert project.image_count() == len(files) > 20
    classes = load_classes()
    with read_session(project.engine) as session:
        rows = session.execute(select(Image.file_name, Image.original_label)).all()
        tench = session.execute(select(Image).where(Image.file_name == "n01440764_tench.JPEG")).scalar_one()
    assert all(classes.wnids[label] == name[:9] for name, label in rows)
    assert sorted(label for _, label in rows) == sorted(classes.wnids.index(name[:9]) for name in files)
    assert project.image_file(tench).is_file()


def test_folder_per_wnid_and_val_names_with_label_file(tmp_path, shared_data):
    src = sorted((shared_data / "imagenet-samples").iterdir())[:3]
    per_wnid = tmp_path / "per_wnid"
    for i, f in enumerate(src):
        (per_wnid / f.name[:9]).mkdir(parents=True)
        shutil.copy(f, per_wnid / f.name[:9] / f"ILSVRC2012_val_{i + 1:08d}.JPEG")
    project, _ = init_project(tmp_path / "p1", images=per_wnid)
    with read_session(project.engine) as session:
        assert sorted(session.execute(select(Image.original_label)).scalars()) == [
            load_classes().wnids.index(f.name[:9]) for f in src]

    flat = tmp_path / "flat"
    flat.mkdir()
    for f in per_wnid.rglob("*.JPEG"):
        shutil.copy(f, flat / f.name)
    labels = tmp_path / "LOC_val_solution.csv"
    labels.write_text("ImageId,PredictionString\n" + "".join(
        f"ILSVRC2012_val_{i + 1:08d},{f.name[:9]} 1 2 3 4\n" for i, f in enumerate(src)))
    project, _ = init_project(tmp_path / "p2", images=flat, labels=[labels])
    with read_session(project.engine) as session:
        rows = dict(session.execute(select(Image.file_name, Image.original_label)).all())
    assert rows == {f"ILSVRC2012_val_{i + 1:08d}.JPEG": load_classes().wnids.index(f.name[:9])
                    for i, f in enumerate(src)}


def test_published_reviews(tmp_path, shared_data):
    project = new_project(tmp_path / "p")
    path = shared_data / "imagenet-mistakes" / "vit3b_mistakes.json"
    done = import_review(project, path, model="vit3b")
    assert done.value.items == 378 and done.changes.labels
    with read_session(project.engine) as session:
        cats = Counter(session.execute(select(ImportedReviewItem.category)).scalars())
        sevs = Counter(session.execute(select(ImportedReviewItem.severity)).scalars())
    assert cats == {"fine_grained": 242, "fine_grained_oov": 54, "spurious_correlation": 52, "non_prototypical": 30}
    assert sevs == {"major": 154, "minor": 150, "borderline": 74}


# -- malformed input: a clear error naming file and record; nothing imported ------

def _label_count(project: Project) -> int:
    return count(project, Label.id)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["initial_annots"]["ILSVRC2012_val_00000019.JPEG"].update(correct=["n99999999"]),
     "record initial_annots/ILSVRC2012_val_00000019.JPEG/correct: 'n99999999' is not one of the 1000"),
    (lambda d: d["initial_annots"]["ILSVRC2012_val_00000019.JPEG"].update(wrong="n01440764"),
     "'wrong' must be a list of wnids"),
    (lambda d: d["initial_annots"]["ILSVRC2012_val_00000019.JPEG"].update(maybe=[]), "unknown keys ['maybe']"),
    (lambda d: d.update(imagenet_m="ILSVRC2012_val_00000001.JPEG"), "'imagenet_m' must be a list"),
])
def test_malformed_tfds_imports_nothing(tmp_path, shared_data, mutate, message):
    data = json.loads((shared_data / "formats" / "tfds_v3_sample.json").read_text())
    mutate(data)  # a late record is bad; the earlier ones are fine
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    project = new_project(tmp_path / "p")
    with pytest.raises(InputError) as err:
        import_labels(project, [bad])
    assert str(err.value).startswith(str(bad))
    assert message in str(err.value)
    assert _label_count(project) == 0 and project.image_count() == 0


def test_truncated_json_is_named(tmp_path, shared_data):
    bad = tmp_path / "cut.json"
    bad.write_text((shared_data / "formats" / "tfds_v3_sample.json").read_text()[:500])
    with pytest.raises(InputError, match="cut.json: not valid JSON"):
        init_project(tmp_path / "p", labels=[bad])
    assert not (tmp_path / "p").exists()  # nothing half-made


def test_missing_file_and_review_given_as_labels(tmp_path, shared_data):
    with pytest.raises(InputError, match="file not found"):
        init_project(tmp_path / "p", labels=[tmp_path / "nope.json"])
    with pytest.raises(InputError, match="import-review"):
        init_project(tmp_path / "p", labels=[shared_data / "imagenet-mistakes" / "vit3b_mistakes.json"])


def test_malformed_review_imports_nothing(tmp_path, shared_data):
    data = json.loads((shared_data / "imagenet-mistakes" / "vit3b_mistakes.json").read_text())
    name = list(data)[200]
    data[name]["failure category"] = "Cosmic rays"
    bad = tmp_path / "review.json"
    bad.write_text(json.dumps(data))
    project = new_project(tmp_path / "p")
    with pytest.raises(InputError, match=f"review.json, record {name}: unknown failure category \"Cosmic rays\""):
        import_review(project, bad, model="vit3b")
    assert count(project, ImportedReviewItem.id) == 0 and project.image_count() == 0


def test_bad_label_file_line(tmp_path):
    bad = tmp_path / "labels.txt"
    bad.write_text("ILSVRC2012_val_00000001.JPEG n01751748\nILSVRC2012_val_00000002.JPEG 1000\n")
    with pytest.raises(InputError, match="labels.txt, record line 2: class index must be an integer 0-999"):
        init_project(tmp_path / "p", labels=[bad])


def test_empty_image_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no images"):
        init_project(tmp_path / "p", images=tmp_path / "empty")


def test_a_second_image_folder_keeps_the_first_folders_files(tmp_path, shared_data):
    from reviewer.app.imports import import_images

    samples = sorted((shared_data / "imagenet-samples").iterdir())
    for folder, sample in (("first", samples[0]), ("second", samples[1])):
        (tmp_path / folder).mkdir()
        shutil.copy(sample, tmp_path / folder / sample.name)
    project, _ = init_project(tmp_path / "p", images=tmp_path / "first")
    assert import_images(project, tmp_path / "second").value.images_added == 1
    with read_session(project.engine) as session:
        files = {image.file_name: project.image_file(image) for image in session.execute(select(Image)).scalars()}
    assert files == {samples[0].name: (tmp_path / "first" / samples[0].name).resolve(),
                     samples[1].name: (tmp_path / "second" / samples[1].name).resolve()}


def test_import_labels_of_several_files_is_one_transaction(tmp_path, shared_data, capsys):
    """`reviewer import-labels P A B`: a database failure while B is written leaves A unwritten too."""
    from sqlalchemy import text

    from db.tables import LabelSource
    from reviewer.cli import main

    sample = shared_data / "formats" / "tfds_v3_sample.json"
    project, _ = init_project(tmp_path / "p", labels=[sample])
    with project.engine.begin() as conn:  # the disk fails at the second file's label source row
        conn.execute(text("CREATE TRIGGER fail_second BEFORE INSERT ON label_source "
                          "WHEN (SELECT count(*) FROM label_source) >= 2 BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"))
    with read_session(project.engine) as session:
        before = session.execute(select(func.count(Label.id))).scalar_one()
    with pytest.raises(Exception, match="disk I/O error"):
        # A second file (another version of the sample: the same file again reuses its source row).
        other = tmp_path / "sample_v2.json"
        other.write_text(sample.read_text() + "\n")
        main(["import-labels", str(project.root), str(real_labels_path()), str(other)])
    assert "ReaL labels" not in capsys.readouterr().out  # nothing was said to be imported
    with read_session(project.engine) as session:
        assert session.execute(select(func.count(LabelSource.id))).scalar_one() == 1
        assert session.execute(select(func.count(Label.id))).scalar_one() == before
        assert session.execute(select(func.count(Label.id)).where(Label.label_set == "real")).scalar_one() == 0
