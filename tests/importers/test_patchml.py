"""PatchML (Anzaku et al., "The Impact of the Single-Label Assumption in Image Recognition
Benchmarking", §3.2, Algorithm 1) made from hand-made boxes on real images: the 21 sample
images of tests/data with an object box drawn by eye (25 boxes; the hammerheads, vultures
and measuring cups have two or three, so some images repeat a class). Every expected value
is worked out here from the paper's definition and the boxes themselves, not read from the
code: floor(25 / k) images per k, each patch in its own grid cell, labels the union of the
patches' classes, the same set for the same seed."""

from __future__ import annotations

import csv
import io
import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from patchml_data import BOXES, SAMPLES
from PIL import Image as PILImage
from sqlalchemy import select

from db.tables import Image, ImageSlice, Label
from reviewer.app.patchml import make_patchml
from reviewer.cli import main
from reviewer.errors import UserError
from reviewer.labels.labelset import load_labelset
from reviewer.project import Project

K, P, F = (2, 3, 4, 6, 9), (256, 256, 256, 170, 128), 512  # the paper's


def boxes_by_hand() -> list[tuple[str, str, tuple[int, int, int, int]]]:
    """(image, wnid, box) of every box, read with csv alone."""
    out = []
    for image, listed in list(csv.reader(io.StringIO(BOXES)))[1:]:
        words = listed.split()
        for i in range(0, len(words), 5):
            out.append((image, words[i], tuple(int(v) for v in words[i + 1:i + 5])))
    return out


def made(tmp_path: Path, *, seed: int = 7, name: str = "p") -> tuple[Project, dict]:
    """A project of the sample images with a PatchML set made from BOXES; its manifest."""
    root = tmp_path / name
    assert main(["init", str(root), "--images", str(SAMPLES)]) == 0
    (tmp_path / "boxes.csv").write_text(BOXES)
    project = Project.open(root)
    done = make_patchml(project, tmp_path / "boxes.csv", seed=seed).value
    return project, json.loads((done.folder / "manifest.json").read_text())


@pytest.fixture(scope="module")
def patchml(tmp_path_factory):
    project, manifest = made(tmp_path_factory.mktemp("patchml"))
    yield project, manifest
    project.close()


