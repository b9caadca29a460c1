"""What import-logits stores, row by row, on SQLite and PostgreSQL: each image's top-5 and
probabilities are the float64 softmax of its logits rounded to float32 (ranked by the rule of
models.ranking), its row of the float16 file is numpy's rounding of those, and a file in its
own order (shuffled, read in blocks) lands on the right images."""

from __future__ import annotations

import numpy as np
import pytest
from review_data import add_images, val_name
from sqlalchemy import select

from db.tables import Prediction
from models.logits import CHUNK
from models.store import open_probabilities
from reviewer.project import Project
from reviewer.runs.logits import import_logits
from reviewer.runs.records import load_image_ids


def expected_probabilities(logits: np.ndarray) -> np.ndarray:
    exp = np.exp(logits.astype(np.float64) - logits.max(axis=1, keepdims=True))
    return (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("database", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_each_image_gets_its_own_row_of_the_file(tmp_path, request, database):
    url = request.getfixturevalue("postgres_url") if database == "postgresql" else None
    images = CHUNK + 300  # more than one block
    project = Project.create(tmp_path / "p", db_url=url)
    try:
        image_ids = add_images(project, [i % 1000 for i in range(images)], start=1)
        rng = np.random.default_rng(4)
        logits = (rng.normal(size=(images, 1000)) * 3).astype(np.float32)
        order = rng.permutation(images)  # the file's rows in another order than the project's
        np.savez(tmp_path / "scores.npz", logits=logits[order],
                 file_names=np.array([val_name(i + 1) for i in order]))
        result = import_logits(project, tmp_path / "scores.npz", model="shuffled")
        assert result.status == "complete" and result.predicted == images
        with project.read() as session:
            stored = {p.image_id: p for p in session.execute(
                select(Prediction).where(Prediction.run_id == result.run_id)).scalars()}
            row_of = {image: row for row, image in enumerate(load_image_ids(project, result.run_id))}
        probs = expected_probabilities(logits)
        file = open_probabilities(project.root / "runs" / f"run_{result.run_id}.probs.f16.npy")
        assert [stored[i].row for i in image_ids] == [row_of[i] for i in image_ids]
        for position in [0, 1, CHUNK - 1, CHUNK, images - 1, *rng.integers(0, images, 40).tolist()]:
            p, row = stored[image_ids[position]], probs[position]
            top = sorted(range(1000), key=lambda c: (-float(row[c]), c))[:5]
            assert [p.pred_1, p.pred_2, p.pred_3, p.pred_4, p.pred_5] == top
            assert [p.prob_1, p.prob_2, p.prob_3, p.prob_4, p.prob_5] == [float(row[c]) for c in top]
            assert np.array_equal(file[p.row].view(np.uint16), row.astype(np.float16).view(np.uint16))
    finally:
        project.close()
