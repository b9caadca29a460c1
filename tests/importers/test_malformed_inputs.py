"""Broken inputs through the CLI, as a user meets them: each error names the
file, the record and the problem, says what to do, exits 2 without a
traceback, and nothing of the file reaches the project."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from project_data import TEST_DATA
from sqlalchemy import func, select

from db.engine import read_session
from db.tables import Image, ImageSlice, ImportedReview, ImportedReviewItem, Label, LabelSource, ProblematicMark
from reviewer.cli import main
from reviewer.importers.real import default_path as real_labels_path

TABLES = (Image, Label, LabelSource, ProblematicMark, ImageSlice, ImportedReview, ImportedReviewItem)


def row_counts(project_dir: Path) -> dict[str, int]:
    from reviewer.project import Project

    project = Project.open(project_dir)
    try:
        with read_session(project.engine) as session:
            return {t.__tablename__: session.execute(select(func.count()).select_from(t)).scalar_one()
                    for t in TABLES}
    finally:
        project.close()


@pytest.fixture
def project_dir(templates, tmp_path) -> Path:
    """A project with the TFDS sample and one review already in it (so 'unchanged' means something):
    tmp_path/proj, made once and copied per test."""
    return templates.copy_folder(_project_dir, tmp_path)


def _project_dir(folder: Path):
    from reviewer.project import Project

    path = folder / "proj"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["init", str(path), "--labels", str(TEST_DATA / "formats" / "tfds_v3_sample.json")]) == 0
        assert main(["import-review", str(path), str(TEST_DATA / "imagenet-mistakes" / "greedy_soups_mistakes.json"),
                     "--model", "greedy_soups"]) == 0
    return Project.open(path)


def _tfds(shared_data):
    return json.loads((shared_data / "formats" / "tfds_v3_sample.json").read_text())


def _review(shared_data):
    return json.loads((shared_data / "imagenet-mistakes" / "vit3b_mistakes.json").read_text())


def _real(_shared_data):
    return json.loads(real_labels_path().read_text())


def _with(root, *keys_and_value):
    """`root` with root[k1][k2]... set to the value (the last argument)."""
    *keys, last, value = keys_and_value
    data = root
    for key in keys:
        data = data[key]
    data[last] = value
    return root


def _csv(shared_data, *, lines: int = 200, edit=None) -> str:
    """The first rows of the real TFDS v3 CSV dump, with `edit(rows)` applied to its rows
    (lists of fields, header first)."""
    import csv
    import io

    path = shared_data / "published" / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv"
    rows = list(csv.reader(io.StringIO(path.read_text())))[:lines]
    if edit:
        edit(rows)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _set(row: int, column: str, value: str):
    def edit(rows):
        rows[row][rows[0].index(column)] = value
    return edit


VIT_7 = "ILSVRC2012_val_00002021.JPEG"  # the 6th record of vit3b_mistakes.json
V4 = "ILSVRC2012_val_00000004.JPEG"

# (command, name of the written file, its content from the real files, record, problem, hint)
CASES = {
    "truncated TFDS": ("import-labels", "tfds.json", lambda d: json.dumps(_tfds(d))[:700],
                       None, "not valid JSON", "is the file complete?"),
    "wrong type": ("import-labels", "tfds.json",
                   lambda d: json.dumps(_with(_tfds(d), "initial_annots", V4, "correct", "n04263257")),
                   f"initial_annots/{V4}", "'correct' must be a list of wnids, got \"n04263257\"", None),
    "unknown wnid": ("import-labels", "tfds.json",
                     lambda d: json.dumps(_with(_tfds(d), "initial_annots", V4, "wrong", ["n99999999"])),
                     f"initial_annots/{V4}/wrong", "'n99999999' is not one of the 1000 ImageNet-1k classes",
                     "e.g. n01440764 for tench"),
    "duplicate image key": ("import-labels", "tfds.json",
                            lambda d: '{"initial_annots": {"%s": {"correct": ["n04263257"]}, '
                                      '"%s": {"correct": ["n01440764"]}}}' % (V4, V4),
                            V4, "appears twice in one JSON object", "keep one of the two entries"),
    "ImageNet-M image without labels": (
        "import-labels", "tfds.json",
        lambda d: json.dumps({**(t := _tfds(d)), "imagenet_m": t["imagenet_m"] + ["ILSVRC2012_val_00049999.JPEG"]}),
        "imagenet_m[3]", "is not an image of 'initial_annots'", "fix or remove the name"),
    "duplicate image in the 20k list": (
        "import-labels", "annotated.json",
        lambda d: json.dumps({"image_filenames": [["ILSVRC2012_val_00000001.JPEG", "n01751748"],
                                                  ["ILSVRC2012_val_00000002.JPEG", "n09193705"],
                                                  ["ILSVRC2012_val_00000001.JPEG", "n01751748"]]}),
        "image_filenames[2]", "listed twice (image_filenames[0] and [2])", "keep one entry"),
    "ReaL class index 1000": ("import-labels", "real.json",
                              lambda d: json.dumps(_with(_real(d), 12, [1000])),
                              "row 12 (ILSVRC2012_val_00000013.JPEG)", "class index must be an integer 0-999, got 1000",
                              "sorted-wnid order"),
    "ReaL rows missing": ("import-labels", "real.json", lambda d: json.dumps(_real(d)[:-1]),
                          None, "has 49999 rows", "use the complete file"),
    "validation paths: a wnid that is no class": (
        "import-labels", "paths.json",
        lambda d: json.dumps(["val/n01440764/ILSVRC2012_val_00000293.JPEG", "val/n99999999/ILSVRC2012_val_00000001.JPEG"]),
        "entry 1", "'n99999999' is not one of the 1000 ImageNet-1k classes", None),
    "validation paths: an entry outside a class folder": (
        "import-labels", "paths.json",
        lambda d: json.dumps(["val/n01440764/ILSVRC2012_val_00000293.JPEG", "ILSVRC2012_val_00000001.JPEG"]),
        "entry 1", "expected a path 'FOLDER/wnid/file name'", "inside its class's folder"),
    "validation paths: an image listed twice": (
        "import-labels", "paths.json",
        lambda d: json.dumps(["val/n01440764/ILSVRC2012_val_00000293.JPEG", "val/n01443537/ILSVRC2012_val_00000293.JPEG"]),
        "entry 1", "listed twice (entries 0 and 1)", "keep one entry"),
    "label file: duplicate image": ("import-labels", "labels.txt",
                                    lambda d: "# original labels\n\nILSVRC2012_val_00000001.JPEG 65\n"
                                              "ILSVRC2012_val_00000001.JPEG n01440764\n",
                                    "line 4", "listed twice (lines 3 and 4)", "keep one of the two lines"),
    "label file: class index 1000": ("import-labels", "labels.txt",
                                     lambda d: "# comment\nILSVRC2012_val_00000001.JPEG 1000\n",
                                     "line 2", "class index must be an integer 0-999, got 1000", None),
    "label file: a path as the image name": ("import-labels", "labels.txt",
                                             lambda d: "../../../../etc/passwd 5\n", "line 1",
                                             '"../../../../etc/passwd" is not an image file name',
                                             "by their file name alone"),
    "JSON nested 200,000 deep": ("import-labels", "deep.json", lambda d: "[" * 200_000 + "]" * 200_000, None,
                                 "is nested too deeply", "is it the right file?"),
    "JSON number of 5000 digits": ("import-labels", "real.json", lambda d: "[[" + "9" * 5000 + "]]", None,
                                   "holds a number of thousands of digits", "is it the right file?"),
    "label file: a class of 20 million digits": ("import-labels", "labels.txt",
                                                 lambda d: "ILSVRC2012_val_00000001.JPEG " + "9" * 20_000_000 + "\n",
                                                 "line 1", "class index must be an integer 0-999", None),
    "validation wnid list: short": ("import-labels", "val_labels.txt", lambda d: "n01751748\nn09193705\n", None,
                                    "lists 2 wnids", "the complete imagenet2012_validation_labels.txt"),
    "TFDS CSV: a column missing": ("import-labels", "multilabel.csv",
                                   lambda d: _csv(d, edit=lambda rows: [r.pop() for r in rows]),
                                   None, "the header lacks the columns is_problematic", "CSV dump"),
    "TFDS CSV: class index 1000": ("import-labels", "multilabel.csv",
                                   lambda d: _csv(d, edit=_set(5, "wrong_multi_labels", "1, 1000")),
                                   "line 6", "class index must be an integer 0-999, got 1000", None),
    "TFDS CSV: not a class list": ("import-labels", "multilabel.csv",
                                   lambda d: _csv(d, edit=_set(5, "proposed_labels", "tench")),
                                   "line 6", "'proposed_labels' must list class indices 0-999", None),
    "TFDS CSV: problematic neither True nor False": (
        "import-labels", "multilabel.csv", lambda d: _csv(d, edit=_set(9, "is_problematic", "maybe")),
        "line 10", "'is_problematic' must be True or False, got \"maybe\"", None),
    "TFDS CSV: an image twice": ("import-labels", "multilabel.csv",
                                 lambda d: _csv(d, edit=lambda rows: rows.append(list(rows[3]))),
                                 "line 201", "listed twice (lines 4 and 201)", "keep one of the two"),
    "TFDS CSV: a short row": ("import-labels", "multilabel.csv",
                              lambda d: _csv(d, edit=lambda rows: rows[7].pop()),
                              "line 8", "has 7 fields where the header has 8", "is the file complete?"),
    "TFDS CSV: a path as the image id": ("import-labels", "multilabel.csv",
                                         lambda d: _csv(d, edit=_set(2, "id", "../x.JPEG")),
                                         "line 3", "is not an image file name", None),
    "a Flaws of ImageNet correction as labels": (
        "import-labels", "clean_validation.csv", lambda d: (d / "published" / "flaws-of-imagenet" /
                                                            "clean_validation.csv").read_text()[:5000],
        None, "a CSV of proposed labels without the multi-label columns", "ground truth comes from the TFDS"),
    "empty file": ("import-labels", "labels.json", lambda d: "", None, "is empty", "re-download"),
    "non-UTF-8": ("import-labels", "labels.txt",
                  lambda d: "ILSVRC2012_val_00000001.JPEG 65\n# caf\xe9\n".encode("latin-1"),
                  None, "is not UTF-8 text (byte 0xe9 at line 2)", "save it as UTF-8"),
    # Not text at all: "save it as UTF-8" sent the user astray (issue 24); say what it is and where it goes.
    "a JPEG given as labels": ("import-labels", "n01440764_tench.JPEG",
                               lambda d: (d / "imagenet-samples" / "n01440764_tench.JPEG").read_bytes(),
                               None, "is a JPEG image, not a label, review or evidence file",
                               "reviewer import-images PROJECT FOLDER"),
    "a zipped review": ("import-review", "vit3b_mistakes.json.zip", lambda d: b"PK\x03\x04" + b"\0" * 40,
                        None, "is a ZIP archive", "unpack it and import the file inside"),
    "a review given as labels": ("import-labels", "vit3b_mistakes.json", lambda d: json.dumps(_review(d)),
                                 None, "this is a published model review, not a label file",
                                 "reviewer import-review PROJECT FILE --model NAME"),
    "review: class index 1000": ("import-review", "review.json",
                                 lambda d: json.dumps(_with(_review(d), VIT_7, "top_prediction", 1000)),
                                 VIT_7, "class index must be an integer 0-999, got 1000", None),
    "review: duplicate image": ("import-review", "review.json",
                                lambda d: '{"%s": {"top_prediction": 1, "failure category": "Non-prototypical", '
                                          '"failure severity": "Minor"}, "%s": {"top_prediction": 2, '
                                          '"failure category": "Non-prototypical", "failure severity": "Major"}}'
                                          % (VIT_7, VIT_7),
                                VIT_7, "appears twice", None),
    "review: missing fields": ("import-review", "review.json",
                               lambda d: json.dumps(_with(_review(d), VIT_7, {"top_prediction": 3})),
                               VIT_7, "missing 'failure category', 'failure severity'", "a record holds"),
    "review: unknown severity": ("import-review", "review.json",
                                 lambda d: json.dumps(_with(_review(d), VIT_7, "failure severity", "Huge")),
                                 VIT_7, 'unknown failure severity "Huge"', "Major, Minor or Borderline"),
    "review: no records": ("import-review", "review.json", lambda d: "{}", None, "holds no review records", None),
    "a label file given as a review": ("import-review", "tfds.json", lambda d: json.dumps(_tfds(d)),
                                       None, "this is a label file, not a published model review",
                                       "reviewer import-labels PROJECT FILE"),
    "ReaL labels given as a review": ("import-review", "real.json", lambda d: json.dumps(_real(d)),
                                      None, "these are ReaL labels", "reviewer import-labels"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_broken_input_is_refused_whole(case, project_dir, shared_data, tmp_path, capsys):
    command, file_name, content, record, problem, hint = CASES[case]
    path = tmp_path / file_name
    body = content(shared_data)
    path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    before = row_counts(project_dir)
    extra = ["--model", "vit3b"] if command == "import-review" else []
    assert main([command, str(project_dir), str(path), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}" + (f", record {record}:" if record else ":")), err
    assert problem in err
    if hint:
        assert hint in err
    assert "Nothing was imported" in err and "Traceback" not in err
    assert row_counts(project_dir) == before


def test_a_folder_given_as_a_label_file(project_dir, tmp_path, capsys):
    (tmp_path / "labels.json").mkdir()
    before = row_counts(project_dir)
    assert main(["import-labels", str(project_dir), str(tmp_path / "labels.json")]) == 2
    assert f"{tmp_path / 'labels.json'}: is a folder, not a file" in capsys.readouterr().err
    assert row_counts(project_dir) == before


def test_all_files_are_checked_before_any_is_imported(project_dir, shared_data, tmp_path, capsys):
    bad = tmp_path / "labels.txt"
    bad.write_text("ILSVRC2012_val_00000001.JPEG n01440764\nILSVRC2012_val_00000002.JPEG 1000\n")
    before = row_counts(project_dir)
    good = shared_data / "formats" / "imagenet-annotatedval20k.json"
    assert main(["import-labels", str(project_dir), str(good), str(bad)]) == 2
    assert row_counts(project_dir) == before  # the good first file was not imported either


def test_the_same_review_twice_is_refused(project_dir, shared_data, capsys):
    path = shared_data / "imagenet-mistakes" / "greedy_soups_mistakes.json"
    before = row_counts(project_dir)
    assert main(["import-review", str(project_dir), str(path), "--model", "greedy_soups"]) == 2
    err = capsys.readouterr().err
    assert "is already imported as review 1 of greedy_soups" in err and "Traceback" not in err
    assert row_counts(project_dir) == before  # its mistakes are not counted twice


def test_init_with_a_broken_file_makes_no_project(tmp_path, shared_data, capsys):
    bad = tmp_path / "review.json"
    bad.write_text('{"ILSVRC2012_val_00000001.JPEG": {"top_prediction": 3}}')
    assert main(["init", str(tmp_path / "p"), "--labels", str(shared_data / "formats" / "tfds_v3_sample.json"),
                 str(bad)]) == 2
    assert "No project was made" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_utf8_with_bom_and_utf16_json_are_read(tmp_path):
    from reviewer.importers import parse_labels

    data = {"image_filenames": [["ILSVRC2012_val_00000001.JPEG", "n01751748"]]}
    for encoding in ("utf-8-sig", "utf-16"):
        path = tmp_path / f"{encoding}.json"
        path.write_bytes(json.dumps(data).encode(encoding))
        assert parse_labels(path).images["ILSVRC2012_val_00000001.JPEG"].original_label == 65


def test_the_papers_class_confusions_are_not_taken_for_real_labels_or_a_review(tmp_path, shared_data, capsys):
    """class_confusion_wnids.json ([wnid, wnid, count] rows): import-review used to call it
    ReaL labels and send the panelist to import-labels, which then refused it."""
    from reviewer.cli import main
    from reviewer.importers import real

    path = shared_data / "imagenet-mistakes" / "class_confusion_wnids.json"
    assert not real.looks_like(json.loads(path.read_text()))
    assert main(["init", str(tmp_path / "p")]) == 0
    capsys.readouterr()
    assert main(["import-review", str(tmp_path / "p"), str(path), "--model", "x"]) == 2
    err = capsys.readouterr().err
    assert "confused class pairs" in err and "ReaL" not in err


def test_a_review_of_an_image_past_the_validation_set_is_refused(tmp_path, shared_data, capsys):
    """ILSVRC2012_val_00099999.JPEG cannot exist (the set ends at 00050000): it used to be
    imported, adding an image with no label and no file to the project."""
    from reviewer.cli import main

    review = json.loads((shared_data / "imagenet-mistakes" / "vit3b_mistakes.json").read_text())
    review["ILSVRC2012_val_00099999.JPEG"] = next(iter(review.values()))
    path = tmp_path / "review.json"
    path.write_text(json.dumps(review))
    assert main(["init", str(tmp_path / "p")]) == 0
    capsys.readouterr()
    assert main(["import-review", str(tmp_path / "p"), str(path), "--model", "x"]) == 2
    err = capsys.readouterr().err
    assert "'ILSVRC2012_val_00099999.JPEG' is not an ImageNet validation image" in err
    assert "ILSVRC2012_val_00050000.JPEG" in err
