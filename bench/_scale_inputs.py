"""The input files of bench_scale.py, made once and kept under OUT/inputs (keyed by their
parameters, so a second invocation reuses them):

- the real label files cut to a project's size: the 50,000 original labels (cleanlab's
  `imagenet_val_set_original_labels.npy` and `imagenet_val_set_index_to_filepath.json`, written
  as TFDS's `imagenet2012_validation_labels.txt`: one wnid per validation image, in file
  order), the TFDS v3 multi-labels (`imagenet2012_multilabel_validation.csv`) and ReaL
  (`real.json`). A smaller project takes every (50,000 / size)-th validation image of the
  same files (CSV lines kept verbatim; ReaL whole, as its importer requires all 50,000 rows
  and keeps the project's);
- each class's confusable classes: its nearest classes in the repository's WordNet asset
  (siblings first, ties broken by a seeded draw), as real models' errors fall;
- synthetic runs as `.npz` files of float32 logits with a `file_names` array: each image's
  top-1 mostly one of its correct labels, the errors (10-30 % of images by run) on the
  original label's confusable classes, more often on images that are hard for every run;
- the panel's vote files for `reviewer vote --batch`, one per panelist, with disagreement.

Nothing here imports the application: the files are what a user would have.
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
VALIDATION = 50_000
CLASSES = 1000
CONFUSERS = 3
GENERATOR_VERSION = 1  # bump when the runs' recipe changes: cached files are keyed by it
VOTES_VERSION = 2  # the same for the vote files
TFDS_CSV = "published/tfds-multilabel-v3/imagenet2012_multilabel_validation.csv"
REAL_JSON = "published/real/real.json"
CLEANLAB_LABELS = "published/label-errors/imagenet_val_set_original_labels.npy"
CLEANLAB_PATHS = "published/label-errors/imagenet_val_set_index_to_filepath.json"
NEEDED = (TFDS_CSV, REAL_JSON, CLEANLAB_LABELS, CLEANLAB_PATHS)


def data_folder() -> Path:
    """The shared data folder (`REVIEWER_SHARED_DATA`, else ../shared/data beside the clone),
    or the repository's tests/data, which holds the four files needed here whole."""
    candidates = [Path(os.environ["REVIEWER_SHARED_DATA"])] if os.environ.get("REVIEWER_SHARED_DATA") else []
    candidates += [REPO.parent / "shared" / "data", REPO / "tests" / "data"]
    for folder in candidates:
        if all((folder / name).is_file() for name in NEEDED):
            return folder
    raise SystemExit(f"none of {', '.join(map(str, candidates))} holds {', '.join(NEEDED)}")


def val_name(index: int) -> str:
    return f"ILSVRC2012_val_{index + 1:08d}.JPEG"