def test_every_k_draws_the_whole_pool_once(patchml):
    _, manifest = patchml
    pool = boxes_by_hand()
    assert len(pool) == 25
    files = manifest["files"]
    for k, p in zip(K, P):
        images = [f for f in files if f["k"] == k]
        assert len(images) == len(pool) // k  # 12, 8, 6, 4, 2
        assert all(f["p"] == p and len(f["patches"]) == k for f in images)
        used = [(q["image"], tuple(q["box"])) for f in images for q in f["patches"]]
        assert len(set(used)) == len(used) == k * (len(pool) // k)  # sampled without replacement
        assert set(used) <= {(image, box) for image, _, box in pool}
    assert manifest["images_per_k"] == {"2": 12, "3": 8, "4": 6, "6": 4, "9": 2}
    assert manifest["patches"] == 25 and manifest["seed"] == 7


def test_patches_keep_their_aspect_ratio_and_never_overlap(patchml):
    _, manifest = patchml
    boxes = {(image, box) for image, _, box in boxes_by_hand()}
    for f in manifest["files"]:
        p, c = f["p"], F // f["p"]
        rects = []
        for i, q in enumerate(f["patches"]):
            assert (q["image"], tuple(q["box"])) in boxes
            x, y, w, h = q["at"]
            bw, bh = q["box"][2] - q["box"][0], q["box"][3] - q["box"][1]
            assert max(w, h) == p  # resized so that the longer side is p
            scale = p / max(bw, bh)
            assert abs(w - bw * scale) <= 1 and abs(h - bh * scale) <= 1  # aspect kept, to a pixel
            assert q["cell"] == [i // c, i % c]  # Algorithm 1, line 11
            row, col = q["cell"]
            assert col * p <= x and x + w <= (col + 1) * p and row * p <= y and y + h <= (row + 1) * p
            assert x + w <= F and y + h <= F
            rects.append((x, y, x + w, y + h))
        for a, b in combinations(rects, 2):
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (f["file"], a, b)


def test_labels_are_the_union_of_the_patches_classes(patchml):
    project, manifest = patchml
    wnids = {image: wnid for image, wnid, _ in boxes_by_hand()}
    for f in manifest["files"]:
        assert f["labels"] == sorted({wnids[q["image"]] for q in f["patches"]})
    counts = {}
    for f in manifest["files"]:
        counts[len(f["labels"])] = counts.get(len(f["labels"]), 0) + 1
    assert manifest["images_per_label_count"] == {str(k): n for k, n in sorted(counts.items())}
    # Some image repeats a class here (two hammerheads, ...): it has fewer labels than patches.
    assert any(len(f["labels"]) < f["k"] for f in manifest["files"])
    # The database holds the same labels, as the label set "patchml", and nothing else for them.
    from timm.data import ImageNetInfo

    index = {w: i for i, w in enumerate(ImageNetInfo().label_names())}
    with project.read() as session:
        rows = session.execute(select(Image.file_name, Label.class_index, Label.label_set, Label.kind)
                               .join(Label, Label.image_id == Image.id)
                               .where(Image.file_name.startswith("patchml-s7_"))).all()
        images = session.execute(select(Image).where(Image.file_name.startswith("patchml-s7_"))).scalars().all()
        sliced = session.execute(select(ImageSlice.image_id).where(ImageSlice.name == "patchml-s7")).scalars().all()
    assert {r.label_set for r in rows} == {"patchml"} and {r.kind for r in rows} == {"correct"}
    stored = {}
    for r in rows:
        stored.setdefault(r.file_name, set()).add(r.class_index)
    assert stored == {f["file"]: {index[w] for w in f["labels"]} for f in manifest["files"]}
    assert sorted(sliced) == sorted(i.id for i in images) and len(images) == 32
    assert all(i.original_label is None and not i.multilabel and Path(i.path).is_file() for i in images)


def test_the_patchml_images_stay_out_of_the_review(patchml):
    """A folder project's review scope is its images with an original label; PatchML's
    labels are a label set apart, as ReaL's: no mistake is sought on them."""
    project, manifest = patchml
    with project.read() as session:
        labels = load_labelset(session=session)
        ids = session.execute(select(Image.id).where(Image.file_name.startswith("patchml-s7_"))).scalars().all()
    positions = labels.positions(np.array(ids))
    assert labels.original_only and not labels.in_review_scope()[positions].any()
    assert len(labels.rows) == 22  # the samples' original labels, standing in as their correct labels
    assert len(labels.patchml_rows) == sum(len(f["labels"]) for f in manifest["files"])


def test_the_drawn_image_is_black_but_for_its_resized_crops(patchml):
    """The pixels, rebuilt from the definition: each box cropped from its file and resized
    bicubically to its place; everything else black (JPEG's error aside)."""
    project, manifest = patchml
    folder = project.root / "patchml" / "patchml-s7"
    for f in [next(f for f in manifest["files"] if f["k"] == k) for k in (2, 9)]:
        expected = np.zeros((F, F, 3), np.float64)
        for q in f["patches"]:
            x, y, w, h = q["at"]
            with PILImage.open(SAMPLES / q["image"]) as source:
                crop = source.convert("RGB").crop(tuple(q["box"])).resize((w, h), PILImage.Resampling.BICUBIC)
            expected[y:y + h, x:x + w] = np.asarray(crop)
        with PILImage.open(folder / f["file"]) as drawn:
            assert drawn.size == (F, F) and drawn.mode == "RGB"
            got = np.asarray(drawn, dtype=np.float64)
        assert np.abs(got - expected).mean() < 2.0  # JPEG quality 95
        covered = expected.any(axis=2)
        assert got[~covered].mean() < 1.0 and (~covered).sum() > 0


def test_the_same_seed_makes_the_same_set_and_another_seed_another(tmp_path):
    a, first = made(tmp_path / "a", seed=3)
    b, second = made(tmp_path / "b", seed=3)
    c, other = made(tmp_path / "c", seed=4)
    strip = ("boxes",)  # the boxes file's path differs between the three folders
    assert {k: v for k, v in first.items() if k not in strip} == {k: v for k, v in second.items() if k not in strip}
    for f in first["files"][:5]:
        assert ((tmp_path / "a" / "p" / "patchml" / "patchml-s3" / f["file"]).read_bytes()
                == (tmp_path / "b" / "p" / "patchml" / "patchml-s3" / f["file"]).read_bytes())
    assert [f["patches"] for f in other["files"]] != [f["patches"] for f in first["files"]]
    assert other["images_per_k"] == first["images_per_k"]  # counts depend on the pool alone
    for project in (a, b, c):
        project.close()


def test_a_second_set_of_one_seed_is_refused_and_the_first_stays(patchml, tmp_path):
    project, manifest = patchml
    (tmp_path / "boxes.csv").write_text(BOXES)
    with pytest.raises(UserError, match="already has a slice named 'patchml-s7'.*--name"):
        make_patchml(project, tmp_path / "boxes.csv", seed=7)
    with pytest.raises(UserError, match="name"):
        make_patchml(project, tmp_path / "boxes.csv", seed=7, name="../escape")
    with project.read() as session:
        assert len(session.execute(select(ImageSlice.id).where(ImageSlice.name == "patchml-s7")).all()) == 32


def test_show_names_a_patchml_images_labels(patchml, capsys):
    """'reviewer show' on a PatchML image lists its patches' classes (the manifest's wnids)."""
    project, manifest = patchml
    image = manifest["files"][0]
    capsys.readouterr()
    assert main(["show", str(project.root), "--image", image["file"], "--predicted", "1", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert [c["wnid"] for c in record["labels"]["patchml"]] == image["labels"]
    assert record["labels"]["correct"] == [] and record["labels"]["original"] is None
    assert main(["show", str(project.root), "--image", image["file"], "--predicted", "1"]) == 0
    assert "PatchML     " in capsys.readouterr().out
