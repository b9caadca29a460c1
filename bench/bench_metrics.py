"""Benchmark: `init` and metrics on a synthetic 50,000-image multi-label set with 4 runs.

Targets (issue 2): init under 10 s; each metric under 0.5 s.
Run: python bench/bench_metrics.py [--images 50000] [--runs 4]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from sqlalchemy import insert

from db.engine import write_session
from db.tables import Model, Prediction, Run
from reviewer.app.imports import init_project
from reviewer.classes.vocabulary import load_classes
from reviewer.evaluation.metrics import multilabel_accuracy, real_accuracy, top1_accuracy
from reviewer.evaluation.topk import multilabel_variable_topk
from reviewer.labels.labelset import load_labelset
from reviewer.runs.mistakes import store_mistakes
from reviewer.runs.predictions import load_predictions


def synthetic_files(folder: Path, n: int, rng: np.random.Generator) -> tuple[Path, Path, np.ndarray]:
    wnids = load_classes().wnids
    original = rng.integers(0, 1000, n)
    names = [f"ILSVRC2012_val_{i + 1:08d}.JPEG" for i in range(n)]
    annotated = folder / "annotated.json"
    annotated.write_text(json.dumps({"image_filenames": [[nm, wnids[c]] for nm, c in zip(names, original)]}))
    annots = {}
    for nm, c in zip(names, original):
        extra = rng.choice(1000, 6, replace=False)
        n_correct, n_wrong, n_unclear = rng.integers(0, 3), rng.integers(0, 4), rng.integers(0, 2)
        correct = [c] + [x for x in extra[:n_correct] if x != c]
        wrong = [x for x in extra[2:2 + n_wrong] if x not in correct]
        unclear = [x for x in extra[5:5 + n_unclear] if x not in correct and x not in wrong]
        annots[nm] = {"correct": [wnids[x] for x in correct], "wrong": [wnids[x] for x in wrong]}
        if unclear:
            annots[nm]["unclear"] = [wnids[x] for x in unclear]
    problematic = {names[i]: {"reason": "synthetic"} for i in rng.choice(n, n // 100, replace=False)}
    tfds = folder / "tfds.json"
    tfds.write_text(json.dumps({"initial_annots": annots, "problematic_images": problematic, "imagenet_m": names[:68]}))
    return annotated, tfds, original


def add_run(project, name: str, original: np.ndarray, accuracy: float, rng: np.random.Generator) -> int:
    n = len(original)
    top = rng.integers(0, 1000, (n, 5))
    hit = rng.random(n) < accuracy
    top[hit, 0] = original[hit]
    probs = np.sort(rng.dirichlet(np.ones(8), n)[:, :5], axis=1)[:, ::-1]
    with write_session(project.engine) as session:
        model = Model(name=name, source="logits")
        session.add(model)
        session.flush()
        run = Run(model_id=model.id, status="complete", num_images=n)
        session.add(run)
        session.flush()
        run_id = run.id
        rows = [{"run_id": run_id, "image_id": i + 1, "row": i,
                 **{f"pred_{j + 1}": int(top[i, j]) for j in range(5)},
                 **{f"prob_{j + 1}": float(probs[i, j]) for j in range(5)}} for i in range(n)]
        session.execute(insert(Prediction), rows)
    return run_id


def timed(label: str, fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    seconds = time.perf_counter() - start
    print(f"  {label:<40} {seconds * 1000:9.1f} ms")
    return result, seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        annotated, tfds, original = synthetic_files(tmp, args.images, rng)
        print(f"synthetic set: {args.images} images, {args.runs} runs")
        (project, _), init_s = timed("init (20k-list + TFDS labels)", lambda: init_project(
            tmp / "project", labels=[annotated, tfds]))
        run_ids = [add_run(project, f"model{i}", original, 0.7 + 0.05 * i, rng) for i in range(args.runs)]
        with project.read() as session:
            labels, load_s = timed("load labels from the database", load_labelset, session=session)
        worst = 0.0
        for run_id in run_ids:
            print(f"run {run_id}:")
            with project.read() as session:
                preds, _ = timed("load predictions", load_predictions, session=session, run_id=run_id)
            pos = labels.positions(preds.image_ids)
            for name, fn, extra in [("top-1", top1_accuracy, preds.top1), ("MLA (all/organisms/objects)",
                                    multilabel_accuracy, preds.top1), ("ReaL", real_accuracy, preds.top1),
                                    ("variable top-k, multi-label set (top-5)", multilabel_variable_topk,
                                     preds.topk)]:
                _, s = timed(name, fn, labels, pos, extra)
                worst = max(worst, s)
            timed("find + store mistakes", project.write, lambda session, r=run_id: store_mistakes(session=session, run_id=r))
        print(f"\ninit: {init_s:.2f} s (target < 10 s, ratio {init_s / 10:.2f})")
        print(f"slowest metric: {worst * 1000:.1f} ms (target < 500 ms, ratio {worst / 0.5:.2f}); "
              f"label load {load_s * 1000:.0f} ms")


if __name__ == "__main__":
    main()