def subset_indices(size: int) -> np.ndarray:
    """The validation indices of a `size`-image project: every (50,000 / size)-th image."""
    if not 0 < size <= VALIDATION or VALIDATION % size:
        raise SystemExit(f"--sizes: {size} does not divide {VALIDATION}")
    return np.arange(0, VALIDATION, VALIDATION // size)


def wnids() -> list[str]:
    return json.loads((REPO / "assets/wordnet/imagenet_wordnet.json").read_text())["classes"]


@dataclass
class Truth:
    """What the label files say of every validation image, by validation index."""

    original: np.ndarray  # [50000] class index
    multilabel: np.ndarray  # [50000] bool: in the TFDS v3 set
    problematic: np.ndarray  # [50000] bool
    accepted: list[frozenset[int]]  # correct or unclear labels (empty outside the set)
    csv_lines: dict[int, str]  # the CSV's line of each image, verbatim
    csv_header: str


def read_truth(data: Path) -> Truth:
    labels = np.load(data / CLEANLAB_LABELS).astype(np.int64)
    paths = json.loads((data / CLEANLAB_PATHS).read_text())
    original = np.full(VALIDATION, -1, np.int64)
    for label, path in zip(labels, paths):  # cleanlab's order: by class folder
        original[int(path.rsplit("_", 1)[1].split(".")[0]) - 1] = label
    if (original < 0).any():
        raise SystemExit(f"{data / CLEANLAB_PATHS}: not every validation image is listed")
    multilabel = np.zeros(VALIDATION, bool)
    problematic = np.zeros(VALIDATION, bool)
    accepted: list[frozenset[int]] = [frozenset()] * VALIDATION
    lines: dict[int, str] = {}
    text = (data / TFDS_CSV).read_text(encoding="utf-8")
    header, *rows = text.splitlines(keepends=True)
    for line in rows:
        (row,) = csv.DictReader(io.StringIO(header + line))
        index = int(row["id"].split("_")[-1].split(".")[0]) - 1
        cells = f"{row['proposed_labels']},{row['unclear_multi_labels']}"
        accepted[index] = frozenset(int(c) for c in cells.split(",") if c.strip())
        multilabel[index] = True
        problematic[index] = row["is_problematic"].strip() == "True"
        lines[index] = line
    return Truth(original, multilabel, problematic, accepted, lines, header)


def label_files(out: Path, size: int, data: Path, truth: Truth) -> dict[str, Path]:
    """{'original', 'multilabel', 'real'}: the label files of a `size`-image project."""
    folder = out / "inputs" / f"n{size}"
    folder.mkdir(parents=True, exist_ok=True)
    names = wnids()
    if size == VALIDATION:
        original = folder / "imagenet2012_validation_labels.txt"
        if not original.exists():
            _write(original, "".join(f"{names[c]}\n" for c in truth.original))
        return {"original": original, "multilabel": data / TFDS_CSV, "real": data / REAL_JSON}
    keep = subset_indices(size)
    original = folder / "original_labels.txt"  # 'file_name wnid' lines: a subset names its images
    if not original.exists():
        _write(original, "".join(f"{val_name(i)} {names[truth.original[i]]}\n" for i in keep))
    multilabel = folder / "imagenet2012_multilabel_validation.csv"
    if not multilabel.exists():
        _write(multilabel, truth.csv_header + "".join(truth.csv_lines[i] for i in keep if i in truth.csv_lines))
    return {"original": original, "multilabel": multilabel, "real": data / REAL_JSON}


def confusers(out: Path) -> np.ndarray:
    """[1000, 3] each class's nearest classes in WordNet (fewest levels up to a common
    ancestor from the farther of the two; siblings are 1), ties drawn with a fixed seed."""
    path = out / "inputs" / f"confusers_v{GENERATOR_VERSION}.npy"
    if path.exists():
        return np.load(path)
    asset = json.loads((REPO / "assets/wordnet/imagenet_wordnet.json").read_text())
    classes, synsets = asset["classes"], asset["synsets"]

    def ancestors(wnid: str) -> dict[str, int]:
        levels, frontier = {wnid: 0}, [wnid]
        while frontier:
            nxt = []
            for node in frontier:
                for parent in synsets[node]["parents"]:
                    if parent not in levels:
                        levels[parent] = levels[node] + 1
                        nxt.append(parent)
            frontier = nxt
        return levels

    up = [ancestors(w) for w in classes]
    below: dict[str, list[tuple[int, int]]] = {}
    for index, levels in enumerate(up):
        for node, level in levels.items():
            below.setdefault(node, []).append((index, level))
    rng = np.random.default_rng(12345)
    table = np.zeros((CLASSES, CONFUSERS), np.int64)
    for index, levels in enumerate(up):
        best: dict[int, int] = {}
        for node, level in sorted(levels.items(), key=lambda kv: kv[1]):
            if len([d for d in best.values() if d <= level]) >= CONFUSERS:
                break  # farther ancestors only give classes at least this far
            for other, other_level in below[node]:
                if other != index:
                    distance = max(level, other_level)
                    best[other] = min(best.get(other, distance), distance)
        ranked = sorted(best, key=lambda c: (best[c], rng.random()))
        table[index] = ranked[:CONFUSERS]
    _save_npy(path, table)
    return table


@dataclass(frozen=True)
class RunSpec:
    number: int  # 1-based
    seed: int

    @property
    def error_rate(self) -> float:
        """10-30 % of images wrong against the original label, a different rate per run."""
        return float(np.random.default_rng([self.seed, self.number, 0]).uniform(0.10, 0.30))

    @property
    def model(self) -> str:
        return f"synthetic_{self.number:02d}_err{round(100 * self.error_rate)}"


class Runs:
    """The synthetic runs of one seed over all 50,000 validation images (top-1 of each
    image and run); a project's file holds its images' rows of the same decisions."""

    def __init__(self, truth: Truth, table: np.ndarray, seed: int):
        self.truth, self.table, self.seed = truth, table, seed

    @cached_property
    def difficulty(self) -> np.ndarray:
        """Per image, shared by every run: some images are hard for every model."""
        return np.random.default_rng([self.seed, 0, 1]).random(VALIDATION)

    def top1(self, spec: RunSpec) -> tuple[np.ndarray, np.ndarray]:
        """(top-1 class, whether it is an error against the image's labels by this recipe)."""
        rng = np.random.default_rng([self.seed, spec.number, 2])
        score = 0.6 * self.difficulty + 0.4 * rng.random(VALIDATION)
        wrong = score > np.quantile(score, 1.0 - spec.error_rate)
        original = self.truth.original
        top = original.copy()
        # Right: mostly the original label, else another of the image's correct labels.
        pick_other = rng.random(VALIDATION) < 0.2
        for i in np.flatnonzero(pick_other & self.truth.multilabel & ~wrong):
            choices = sorted(self.truth.accepted[i])
            if choices:
                top[i] = choices[rng.integers(len(choices))]
        # Wrong: one of the original label's confusable classes (weighted), rarely any class.
        which = rng.choice(CONFUSERS, VALIDATION, p=[0.6, 0.3, 0.1])
        confused = self.table[original, which]
        anywhere = rng.random(VALIDATION) < 0.05
        confused[anywhere] = rng.integers(0, CLASSES, int(anywhere.sum()))
        top[wrong] = confused[wrong]
        return top, wrong

    def mistakes(self, spec: RunSpec, indices: np.ndarray) -> list[tuple[int, int]]:
        """(validation index, predicted) of the run's mistakes among `indices` by the
        reference rule: a non-problematic image of the multi-label set whose top-1 is not
        among its correct or unclear labels."""
        top, _ = self.top1(spec)
        t = self.truth
        return [(int(i), int(top[i])) for i in indices
                if t.multilabel[i] and not t.problematic[i] and int(top[i]) not in t.accepted[i]]

    def logits_file(self, out: Path, spec: RunSpec, indices: np.ndarray) -> Path:
        """The run's .npz (float32 'logits' [N, 1000], 'file_names'), made once."""
        path = (out / "inputs" / f"n{len(indices)}" /
                f"run{spec.number:02d}_seed{spec.seed}_v{GENERATOR_VERSION}.npz")
        if path.exists():
            return path
        top, wrong = self.top1(spec)
        rng = np.random.default_rng([self.seed, spec.number, 3, len(indices)])
        logits = np.empty((len(indices), CLASSES), np.float32)
        for start in range(0, len(indices), 4096):
            rows = indices[start:start + 4096]
            block = rng.standard_normal((len(rows), CLASSES), dtype=np.float32)
            at = np.arange(len(rows))
            err = wrong[rows]
            margin = np.where(err, rng.uniform(1.0, 4.0, len(rows)), rng.uniform(4.0, 9.0, len(rows)))
            near = self.table[self.truth.original[rows]]  # the confusable classes get some score
            for k in range(CONFUSERS):
                block[at, near[:, k]] += rng.uniform(0.0, 2.5, len(rows)).astype(np.float32)
            # the runner-up: the original label after an error, else the first confusable class
            second = np.where(err, self.truth.original[rows], near[:, 0])
            block[at, second] += (margin - rng.uniform(0.5, 2.0, len(rows))).astype(np.float32)
            block[at, top[rows]] = block.max(axis=1) + rng.uniform(0.2, 1.0, len(rows)).astype(np.float32)
            logits[start:start + len(rows)] = block
        names = np.array([val_name(i) for i in indices])
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, logits=logits, file_names=names)
        tmp.replace(path)
        return path


