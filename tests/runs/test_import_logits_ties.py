"""import-logits of float16 probabilities named by file (what export-probabilities writes:
an .npz; an .npy without names must hold all 50,000 validation rows) with exact ties: each stored top-5 ranks equal probabilities by ascending class index, the rule of
np.argmax in the paper's reference notebook."""

from __future__ import annotations

import numpy as np
from project_data import new_project
from review_data import add_images, val_name
from sqlalchemy import select

from db.engine import read_session
from db.tables import Prediction
from reviewer.runs.logits import import_logits


def tied_float16_rows(rows: int, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    probs = np.full((rows, 1000), 0.0, dtype=np.float64)
    for r in range(rows):
        classes = rng.permutation(1000)
        kind = r % 3
        if kind == 0:  # two classes tie for the top
            probs[r, classes[:2]] = 0.3
        elif kind == 1:  # three classes tie at ranks 2-4
            probs[r, classes[0]] = 0.4
            probs[r, classes[1:4]] = 0.1
        else:  # four classes tie across ranks 4-7
            probs[r, classes[:3]] = [0.4, 0.2, 0.1]
            probs[r, classes[3:7]] = 0.03
        rest = classes[probs[r, classes] == 0]
        probs[r, rest] = (1.0 - probs[r].sum()) / len(rest)
    return probs.astype(np.float16)


def test_imported_float16_ties_go_to_the_lower_class_index(tmp_path):
    n = 30
    project = new_project(tmp_path / "p")
    image_ids = add_images(project, [i % 1000 for i in range(n)], start=1)  # named val_name(1..n)
    scores = tied_float16_rows(n)
    names = np.array([val_name(i + 1) for i in range(n)])
    np.savez(tmp_path / "exported.npz", probabilities=scores, file_names=names)
    result = import_logits(project, tmp_path / "exported.npz", model="float16 export")
    assert result.status == "complete" and result.predicted == n
    with read_session(project.engine) as session:
        stored = {p.image_id: p for p in session.execute(
            select(Prediction).where(Prediction.run_id == result.run_id)).scalars()}
    for i, image_id in enumerate(image_ids):
        row = scores[i].astype(np.float64)
        expected = sorted(range(1000), key=lambda c: (-row[c], c))[:5]
        p = stored[image_id]
        assert [p.pred_1, p.pred_2, p.pred_3, p.pred_4, p.pred_5] == expected, i
        assert p.pred_1 == int(np.argmax(scores[i]))
