"""The ranking behind variable top-k (reviewer.runs.predictions.ranked_classes): ranks 1-5
are the run's stored float32 top-5, only ranks 6+ come from its float16 probability file
(the other classes, by descending probability, equal ones by ascending class index), so
variable top-k at k = 1 scores the run's own top-1."""

from __future__ import annotations

import numpy as np
from project_data import new_project
from review_data import add_images
from sqlalchemy import insert

from db.engine import write_session
from db.tables import Model, Prediction, Run
from reviewer.evaluation.summary import TOPK_FOR_VARIABLE, run_metrics
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.project import Project
from reviewer.runs.predictions import load_predictions, ranked_classes

N_IMAGES = 36


def by_rule(values: np.ndarray, classes) -> list[int]:
    """The classes by descending value, equal values by ascending class index (the definition)."""
    return sorted(classes, key=lambda c: (-float(values[c]), c))


def float32_rows(seed: int = 9) -> np.ndarray:
    """float32 softmax rows whose float16 rounding ties classes the float32 ranking tells apart:
    kind 0 at the top (the higher class index ahead in float32), kind 1 between rank 5 and a
    lower class outside the top-5; ranks 6+ hold exact ties of their own."""
    rng = np.random.default_rng(seed)
    rows = np.zeros((N_IMAGES, 1000), dtype=np.float32)
    for r in range(N_IMAGES):
        classes = np.sort(rng.choice(1000, size=12, replace=False))
        row = np.full(1000, 1e-4, dtype=np.float64)
        if r % 2 == 0:
            top = [classes[7], classes[2]]  # float32: the higher index is the run's top-1 ...
            row[top] = [0.400010, 0.400000]  # ... float16 rounds both to one value
            row[classes[[9, 4, 10]]] = [0.05, 0.04, 0.03]
        else:
            row[classes[[11, 8, 6, 5]]] = [0.5, 0.2, 0.1, 0.05]
            row[classes[3]] = 0.0200010  # rank 5 in float32 ...
            row[classes[1]] = 0.0200000  # ... tied with this lower class in float16
        row[classes[0]] = row[classes[10 if r % 2 == 0 else 3]] / 4  # ranks 6+: a planted exact tie
        row[rng.choice(1000, size=3, replace=False)] = 5e-3
        row /= row.sum()
        rows[r] = row
    return rows


def build(root) -> tuple[Project, int, np.ndarray, np.ndarray, list[set[int]]]:
    """A project whose run stores the float32 top-5 of float32_rows() and its float16 file."""
    project = new_project(root)
    p32 = float32_rows()
    p16 = p32.astype(np.float16)
    stored = np.array([by_rule(row, range(1000))[:5] for row in p32])
    labels: list[set[int]] = []
    for r in range(N_IMAGES):
        if r % 6 == 5:  # a mistake: the label is a class of the tie, not the run's top-1
            labels.append({int(stored[r, 1])} if r % 2 == 0 else {int(stored[r, 4])})
        elif r % 6 == 3:  # two valid labels
            labels.append({int(stored[r, 0]), int(stored[r, 1])})
        else:
            labels.append({int(stored[r, 0])})
    image_ids = add_images(project, [min(s) for s in labels],
                           labels={r: {"correct": sorted(s)} for r, s in enumerate(labels)}, start=1)
    relpath = "runs/planted.probs.f16.npy"
    (project.root / "runs").mkdir(exist_ok=True)
    np.save(project.root / relpath, p16)
    with write_session(project.engine) as session:
        model = Model(name="planted", source="logits")
        session.add(model)
        session.flush()
        run = Run(model_id=model.id, status="complete", num_images=N_IMAGES, device="cpu", probs_path=relpath)
        session.add(run)
        session.flush()
        session.execute(insert(Prediction), [
            {"run_id": run.id, "image_id": image_ids[r], "row": r,
             **{f"pred_{j + 1}": int(stored[r, j]) for j in range(5)},
             **{f"prob_{j + 1}": float(p32[r, stored[r, j]]) for j in range(5)}}
            for r in range(N_IMAGES)])
        run_id = run.id
    return project, run_id, stored, p16, labels


def test_the_planted_file_ranks_differently_from_the_stored_top5(tmp_path):
    """The premise: re-ranked from the float16 file alone, the top-5 would differ."""
    _, _, stored, p16, _ = build(tmp_path / "p")
    differs = [r for r in range(N_IMAGES) if by_rule(p16[r], range(1000))[:5] != stored[r].tolist()]
    assert len(differs) == N_IMAGES
    assert all(by_rule(p16[r], range(1000))[0] != stored[r, 0] for r in range(0, N_IMAGES, 2))


def test_ranks_1_to_5_are_the_stored_top5_and_the_rest_come_from_the_file(tmp_path):
    project, run_id, stored, p16, _ = build(tmp_path / "p")
    with project.read() as session:
        run = session.get(Run, run_id)
        preds = load_predictions(session=session, run_id=run_id)
    assert preds.rows.tolist() == list(range(N_IMAGES))
    ranked = ranked_classes(project, run, preds, TOPK_FOR_VARIABLE)
    assert ranked.shape == (N_IMAGES, TOPK_FOR_VARIABLE)
    assert np.array_equal(ranked[:, :5], stored)
    for r in range(N_IMAGES):
        rest = [c for c in range(1000) if c not in set(stored[r].tolist())]
        assert ranked[r, 5:].tolist() == by_rule(p16[r], rest)[:TOPK_FOR_VARIABLE - 5], r
    assert np.array_equal(ranked_classes(project, run, preds, 3), stored[:, :3])


def test_variable_topk_at_k_1_scores_the_runs_own_top1(tmp_path):
    project, run_id, stored, _, labels = build(tmp_path / "p")
    with project.read() as session:
        run = session.get(Run, run_id)
        before = reviewed_labelset(session=session, after_review=False)
        after = reviewed_labelset(session=session, after_review=True)
        metrics = run_metrics(project, run, before, after, session=session)
    v = metrics.variable_topk_multilabel
    single = [r for r in range(N_IMAGES) if len(labels[r]) == 1]
    top1_in_labels = [int(stored[r, 0]) in labels[r] for r in range(N_IMAGES)]
    assert v.images == N_IMAGES
    assert v.by_label_count[1]["images"] == len(single)
    assert v.by_label_count[1]["mean_hit_rate"] == np.mean([top1_in_labels[r] for r in single])
    assert v.real_accuracy_1_to_5 == np.mean(top1_in_labels)
