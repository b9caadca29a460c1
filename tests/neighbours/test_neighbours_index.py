"""`reviewer index` on real images with known answers (issue 26): the demo's images as
a project, a training folder with planted exact copies (under other classes, one as a
lossless PNG), a crop, a resize and a re-encode, unrelated images and a broken file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from neighbours_data import build_planted

from reviewer.cli import main
from reviewer.neighbours.build import build_index
from reviewer.neighbours.store import IndexFiles
from reviewer.project import Project

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """The planted case indexed with the bundled Lite0 through the command line."""
    case = build_planted(tmp_path_factory.mktemp("planted"))
    assert main(["index", str(case.project_root), "--images", str(case.train)]) == 0
    return case


def _index(case) -> IndexFiles:
    return IndexFiles.of(case.project_root, "tf_efficientnet_lite0")


def _duplicates(case) -> list[dict]:
    return json.loads(_index(case).duplicates_path.read_text())


def test_every_exact_duplicate_is_found_and_nothing_else_is_exact(planted):
    exact = {(d["image"], d["other"]["collection"], Path(d["other"]["path"]).name)
             for d in _duplicates(planted) if d["kind"] == "exact"}
    twin = planted.val[6].name
    expected = {(name, "train", Path(path).name) for name, path in planted.exact.items()}
    expected |= {(planted.val[5].name, "project", twin), (twin, "project", planted.val[5].name)}
    assert exact == expected  # the PNG copy too (other bytes, same pixels); not the re-encode nor the resize


def test_resize_and_reencode_are_near_duplicates_by_perceptual_hash_and_the_crop_by_embedding(planted):
    near = {(d["image"], d["kind"], d["other"]["path"].split("/train/")[-1]) for d in _duplicates(planted)
            if d["kind"] != "exact"}
    assert (planted.resize[0], "perceptual", planted.resize[1]) in near
    assert (planted.reencode[0], "perceptual", planted.reencode[1]) in near
    assert (planted.crop[0], "embedding", planted.crop[1]) in near
    # Unrelated training images are no one's duplicate.
    others = {d["other"]["path"].split("/train/")[-1] for d in _duplicates(planted)}
    assert not others & set(planted.unrelated)


def test_the_nearest_training_image_of_each_planted_image_is_its_copy(planted):
    index = _index(planted)
    train = index.read_files("train")
    stored = json.loads(index.neighbours_path.read_text())
    assert stored["k"] == 10
    for name, path in [*planted.exact.items(), planted.crop, planted.resize, planted.reencode]:
        near = stored["images"][name]
        assert len(near) == 10
        assert train[near[0][0]][0] == path, name
        assert near[0][1] > 0.9 and near[1][1] < 0.6  # the copy far ahead of anything unrelated
    # The broken training file is skipped with its reason, and never a neighbour.
    broken = [i for i, (p, _) in enumerate(train) if p.endswith("broken.JPEG")]
    assert broken and all(r != broken[0] for near in stored["images"].values() for r, _ in near)
    manifest = index.read_manifest()
    assert manifest["complete"] and manifest["dim"] == 1280
    assert [s["path"] for s in manifest["skipped"]["train"]] == [train[broken[0]][0]]
    assert "corrupt" in manifest["skipped"]["train"][0]["reason"]


def test_show_json_carries_neighbours_duplicates_and_the_evidence_lines(planted, capsys):
    name = planted.val[0].name
    capsys.readouterr()
    assert main(["show", str(planted.project_root), "--image", name, "--predicted", "0", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    first = record["neighbours"][0]
    assert first["file_name"] == Path(planted.exact[name]).name
    assert first["wnid"] == planted.val[1].name.split("_")[0] and first["name"] == "American coot"
    assert len(record["neighbours"]) == 10 and first["similarity"] > 0.99
    assert {d["kind"] for d in record["duplicates"]} == {"exact"}
    assert any(line == "exact duplicate of n_exact_copy_0.JPEG, labelled American coot in training"
               for line in record["neighbour_evidence"])
    assert main(["show", str(planted.project_root), "--image", name, "--predicted", "0"]) == 0
    text = capsys.readouterr().out
    assert "nearest training images labelled" in text and "exact duplicate of n_exact_copy_0.JPEG" in text


def test_a_killed_index_resumes_to_the_same_result(tmp_path, tiny_checkpoint):
    from run_data import TINY_MODEL

    case = build_planted(tmp_path / "a")
    project = Project.open(case.project_root)
    whole = build_index(project, images=case.train, model=TINY_MODEL, checkpoint=tiny_checkpoint, chunk=8)
    other = build_planted(tmp_path / "b")
    project_b = Project.open(other.project_root)
    stopped = build_index(project_b, images=other.train, model=TINY_MODEL, checkpoint=tiny_checkpoint,
                          chunk=8, stop_after_chunks=2)
    files_b = IndexFiles(stopped.folder)
    assert len(files_b.read_rows("train")) == 16 and not files_b.read_manifest()["complete"]
    with open(files_b.rows_path("train"), "ab") as f:  # a kill in the middle of a progress line
        f.write(b'{"sha": "12')
    lines = []
    build_index(project_b, images=other.train, model=TINY_MODEL, checkpoint=tiny_checkpoint, chunk=8,
                progress=lines.append)
    assert "train: resuming after 16 of 31 images" in lines
    files_a = IndexFiles(whole.folder)
    for collection in ("train", "project"):
        assert np.array_equal(files_a.open_embeddings(collection), files_b.open_embeddings(collection))
        assert files_a.read_rows(collection) == files_b.read_rows(collection)
    a = json.loads(files_a.neighbours_path.read_text())
    b = json.loads(files_b.neighbours_path.read_text())
    assert a == b and len(a["images"]) == 7
