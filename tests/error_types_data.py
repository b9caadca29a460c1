"""A project for the categoriser in bulk, the report's error types per run and the suggestions in
the export (issue 37), from the real files of tests/data:

- the TFDS v3 multi-labels of images 1-2,000 (their original labels with them) and ReaL;
- the published ViT-3B review of those images;
- every evidence source the categoriser reads (ReaL and its raters, cleanlab, Flaws of ImageNet's
  relabelings and class groups, ImageNet-X);
- two runs imported as logits: run 1 predicts ViT-3B's published prediction on every image the
  review holds, a class next to the first correct label on every fifth other image, the first
  correct label elsewhere; run 2 the first correct label but a class two away on every third image;
- the panel's final decisions on five of run 1's mistakes (`DECISIONS`): one the published review
  judged too (the panel's answer counts), one wrong with a category and severity, one wrong with
  neither, one correct (no longer a mistake), one wrong on an image flagged problematic.

Importable from any test as `from error_types_data import ...` (pytest puts the folder of
tests/conftest.py on sys.path).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

IMAGES = 2000
# (what the decision is about, verdict, severity, category, problematic)
DECISIONS = (("published", "wrong", "major", "non_prototypical", False),
             ("other", "wrong", "minor", "spurious_correlation", False),
             ("other", "wrong", None, None, False),
             ("other", "correct", None, None, False),
             ("other", "wrong", "major", "fine_grained", True))


def _number(file_name: str) -> int:
    return int(file_name.split("_")[2].split(".")[0])


def build(folder: Path, shared_data: Path) -> dict:
    """Make the project in `folder` / "p"; returns {"root", "review", "decided": {(image id,
    predicted): (verdict, severity, category, problematic)}, "rows": the CSV's rows}."""
    from reviewer.app.evidence import import_evidence
    from reviewer.app.imports import import_review, init_project
    from reviewer.cli import main
    from reviewer.runs.mistakes import stored_mistakes

    published = shared_data / "published"
    with open(published / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    header, kept = rows[0], sorted((r for r in rows[1:] if _number(r[0]) <= IMAGES), key=lambda r: r[0])
    with open(folder / "multilabel.csv", "w", newline="") as fh:
        csv.writer(fh).writerows([header, *kept])
    review = {name: item for name, item in json.loads(
        (shared_data / "imagenet-mistakes" / "vit3b_mistakes.json").read_text()).items() if _number(name) <= IMAGES}
    (folder / "vit3b.json").write_text(json.dumps(review))
    project, _ = init_project(folder / "p", labels=[folder / "multilabel.csv", published / "real" / "real.json"])
    import_review(project, folder / "vit3b.json", model="vit3b")
    import_evidence(project, [published / "real" / "raters.npz", published / "real" / "real.json",
                              published / "label-errors" / "imagenet_mturk.json",
                              published / "flaws-of-imagenet" / "finegrained.csv",
                              published / "flaws-of-imagenet" / "problem_groups_clusters.json",
                              shared_data / "imagenet-x" / "imagenet_x_val_multi_factor.jsonl"])
    project.close()
    names = [r[0] for r in kept]
    first = [int(r[3].split(",")[0]) if r[3].strip() else int(r[2]) for r in kept]
    top = {1: [review[n]["top_prediction"] if n in review else (c + 1) % 1000 if i % 5 == 0 else c
               for i, (n, c) in enumerate(zip(names, first))],
           2: [(c + 2) % 1000 if i % 3 == 0 else c for i, c in enumerate(first)]}
    rng = np.random.default_rng(37)
    for run, classes in top.items():
        logits = rng.normal(0.0, 1.0, (len(names), 1000)).astype(np.float32)
        logits[np.arange(len(names)), classes] += 12.0
        np.savez(folder / f"run{run}.npz", logits=logits, file_names=np.array(names))
        assert main(["import-logits", str(folder / "p"), str(folder / f"run{run}.npz"), "--model",
                     f"model_{run}"]) == 0
    from reviewer.project import Project

    project = Project.open(folder / "p")
    with project.read() as session:
        mistakes = stored_mistakes(session=session, run_id=1)
    in_review = [m for m in mistakes if m.file_name in review]
    others = [m for m in mistakes if m.file_name not in review]
    chosen = [in_review[0], *others[:4]]
    decided = {}
    from review_data import decide

    for m, (_, verdict, severity, category, problematic) in zip(chosen, DECISIONS):
        decide(project, m.image_id, m.predicted, verdict, severity=severity, category=category,
               problematic=problematic)
        decided[(m.image_id, m.predicted)] = (verdict, severity, category, problematic)
    project.close()
    return {"root": folder / "p", "review": review, "decided": decided, "rows": kept}
