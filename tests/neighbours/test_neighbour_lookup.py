"""What the window and `reviewer show` read of an index (reviewer.neighbours.lookup): one
image's neighbours named by their training labels, its duplicates marked among them, the
evidence lines; only the training rows named are read; a rebuilt index is read again."""

from __future__ import annotations

import json
import os

from index_data import duplicate, record_files, write_index

from reviewer.neighbours.lookup import NeighbourIndex, read_neighbour_evidence

TRAIN = [("n01440764/a.JPEG", "n01440764"), ("n01443537/b.JPEG", "n01443537"), ("n01443537/c.png", "n01443537"),
         ("n02085620/d.JPEG", "n02085620"), ("x/e.JPEG", "")]


def _index(tmp_path):
    root = tmp_path / "train"
    dups = [duplicate("v1.JPEG", "exact", train_root=root, path="n01443537/c.png", wnid="n01443537", row=2),
            duplicate("v1.JPEG", "perceptual", train_root=root, path="n02085620/d.JPEG", wnid="n02085620", row=3,
                      distance=2),
            duplicate("v1.JPEG", "embedding", train_root=root, path="/p/v2.JPEG", wnid="n01440764",
                      collection="project", similarity=0.95)]
    files = write_index(tmp_path / "project", train_root=root, train=TRAIN, k=3,
                        neighbours={"v1.JPEG": [(2, 0.99), (1, 0.71), (0, 0.52)], "v2.JPEG": [(4, 0.4)]},
                        duplicates=dups)
    return root, files


def test_an_images_neighbours_duplicates_and_lines(tmp_path):
    root, _ = _index(tmp_path)
    index = NeighbourIndex.open(tmp_path / "project")
    facts = index.facts("v1.JPEG", predicted=0)  # 0: tench
    assert facts.index == "hand_built" and facts.k == 3 and facts.computed
    assert [(n.rank, n.file_name, n.name, n.similarity) for n in facts.neighbours] == [
        (1, "c.png", "goldfish", 0.99), (2, "b.JPEG", "goldfish", 0.71), (3, "a.JPEG", "tench", 0.52)]
    assert facts.neighbours[0].path == str(root / "n01443537/c.png")
    # The exact copy is the first neighbour, and marked so; the others are no one's copy.
    assert [n.duplicate for n in facts.neighbours] == ["exact", None, None]
    assert [d.kind for d in facts.duplicates] == ["exact", "perceptual", "embedding"]
    assert [d.collection for d in facts.training_duplicates] == ["train", "train"]
    assert facts.lines == (
        "2 of 3 nearest training images labelled goldfish; 1 labelled tench (the prediction)",
        "exact duplicate of c.png, labelled goldfish in training",
        "near duplicate (perceptual hash) of d.JPEG, labelled Chihuahua in training (2 bits apart)",
        "near duplicate (embedding) of v2.JPEG, labelled tench in this project (similarity 0.950)")
    # A training image without a wnid reads "no label"; an image with nothing stored is not computed.
    assert index.facts("v2.JPEG").lines == ("1 of 1 nearest training images labelled no label",)
    other = index.facts("v9.JPEG")
    assert not other.computed and other.neighbours == () and other.lines == ()


def test_only_the_training_rows_named_are_held_and_a_rebuild_is_seen(tmp_path):
    _, files = _index(tmp_path)
    index = NeighbourIndex.open(tmp_path / "project")
    assert set(index._train) == {0, 1, 2, 4}  # row 3 is no one's neighbour (only a duplicate, named in full)
    assert not index.stale()
    stored = json.loads(files.neighbours_path.read_text())
    stored["images"]["v3.JPEG"] = [[3, 0.8]]
    files.neighbours_path.write_text(json.dumps(stored))
    os.utime(files.neighbours_path, ns=(1, 1))  # another mtime, whatever the clock's resolution
    record_files(files)  # as a build's end does
    assert index.stale()
    assert NeighbourIndex.open(tmp_path / "project").facts("v3.JPEG").neighbours[0].name == "Chihuahua"


def test_show_reads_the_same_as_dicts_and_nothing_without_an_index(tmp_path):
    _index(tmp_path)
    found = read_neighbour_evidence(tmp_path / "project", "v1.JPEG")
    assert found["neighbours"][0] == {"rank": 1, "path": str(tmp_path / "train" / "n01443537/c.png"),
                                      "file_name": "c.png", "wnid": "n01443537", "name": "goldfish",
                                      "similarity": 0.99}
    assert found["duplicates"][1]["distance"] == 2 and "similarity" not in found["duplicates"][1]
    assert found["lines"][0] == "2 of 3 nearest training images labelled goldfish"
    assert read_neighbour_evidence(tmp_path / "none", "v1.JPEG") == {"index": None, "neighbours": [],
                                                                      "duplicates": [], "lines": []}


def test_a_mistakes_detail_carries_its_neighbours(review_project, shared_data):
    from reviewer.app.mistake_detail import DetailSource

    source = DetailSource(review_project)
    image_id = review_project.ids["n01440764_tench.JPEG"]
    assert source.detail(run_id=review_project.run_id, image_id=image_id).neighbours is None  # no index yet
    samples = shared_data / "imagenet-samples"
    write_index(review_project.root, train_root=samples, k=2,
                train=[("n01443537_goldfish.JPEG", "n01443537"), ("n02085620_Chihuahua.JPEG", "n02085620")],
                neighbours={"n01440764_tench.JPEG": [(0, 0.8), (1, 0.3)]})
    detail = source.detail(run_id=review_project.run_id, image_id=image_id)  # the new index is picked up
    assert [n.name for n in detail.neighbours.neighbours] == ["goldfish", "Chihuahua"]
    assert detail.neighbours.lines[0] == "1 of 2 nearest training images labelled goldfish"
