"""Files about images the project does not have (issue 24): in a project of image files,
import-labels and import-review say how many of the file's images it lacks and add them
without a file only when asked (--add-missing-images); nothing changes without it. A
project made from label files has no files by design and takes them as before."""

from __future__ import annotations

from pathlib import Path

from reviewer.cli import main
from reviewer.project import Project

VIT3B = Path("imagenet-mistakes") / "vit3b_mistakes.json"


def _counts(root: Path) -> tuple[int, int]:
    """(images, of them with a file)"""
    from sqlalchemy import func, select

    from db.tables import Image

    project = Project.open(root)
    try:
        with project.read() as session:
            return (session.execute(select(func.count(Image.id))).scalar_one(),
                    session.execute(select(func.count(Image.id)).where(Image.path.is_not(None))).scalar_one())
    finally:
        project.close()


def test_a_review_of_images_a_project_of_files_lacks_is_refused_until_asked(tmp_path, shared_data, capsys):
    root = tmp_path / "samples"
    assert main(["init", str(root), "--images", str(shared_data / "imagenet-samples")]) == 0
    before = _counts(root)
    assert before[0] == before[1] > 0
    capsys.readouterr()
    assert main(["import-review", str(root), str(shared_data / VIT3B), "--model", "vit3b"]) == 2
    err = capsys.readouterr().err
    assert "378 of the 378 images this review names are not in the project" in err
    assert f"The project has image files ({before[1]} of its {before[0]} images)" in err
    assert "Nothing was imported" in err and "--add-missing-images" in err and "reviewer import-images" in err
    assert _counts(root) == before
    assert main(["report", str(root), "--json"]) == 0
    assert '"imported_reviews": []' in capsys.readouterr().out

    assert main(["import-review", str(root), str(shared_data / VIT3B), "--model", "vit3b",
                 "--add-missing-images"]) == 0
    out = capsys.readouterr().out
    assert "imported a review of vit3b: 378 reviewed mistakes" in out
    assert "378 images added without a file (--add-missing-images)" in out
    assert _counts(root) == (before[0] + 378, before[1])


def test_label_files_naming_images_a_project_of_files_lacks_are_refused_until_asked(tmp_path, shared_data, capsys):
    root = tmp_path / "samples"
    assert main(["init", str(root), "--images", str(shared_data / "imagenet-samples")]) == 0
    before = _counts(root)
    capsys.readouterr()
    labels = shared_data / "formats" / "tfds_v3_sample.json"
    assert main(["import-labels", str(root), str(labels)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {labels}: 21 of the 21 images this label file names are not in the project")
    assert _counts(root) == before
    assert main(["import-labels", "--add-missing-images", str(root), str(labels)]) == 0
    out = capsys.readouterr().out
    assert "21 images added" in out and "21 of the images added have no file (--add-missing-images)" in out
    assert _counts(root) == (before[0] + 21, before[1])


def test_a_project_of_label_files_takes_them_as_before(tmp_path, shared_data, capsys):
    """`init --labels` makes a project without files by design: its later files add images freely."""
    root = tmp_path / "labels"
    assert main(["init", str(root), "--labels", str(shared_data / "formats" / "tfds_v3_sample.json")]) == 0
    assert main(["import-review", str(root), str(shared_data / VIT3B), "--model", "vit3b"]) == 0
    out = capsys.readouterr().out
    assert "378 reviewed mistakes" in out and "images added without a file (a project of label files)" in out
    assert _counts(root)[1] == 0


def test_init_says_which_images_of_its_label_files_have_no_file(tmp_path, shared_data, capsys):
    """`init --images F --labels L`: the images L names beyond F are added (both were given at
    once), and the summary says they have no file rather than only "21 images added"."""
    root = tmp_path / "both"
    folder = shared_data / "imagenet-samples"
    assert main(["init", str(root), "--images", str(folder), "--labels",
                 str(shared_data / "formats" / "tfds_v3_sample.json")]) == 0
    out = capsys.readouterr().out
    assert f"21 of the images added are not in {folder}: they have no file" in out
    images, with_files = _counts(root)
    assert images - with_files == 21
