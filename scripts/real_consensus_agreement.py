"""How close the raters' consensus (Dawid–Skene over ReaL's raw answers, as `reviewer
import-evidence` stores it) comes to the labels ReaL publishes: the figures of docs/evidence.md
and of `reviewer.evidence.consensus`'s docstring, on all 50,000 validation images.

    python scripts/real_consensus_agreement.py ../shared/data/published/real \
        [--scores scores.npz] [--original imagenet_val_set_original_labels.npy \
         --index imagenet_val_set_index_to_filepath.json]

Reads `raters.npz` and `real.json` from the folder. With `--scores` (ReaL's own Dawid–Skene
scores, `scores.npz` of google-research/reassessed-imagenet) it also compares the posteriors with
them; with cleanlab's original labels it checks what `real.json` gives the images without a question.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from reviewer.evidence import raters
from reviewer.evidence.consensus import REAL_THRESHOLD


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--scores", type=Path)
    parser.add_argument("--original", type=Path)
    parser.add_argument("--index", type=Path)
    args = parser.parse_args()
    started = time.perf_counter()
    parsed = raters.parse(args.folder / "raters.npz", sha256="")
    print(f"parsed and fitted in {time.perf_counter() - started:.1f} s: {parsed.figures}")
    real = json.loads((args.folder / "real.json").read_text())
    posterior, published = {}, {}
    for name, payload in parsed.items.items():
        i = int(name[15:23]) - 1
        for cls, p in payload["consensus"]:
            posterior[(i, cls)] = p
            published[(i, cls)] = cls in real[i]
    keys = sorted(posterior)
    p = np.array([posterior[k] for k in keys])
    in_real = np.array([published[k] for k in keys])
    rated = {i for i, _ in keys}
    print(f"images: {len(real):,}; with a question: {len(rated):,}; without: {len(real) - len(rated):,}")
    unrated = [i for i in range(len(real)) if i not in rated]
    print(f"  real.json on the images without a question: {sum(len(real[i]) == 1 for i in unrated):,} with one label")
    if args.original and args.index:
        original = _original_labels(args.original, args.index)
        print(f"  of which the original label: {sum(real[i] == [original[i]] for i in unrated):,}")
    print(f"questions: {len(p):,}; ReaL labels among them: {int(in_real.sum()):,}")
    for threshold in (0.5, REAL_THRESHOLD):
        _agreement(p, in_real, threshold)
    grid = np.round(np.arange(0.05, 1.0, 0.01), 2)
    best = max(grid, key=lambda t: int(((p >= t) == in_real).sum()))
    _agreement(p, in_real, float(best), label="best")
    accepted = defaultdict(set)
    for (i, cls), q in zip(keys, p):
        if q >= REAL_THRESHOLD:
            accepted[i].add(cls)
    same = sum(accepted[i] == set(real[i]) for i in rated)
    print(f"rated images whose label set is ReaL's at {REAL_THRESHOLD}: {same:,} of {len(rated):,} "
          f"({100 * same / len(rated):.2f} %); left without a label: here {sum(not accepted[i] for i in rated):,}, "
          f"in real.json {sum(not real[i] for i in rated):,}")
    if args.scores:
        _against_scores(args.scores, args.folder / "raters.npz", keys, p)


def _agreement(p, in_real, threshold: float, label: str = "") -> None:
    ours = p >= threshold
    agree = int((ours == in_real).sum())
    print(f"at {threshold:.2f}{' (' + label + ')' if label else ''}: {agree:,} agree ({100 * agree / len(p):.2f} %); "
          f"accepted here, not by ReaL {int((ours & ~in_real).sum()):,}; by ReaL, not here "
          f"{int((~ours & in_real).sum()):,}")


def _against_scores(scores_path: Path, raters_path: Path, keys, p) -> None:
    with np.load(scores_path, allow_pickle=False) as z:
        scores, info = z["tensor"], z["info"]
    theirs = {(int(name[15:23]) - 1, int(cls)): s for (name, cls), s in zip(info.tolist(), scores)}
    ref = np.array([theirs[k] for k in keys])
    print(f"against ReaL's scores.npz: r = {np.corrcoef(p, ref)[0, 1]:.4f}, mean |difference| "
          f"{np.abs(p - ref).mean():.4f}, same side of {REAL_THRESHOLD}: {int(((p >= REAL_THRESHOLD) == (ref >= REAL_THRESHOLD)).sum()):,}")
    with np.load(raters_path, allow_pickle=False) as z:
        counts = z["tensor"].sum(axis=0).astype(int)
        asked = {(int(n[15:23]) - 1, int(c)): q for q, (n, c) in enumerate(z["info"].tolist())}
    order = np.array([asked[k] for k in keys])
    no_only = (counts[order] == (5, 0, 0)).all(axis=1)
    print(f"  five 'no': ReaL {ref[no_only].min():.2g} to {ref[no_only].max():.2g}, here {p[no_only].min():.2g} "
          f"to {p[no_only].max():.2g}")


def _original_labels(labels: Path, index: Path) -> list[int]:
    """cleanlab's original labels (in its class-folder order) by validation file number."""
    values = np.load(labels, allow_pickle=False)
    paths = json.loads(index.read_text())
    pairs = paths.items() if isinstance(paths, dict) else enumerate(paths)
    out = [0] * len(values)
    for i, path in pairs:
        out[int(path.rsplit("_", 1)[1][:8]) - 1] = int(values[int(i)])
    return out


if __name__ == "__main__":
    main()