# The panel: every panelist votes on all mistakes of one run; ann agrees with the item's
# "true" verdict, bob and cy depart from it on 10 % and 18 % of the items.
PANEL = (("ann", True, 0.0), ("bob", False, 0.10), ("cy", False, 0.18))
VERDICTS = ("wrong", "correct", "unclear")
CATEGORIES = ("fine_grained", "fine_grained_oov", "spurious_correlation", "non_prototypical")


def vote_files(out: Path, size: int, runs: Runs, spec: RunSpec, indices: np.ndarray) -> tuple[dict[str, Path], int]:
    """({panelist: CSV}, rows): each panelist's votes on every mistake of run `spec`."""
    folder = out / "inputs" / f"n{size}"
    items = runs.mistakes(spec, indices)
    paths = {name: folder / f"votes_run{spec.number:02d}_{name}_seed{runs.seed}_v{GENERATOR_VERSION}.{VOTES_VERSION}.csv"
             for name, _, _ in PANEL}
    if all(p.exists() for p in paths.values()):
        return paths, len(items)
    rng = np.random.default_rng([runs.seed, spec.number, 4])
    truth = rng.choice(3, len(items), p=[0.7, 0.2, 0.1])
    major = rng.random(len(items)) < 0.3
    category = rng.choice(len(CATEGORIES), len(items), p=[0.55, 0.15, 0.15, 0.15])
    problematic = rng.random(len(items)) < 0.02
    for p, (name, _, departs) in enumerate(PANEL):
        own = np.random.default_rng([runs.seed, spec.number, 5, p])
        verdict = np.where(own.random(len(items)) < departs, own.integers(0, 3, len(items)), truth)
        severity_flip = own.random(len(items)) < departs
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["image", "predicted", "verdict", "problematic", "severity", "category", "oov_name", "note"])
        for k, (index, predicted) in enumerate(items):
            wrong = VERDICTS[verdict[k]] == "wrong"
            severity = ("major" if major[k] != severity_flip[k] else "minor") if wrong else ""
            note = "synthetic: looks like its sibling class" if wrong and k % 97 == p else ""
            kind = CATEGORIES[category[k]] if wrong else ""
            writer.writerow([val_name(index), predicted, VERDICTS[verdict[k]], "yes" if problematic[k] else "no",
                             severity, kind, "a hand-held object" if kind == "fine_grained_oov" else "", note])
        _write(paths[name], buffer.getvalue())
    return paths, len(items)


def _write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _save_npy(path: Path, array: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, array)
    tmp.replace(path)
