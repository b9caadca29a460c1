"""Benchmark: `reviewer report` (and `--json`) on a project of real labels and synthetic runs.

Builds (once, into --dir) a project of the first --images validation images from the real
label files (the 50,000 original labels of cleanlab's copy, the TFDS v3 multi-label CSV
restricted to those images, ReaL at 50,000 images), --runs synthetic runs imported as
logits (mostly the label, the errors on two confusable classes per label, as real
models' are), and a panel of three voting on 300 of the first run's mistakes, locked by
the chair. Then times `reviewer report --json`: a first call (PROJECT/cache removed:
nothing kept) and repeated calls, wall and CPU time (the CPU time is what an idle
machine would take, near enough, where other work shares the cores), then once more
after a panelist's vote (the runs' figures stay kept; the panel's are computed again).

Targets (issue 34, idle 2-core machine, 50,000 images): a repeated call <= 5 s at 10
and 20 runs, a first call <= 3 s per run.

Run: python bench/bench_report.py --images 50000 --runs 10 [--dir /tmp/bench_report]
Reads ../shared/data (or REVIEWER_SHARED_DATA).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("REVIEWER_SHARED_DATA", ROOT.parent / "shared" / "data"))
PANEL = ("ann", "bob", "cat")


def reviewer(*args: str, stdin: str | None = None) -> str:
    out = subprocess.run([sys.executable, "-m", "reviewer", *args], input=stdin, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"reviewer {' '.join(args)} failed:\n{out.stderr}")
    return out.stdout


def val_name(index: int) -> str:
    return f"ILSVRC2012_val_{index + 1:08d}.JPEG"


def label_files(folder: Path, images: int) -> tuple[list[Path], np.ndarray]:
    """The original labels of the first `images` validation images, and the TFDS CSV's rows of them."""
    paths = json.loads((SHARED / "published/label-errors/imagenet_val_set_index_to_filepath.json").read_text())
    labels = np.load(SHARED / "published/label-errors/imagenet_val_set_original_labels.npy").astype(np.int64)
    original = np.full(50_000, -1, dtype=np.int64)
    for path, label in zip(paths, labels):
        original[int(path.rsplit("_", 1)[1].split(".")[0]) - 1] = label
    original = original[:images]
    (folder / "original.txt").write_text("".join(f"{val_name(i)} {c}\n" for i, c in enumerate(original)))
    source = SHARED / "published/tfds-multilabel-v3/imagenet2012_multilabel_validation.csv"
    with open(source, newline="") as fh, open(folder / "multilabel.csv", "w", newline="") as out:
        rows = csv.reader(fh)
        writer = csv.writer(out)
        writer.writerow(next(rows))
        writer.writerows(r for r in rows if int(r[0].split("_")[2].split(".")[0]) <= images)
    files = [folder / "original.txt", folder / "multilabel.csv"]
    if images == 50_000:
        files.append(SHARED / "published/real/real.json")
    return files, original


def synthetic_logits(original: np.ndarray, seed: int) -> np.ndarray:
    """float32 logits: the label usually wins; the errors fall on two confusable classes
    per label (its neighbours in WordNet order, as the dog breeds sit side by side)."""
    rng = np.random.default_rng(seed)
    n = len(original)
    logits = rng.normal(0.0, 1.0, (n, 1000)).astype(np.float32)
    rows = np.arange(n)
    logits[rows, original] += rng.normal(6.0 + 2.0 * (seed % 5) / 4, 1.0, n)
    for offset, weight in ((1, 4.5), (-1, 3.5)):
        logits[rows, (original + offset) % 1000] += rng.normal(weight, 1.0, n)
    return logits


