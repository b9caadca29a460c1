"""One project built from the same real files in any order of work (issue 34): the original
labels, the TFDS v3 multi-labels, two runs, ReaL and a published review, over 30 validation
images chosen to exercise every rule a run's mistakes follow (a published review's items,
problematic images, images outside the multi-label set, wrong labels).

The files are the real published ones in tests/data, trimmed to the project's images where
the importer refuses files about images a project of image files lacks (the multi-label CSV,
the review): rows kept verbatim. The runs are synthetic logits whose top-1 is, per image, the
original label, a correct multi-label, a published review's prediction, a wrong label or an
unrelated class, so that which of them is a mistake depends on every label file.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path

import numpy as np
from PIL import Image as PILImage

DATA = Path(__file__).resolve().parent.parent / "data"
STEPS = ("original", "multilabels", "runs", "real", "review")


def _val_number(name: str) -> int:
    return int(name.split("_")[-1].split(".")[0])


def build_inputs(folder: Path) -> dict[str, Path]:
    """The input files, written once into `folder`: images/, original.txt, multilabel.csv,
    review.json, run_a.npz, run_b.npz (and real.json read in place)."""
    folder.mkdir(parents=True, exist_ok=True)
    review = json.loads((DATA / "imagenet-mistakes" / "vit3b_mistakes.json").read_text())
    csv_path = DATA / "published" / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv"
    text = csv_path.read_text()
    header, *lines = text.splitlines()
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(text))}
    line_of = {line.split(",", 1)[0]: line for line in lines}
    reviewed = sorted(name for name in review if name in rows)[:12]
    problematic = sorted(n for n, r in rows.items() if r["is_problematic"] == "True" and n not in review)[:5]
    with_wrong = sorted(n for n, r in rows.items() if r["wrong_multi_labels"] and r["is_problematic"] == "False"
                        and n not in review)[:7]
    multilabel = reviewed + problematic + with_wrong
    taken = {_val_number(n) for n in multilabel}
    outside = [f"ILSVRC2012_val_{i:08d}.JPEG" for i in range(1, 400)
               if f"ILSVRC2012_val_{i:08d}.JPEG" not in rows and i not in taken][:6]
    names = sorted(multilabel + outside)
    # The original labels from cleanlab's copy of the validation set's layout (val/<wnid>/<file>), a source
    # apart from the multi-label CSV's original_label column (which agrees with it).
    layout = json.loads((DATA / "published" / "label-errors" / "imagenet_val_set_index_to_filepath.json").read_text())
    wnid_of = {path.rsplit("/", 1)[1]: path.split("/")[1] for path in layout}
    wnids = sorted(set(wnid_of.values()))
    original = {name: wnids.index(wnid_of[name]) for name in names}

    images = folder / "images"
    images.mkdir(exist_ok=True)
    for name in names:
        PILImage.new("RGB", (8, 8), (_val_number(name) % 255, 90, 30)).save(images / name, quality=90)
    (folder / "original.txt").write_text("".join(f"{n} {wnid_of[n]}\n" for n in names))
    (folder / "multilabel.csv").write_text("\n".join([header] + [line_of[n] for n in sorted(multilabel)]) + "\n")
    (folder / "review.json").write_text(json.dumps({n: review[n] for n in reviewed}, indent=1))

    def classes(field: str, name: str) -> list[int]:
        return [int(c) for c in rows[name][field].replace('"', "").split(",") if c.strip()] if name in rows else []

    rng = np.random.default_rng(34)
    for run, shift in (("run_a", 0), ("run_b", 1)):
        logits = rng.normal(0, 1, (len(names), 1000)).astype(np.float32)
        for i, name in enumerate(names):
            choices = [original[name]]
            choices += classes("proposed_labels", name)[:1] + classes("wrong_multi_labels", name)[:1]
            if name in review:
                choices.append(int(review[name]["top_prediction"]))
            choices.append((_val_number(name) * 7 + 13) % 1000)
            top = choices[(i + shift * (i % 2)) % len(choices)]  # run_b agrees with run_a on every other image
            logits[i, top] += 12.0
        np.savez(folder / f"{run}.npz", logits=logits, file_names=np.array(names))
    return {"images": images, "original": folder / "original.txt", "multilabels": folder / "multilabel.csv",
            "review": folder / "review.json", "real": DATA / "published" / "real" / "real.json",
            "run_a": folder / "run_a.npz", "run_b": folder / "run_b.npz"}


def cli(*args: str) -> str:
    """What a `reviewer` command prints on stdout, run in this process; it must succeed."""
    from reviewer.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()
