"""A bad boxes file for `reviewer patchml`, as a user meets it: the error names the file,
the line and what is wrong, says what to do, exits 2 without a traceback, and nothing is
made (no folder, no image, no slice)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from db.tables import Image, ImageSlice, Label
from reviewer.cli import main
from reviewer.project import Project

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "imagenet-samples"
HEADER = "ImageId,PredictionString\n"
GOOD = ("n01440764_tench.JPEG,n01440764 35 125 430 300\n"  # tench: 500 x 375
        "n01443537_goldfish,n01443537 28 47 300 212\n")  # goldfish: 376 x 263, named without extension


@pytest.fixture(scope="module")
def project_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("boxes") / "p"
    assert main(["init", str(root), "--images", str(SAMPLES)]) == 0
    return root


def refused(project_dir: Path, tmp_path: Path, text: str, capsys, *extra: str) -> str:
    boxes = tmp_path / "boxes.csv"
    boxes.write_text(text)
    capsys.readouterr()
    assert main(["patchml", str(project_dir), "--boxes", str(boxes), "--seed", "0", *extra]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(boxes) in err and "Nothing was made" in err
    assert not (project_dir / "patchml").exists() or not any((project_dir / "patchml").iterdir())
    project = Project.open(project_dir)
    with project.read() as session:
        assert session.execute(select(func.count()).select_from(ImageSlice)).scalar_one() == 0
        assert session.execute(select(func.count()).select_from(Label)).scalar_one() == 0
        assert session.execute(select(func.count()).select_from(Image)).scalar_one() == 22
    project.close()
    return err


@pytest.mark.parametrize("text,says", [
    ("ImageId,Boxes\n" + GOOD, ["line 1", "expected the header 'ImageId,PredictionString'", "LOC_val_solution.csv"]),
    (HEADER + GOOD + "n01443537_goldfish.JPEG,n01443537 1 2 3 4,extra\n",
     ["line 4", "3 fields where the header has 2"]),
    (HEADER + "n01440764_tench.JPEG,n01440764 35 125 430\n", ["line 2", "4 words, not groups of 5"]),
    (HEADER + GOOD + "n04285008_sports_car.JPEG,n04285008 40 55.5 525 280\n",
     ["line 4", "box 1: y_min must be a whole number of pixels, got \"55.5\""]),
    (HEADER + "n01440764_tench.JPEG,n01440764 35 125 430 300 n01440764 300 100 501 200\n",
     ["line 2", "box 2 of n01440764_tench.JPEG (n01440764 300 100 501 200) is not inside the image (500 x 375 "
               "pixels)", "whole pixels of the image file"]),
    (HEADER + "n01440764_tench.JPEG,n01440764 430 125 35 300\n", ["line 2", "is not inside the image"]),
    (HEADER + GOOD + "n02085620_Chihuahua.JPEG,n99999999 100 12 415 335\n",
     ["line 4, box 1", "'n99999999' is not one of the 1000 ImageNet-1k classes"]),
    (HEADER + GOOD + "ILSVRC2012_val_00000001,n01751748 10 10 100 100\n",
     ["line 4", "ILSVRC2012_val_00000001 is not an image of the project", "reviewer import-images",
      "--skip-missing"]),
    (HEADER + GOOD + "n01440764_tench.JPEG,n01440764 1 1 50 50\n", ["line 4", "listed twice (lines 2 and 4)"]),
])
def test_a_bad_boxes_file_names_its_line_and_makes_nothing(project_dir, tmp_path, capsys, text, says):
    err = refused(project_dir, tmp_path, text, capsys)
    for words in says:
        assert words in err, (words, err)


def test_skip_missing_leaves_out_the_images_the_project_lacks_and_says_so(tmp_path, capsys):
    root = tmp_path / "p"
    assert main(["init", str(root), "--images", str(SAMPLES)]) == 0
    boxes = tmp_path / "boxes.csv"
    boxes.write_text(HEADER + GOOD + "ILSVRC2012_val_00000001,n01751748 10 10 100 100 n01751748 5 5 50 50\n")
    capsys.readouterr()
    assert main(["patchml", str(root), "--boxes", str(boxes), "--seed", "1", "--skip-missing"]) == 0
    out = capsys.readouterr().out
    assert "1 image from 2 patches" in out and "k=2: 1" in out  # floor(2/2); no k of 3 or more from 2 patches
    assert "left out (--skip-missing): 2 boxes of 1 image the project lacks" in out


def test_too_few_boxes_for_any_image_is_refused(tmp_path, capsys):
    root = tmp_path / "p"
    assert main(["init", str(root), "--images", str(SAMPLES)]) == 0
    boxes = tmp_path / "boxes.csv"
    boxes.write_text(HEADER + "n01440764_tench.JPEG,n01440764 35 125 430 300\n")
    capsys.readouterr()
    assert main(["patchml", str(root), "--boxes", str(boxes), "--seed", "1"]) == 2
    assert "1 box(es) make no PatchML image (each needs at least 2 patches)" in capsys.readouterr().err
    assert not (root / "patchml" / "patchml-s1").exists()
