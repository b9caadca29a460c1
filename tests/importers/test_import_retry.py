"""Importing the same label file again, the natural retry after a crash or an
interrupted command, changes nothing (issue 29, finding 6): it doubled the
problematic marks (1,308 -> 2,616 on the official file) and added a label source
each time."""

from __future__ import annotations

import json

from sqlalchemy import func, select

from db.tables import Image, ImageSlice, Label, LabelSource, ProblematicMark
from reviewer.classes.vocabulary import load_classes
from reviewer.cli import main
from reviewer.project import Project

WNIDS = load_classes().wnids


def _v3_file(path, *, reason: str = "two objects"):
    names = [f"ILSVRC2012_val_{i:08d}.JPEG" for i in range(1, 6)]
    data = {"initial_annots": {name: {"correct": [WNIDS[i]], "wrong": [WNIDS[i + 100]]} for i, name in enumerate(names)},
            "problematic_images": {names[0]: {"reason": reason, "reviewer": "ann"},
                                   names[3]: {"reason": "a drawing", "reviewer": "bob"}},
            "imagenet_m": names[:2]}
    path.write_text(json.dumps(data))
    return path


def _counts(root) -> dict:
    project = Project.open(root)
    try:
        with project.read() as session:
            return {table.__name__: session.execute(select(func.count()).select_from(table)).scalar_one()
                    for table in (Image, Label, LabelSource, ProblematicMark, ImageSlice)} | {
                "problematic": session.execute(select(func.count()).where(Image.problematic)).scalar_one()}
    finally:
        project.close()


def test_importing_the_same_labels_again_adds_nothing(tmp_path, capsys):
    root, labels = tmp_path / "p", _v3_file(tmp_path / "labels.json")
    assert main(["init", str(root)]) == 0
    assert main(["import-labels", str(root), str(labels)]) == 0
    first = _counts(root)
    assert first == {"Image": 5, "Label": 10, "LabelSource": 1, "ProblematicMark": 2, "ImageSlice": 2, "problematic": 2}
    for _ in range(2):  # the retry, and once more
        assert main(["import-labels", str(root), str(labels)]) == 0
        assert _counts(root) == first
    capsys.readouterr()


def test_a_new_version_of_the_file_replaces_the_marks_of_its_images(tmp_path):
    root = tmp_path / "p"
    assert main(["init", str(root)]) == 0
    assert main(["import-labels", str(root), str(_v3_file(tmp_path / "v1.json"))]) == 0
    assert main(["import-labels", str(root), str(_v3_file(tmp_path / "v2.json", reason="corrected reason"))]) == 0
    counts = _counts(root)
    assert counts["ProblematicMark"] == 2 and counts["LabelSource"] == 2  # two different files: two sources
    project = Project.open(root)
    try:
        with project.read() as session:
            reasons = sorted(meta["reason"] for meta in session.execute(select(ProblematicMark.meta)).scalars())
        assert reasons == ["a drawing", "corrected reason"]
    finally:
        project.close()