def build(folder: Path, images: int, runs: int) -> Path:
    """The project of `images` images and `runs` runs, made once; one with fewer runs is copied
    and given the rest (the panel votes on the first run's mistakes)."""
    project = folder / f"p{images}x{runs}"
    if (project / "project.json").exists():
        return project
    folder.mkdir(parents=True, exist_ok=True)
    files, original = label_files(folder, images)
    smaller = sorted((p for p in folder.glob(f"p{images}x*") if (p / "project.json").exists()
                      and int(p.name.split("x")[1]) < runs), key=lambda p: int(p.name.split("x")[1]))
    if smaller:
        shutil.copytree(smaller[-1], project)
        done = int(smaller[-1].name.split("x")[1])
    else:
        reviewer("init", str(project), "--labels", *map(str, files))
        done = 0
    names = np.array([val_name(i) for i in range(images)])
    for r in range(done, runs):
        path = folder / f"run{r}.npz"
        np.savez(path, logits=synthetic_logits(original, seed=r), file_names=names)
        reviewer("import-logits", str(project), str(path), "--model", f"synthetic_{r:02d}")
        path.unlink()
    if not done:
        _vote(project)
    return project


def _vote(project: Path) -> None:
    for name in PANEL:
        reviewer("panelist", str(project), name, *(["--chair"] if name == PANEL[0] else []))
    items = _first_mistakes(project, 300)
    rng = np.random.default_rng(0)
    for name in PANEL:
        lines = ["image,predicted,verdict,problematic,severity,category,oov_name,note"]
        for image, predicted in items:
            verdict = rng.choice(["correct", "wrong", "wrong", "unclear"])
            severity, category = (rng.choice(["major", "minor"]), rng.choice(["fine_grained", "non_prototypical"])) \
                if verdict == "wrong" else ("", "")
            lines.append(f"{image},{predicted},{verdict},,{severity},{category},,")
        reviewer("vote", str(project), "--panelist", name, "--batch", "-", stdin="\n".join(lines) + "\n")
    reviewer("decide", str(project), "--chair", PANEL[0])


def _first_mistakes(project: Path, count: int) -> list[tuple[str, int]]:
    import sqlite3

    with sqlite3.connect(project / "project.db") as db:
        return db.execute("SELECT image.file_name, mistake.predicted FROM mistake JOIN image ON image.id = "
                          "mistake.image_id WHERE mistake.run_id = (SELECT min(id) FROM run) ORDER BY mistake.id "
                          "LIMIT ?", (count,)).fetchall()


def timed(*args: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the command, its stdout): on a shared machine the CPU
    time is what an idle one would take, near enough (the report runs on one core)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = reviewer(*args)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bench_report"))
    parser.add_argument("--repeat", type=int, default=2, help="repeated calls timed after the first")
    args = parser.parse_args()
    start = time.perf_counter()
    project = build(args.dir, args.images, args.runs)
    print(f"project {project} ready ({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    shutil.rmtree(project / "cache", ignore_errors=True)  # a first call keeps nothing from earlier ones
    first, first_cpu, out = timed("report", str(project), "--json")
    json.loads(out)
    repeated = [timed("report", str(project), "--json")[:2] for _ in range(args.repeat)]
    text = timed("report", str(project))[:2]
    image, predicted = _first_mistakes(project, 1)[0]  # a vote: the runs' figures stay kept, the panel's do not
    reviewer("vote", str(project), "--panelist", PANEL[1], "--image", image, "--predicted", str(predicted),
             "--verdict", "wrong" if time.time_ns() % 2 else "correct")
    voted = timed("report", str(project), "--json")[:2]
    print(f"{args.images} images x {args.runs} runs (load {os.getloadavg()[0]:.1f}): report --json first "
          f"{first:.1f} s wall, {first_cpu:.1f} s CPU ({first / args.runs:.2f} / {first_cpu / args.runs:.2f} s a run); "
          f"repeated {', '.join(f'{w:.1f} s wall ({c:.1f} CPU)' for w, c in repeated)}; "
          f"report (text, repeated) {text[0]:.1f} s wall ({text[1]:.1f} CPU); "
          f"after a vote {voted[0]:.1f} s wall ({voted[1]:.1f} CPU)")


if __name__ == "__main__":
    main()
