"""The official TFDS imagenet2012_multilabel v3 labels, imported as users have them:
the CSV dump and the same content in the v3 JSON layout, overlapping kinds and all."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import func, select

from db.engine import read_session
from db.tables import Image, Label
from reviewer.app.imports import import_labels, init_project

KINDS = {"correct": "proposed_labels", "unclear": "unclear_multi_labels", "wrong": "wrong_multi_labels"}


def csv_path(shared_data: Path) -> Path:
    return shared_data / "published" / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv"


def read_rows(shared_data: Path) -> list[dict]:
    with open(csv_path(shared_data), newline="") as fh:
        return list(csv.DictReader(fh))


def classes(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


@pytest.fixture(scope="module")
def wnids():
    from reviewer.classes.vocabulary import load_classes

    return load_classes().wnids


def test_the_csv_dump_imports_as_it_is(tmp_path, shared_data):
    rows = read_rows(shared_data)
    project, (summary,) = init_project(tmp_path / "p", labels=[csv_path(shared_data)])
    assert summary.multilabel_images == 20_000 and summary.problematic == 1_308
    listed = sum(len(set(classes(r[col]))) for r in rows for col in KINDS.values())
    assert summary.labels == listed  # one image lists class 622 twice as correct: kept once
    assert "1 image lists a class twice under one kind (kept once)" in summary.notes
    overlaps = [r for r in rows if sum(Counter(c for col in KINDS.values() for c in classes(r[col])).values())
                != len({c for col in KINDS.values() for c in classes(r[col])})]
    assert len(overlaps) == 372
    assert any("372 images list a class under two kinds (358 correct and wrong, 15 correct and unclear, 2 wrong and unclear)" in n for n in summary.notes)
    with read_session(project.engine) as session:
        assert session.execute(select(func.count()).select_from(Image).where(Image.multilabel)).scalar_one() == 20_000
        per_kind = dict(session.execute(select(Label.kind, func.count()).group_by(Label.kind)).all())
        row = rows[1]  # ILSVRC2012_val_00023277.JPEG: correct 415, 813, 868; wrong 467, 582, 865, 886, 963
        image = session.execute(select(Image).where(Image.file_name == row["id"])).scalar_one()
        stored = session.execute(select(Label.kind, Label.class_index).where(Label.image_id == image.id)).all()
    for kind, column in KINDS.items():
        assert per_kind[kind] == sum(len(set(classes(r[column]))) for r in rows)
    assert image.original_label == int(row["original_label"]) and image.problematic == (row["is_problematic"] == "True")
    assert sorted(c for k, c in stored if k == "correct") == sorted(classes(row["proposed_labels"]))
    assert sorted(c for k, c in stored if k == "wrong") == sorted(classes(row["wrong_multi_labels"]))


def v3_json(rows: list[dict], wnids: list[str]) -> dict:
    """The same content in the layout of human_accuracy_v3.0.0.json (kinds as wnids)."""
    annots = {}
    for r in rows:
        entry = {kind: [wnids[c] for c in classes(r[col])] for kind, col in KINDS.items() if classes(r[col])}
        annots[r["id"]] = entry
    problematic = {r["id"]: {"reason": "marked as problematic in the review server", "reviewer": "x",
                             "server_username": "x", "time_marked": "", "time_reviewed": ""}
                   for r in rows if r["is_problematic"] == "True"}
    return {"initial_annots": annots, "problematic_images": problematic, "imagenet_m": []}


def test_the_v3_json_with_overlapping_kinds_and_imagenetv2_entries(tmp_path, shared_data, wnids):
    rows = read_rows(shared_data)
    data = v3_json(rows, wnids)
    data["initial_annots"]["imagenetv2_matched_frequency_0_7d2a.jpeg"] = {"correct": [wnids[0]]}  # a V2 entry
    path = tmp_path / "human_accuracy_v3.0.0.json"
    path.write_text(json.dumps(data))
    project, (summary,) = init_project(tmp_path / "p", labels=[path])
    assert summary.multilabel_images == 20_001
    assert any("372 images list a class under two kinds" in n for n in summary.notes)
    assert any("1 images are not ImageNet validation images" in n for n in summary.notes)
    with read_session(project.engine) as session:
        v2 = session.execute(select(Image).where(Image.file_name.like("imagenetv2%"))).scalar_one()
        assert v2.multilabel and v2.val_index is None
        assert session.execute(select(func.count()).select_from(Label)).scalar_one() == summary.labels + 0


def test_importing_the_file_again_changes_nothing(tmp_path, shared_data):
    project, _ = init_project(tmp_path / "p", labels=[csv_path(shared_data)])

    def snapshot():
        with read_session(project.engine) as session:
            return (sorted(session.execute(select(Label.image_id, Label.class_index, Label.kind)).all()),
                    session.execute(select(func.count()).select_from(Image).where(Image.problematic)).scalar_one())

    before = snapshot()
    import_labels(project, [csv_path(shared_data)])
    assert snapshot() == before
