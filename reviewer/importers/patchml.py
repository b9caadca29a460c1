"""PatchML: a synthetic multi-label set of object patches on a black canvas, as Anzaku et
al., "The Impact of the Single-Label Assumption in Image Recognition Benchmarking", §3.2
and Algorithm 1, build it.

The pool S is one patch per object box (`reviewer.importers.boxes`). For each patch count
k in K = (2, 3, 4, 6, 9), with patch size p in P = (256, 256, 256, 170, 128) and the
canvas F = 512 (Algorithm 1, lines 3-19):
- the grid has c = floor(F / p) columns and rows (2, 2, 2, 3, 4);
- while at least k patches are left, k are sampled without replacement and removed;
  drawing them in turn from a uniform permutation of the pool is the same distribution,
  which is how it is done here (one `numpy.random.default_rng(seed)` for everything);
- patch i goes to the cell row = floor(i / c), col = i mod c (so a 9-patch image fills
  the first two rows of its 4 x 4 grid and the first cell of the third); each is resized
  "proportionally to a square of size p": its longer side becomes p, its aspect ratio is
  kept (w, h <= p). Its top-left corner is (col·p + x_off, row·p + y_off) with x_off ~
  U{0..p-w} and y_off ~ U{0..p-h}: the paper's "small random offsets within grid cells"
  (lines 28-31; with w = h = p there would be no offset to draw). A patch thus stays in
  its cell, so no two overlap, and the check of line 32 (x + w <= F, y + h <= F) always
  holds for the paper's K and P;
- the image's labels are the union of its patches' classes (line 14): two patches of one
  class give one label, so an image may have fewer labels than patches.

Two readings the paper leaves open, and the choice made here:
- Algorithm 1 removes the patches it uses from S and never restores it, which would leave
  nothing after k = 2; its Table 2 has all five counts, each using about 52,000-54,000
  patches (26,778 x 2, 17,870 x 3, 13,281 x 4, 8,766 x 6, 5,736 x 9 in PatchML1). So the
  whole pool is used once per k, as here: floor(|S| / k) images for each k.
- resampling and file format are not stated: PIL's bicubic resize, JPEG at quality 95
  without chroma subsampling (ImageNet's own images are JPEGs; as PNG the demo's composites
  take three times the disk).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from sqlalchemy import insert, select
from sqlmodel import Session

from db.tables import Image, Label, LabelSource
from reviewer.importers.boxes import Box, BoxPool

PATCH_COUNTS = (2, 3, 4, 6, 9)  # K
PATCH_SIZES = (256, 256, 256, 170, 128)  # P
CANVAS = 512  # F
QUALITY = 95
LABEL_SET = "patchml"  # Label.label_set of the sets' labels: apart from the multi-label set and ReaL
PAPER = ("Anzaku et al., The Impact of the Single-Label Assumption in Image Recognition Benchmarking, "
         "§3.2, Algorithm 1")


@dataclass(frozen=True)
class Placement:
    """One patch on a canvas: pool index, grid cell, and the pixels it covers."""

    patch: int
    row: int
    col: int
    x: int
    y: int
    w: int
    h: int


@dataclass(frozen=True)
class Composite:
    """One PatchML image: k patches of size p, and its labels (the union of their classes)."""

    k: int
    p: int
    number: int  # 1.. within its k
    placements: tuple[Placement, ...]
    labels: tuple[int, ...]  # sorted class indices

    def file_name(self, name: str) -> str:
        return f"{name}_k{self.k}_{self.number:06d}.JPEG"


def fitted_size(width: int, height: int, p: int) -> tuple[int, int]:
    """A width x height patch resized so that its longer side is p, its aspect ratio kept."""
    scale = p / max(width, height)
    return max(1, min(p, round(width * scale))), max(1, min(p, round(height * scale)))


def plan_patchml(boxes: Sequence[Box], *, seed: int, counts: Sequence[int] = PATCH_COUNTS,
                 sizes: Sequence[int] = PATCH_SIZES, canvas: int = CANVAS) -> list[Composite]:
    """Algorithm 1 over the pool `boxes` (module docstring): every composite, its
    placements and labels; nothing is read or drawn. The same boxes and seed give the
    same plan."""
    if len(counts) != len(sizes):
        raise ValueError("one patch size per patch count")
    for k, p in zip(counts, sizes):
        if not 0 < p <= canvas or k > (canvas // p) ** 2:
            raise ValueError(f"{k} patches of {p} px do not fit in the grid of a {canvas} px canvas")
    rng = np.random.default_rng(seed)
    out: list[Composite] = []
    for k, p in zip(counts, sizes):
        c = canvas // p
        order = rng.permutation(len(boxes))
        for number, start in enumerate(range(0, len(boxes) - k + 1, k), start=1):
            placements, labels = [], set()
            for i, index in enumerate(order[start:start + k].tolist()):
                row, col = divmod(i, c)
                w, h = fitted_size(boxes[index].width, boxes[index].height, p)
                x = col * p + int(rng.integers(0, p - w + 1))
                y = row * p + int(rng.integers(0, p - h + 1))
                if x + w <= canvas and y + h <= canvas:  # line 32: holds whenever k <= c * c
                    placements.append(Placement(index, row, col, x, y, w, h))
                    labels.add(boxes[index].class_index)
            out.append(Composite(k, p, number, tuple(placements), tuple(sorted(labels))))
    return out


def compose(composite: Composite, boxes: Sequence[Box], *, canvas: int = CANVAS,
            open_image: Callable[[str], "Image.Image"]):
    """The composite as an RGB PIL image: black, with each patch cropped from its image
    (`open_image(file name)`), resized bicubically and pasted at its place."""
    from PIL import Image

    out = Image.new("RGB", (canvas, canvas))
    for place in composite.placements:
        box = boxes[place.patch]
        with open_image(box.image) as source:
            patch = source.convert("RGB").crop(box.crop)
        out.paste(patch.resize((place.w, place.h), Image.Resampling.BICUBIC), (place.x, place.y))
    return out


def write_images(composites: Sequence[Composite], boxes: Sequence[Box], folder: Path, *, name: str,
                 image_path: Callable[[str], Path], canvas: int = CANVAS,
                 progress: Callable[[int, int], None] | None = None) -> None:
    """Draw every composite into `folder` as JPEG (quality 95, no chroma subsampling)."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    for done, composite in enumerate(composites, start=1):
        image = compose(composite, boxes, canvas=canvas, open_image=lambda n: Image.open(image_path(n)))
        image.save(folder / composite.file_name(name), "JPEG", quality=QUALITY, subsampling=0)
        if progress is not None:
            progress(done, len(composites))


def description(composites: Sequence[Composite], pool: BoxPool, *, name: str, seed: int, sha256: str,
                counts: Sequence[int] = PATCH_COUNTS, sizes: Sequence[int] = PATCH_SIZES,
                canvas: int = CANVAS) -> dict:
    """How the set was made and what it holds: the slice's rule and the manifest's head."""
    return {"kind": "patchml", "paper": PAPER, "name": name, "seed": seed, "boxes": pool.path,
            "boxes_sha256": sha256, "patch_counts": list(counts), "patch_sizes": list(sizes), "canvas": canvas,
            "resample": "bicubic", "format": f"JPEG quality {QUALITY}, 4:4:4", "patches": len(pool.boxes),
            "skipped_images": len(pool.skipped_images), "skipped_boxes": pool.skipped_boxes,
            "images": len(composites),
            "images_per_k": {str(k): n for k, n in sorted(Counter(c.k for c in composites).items())},
            "images_per_label_count": {str(k): n for k, n in
                                       sorted(Counter(len(c.labels) for c in composites).items())}}


def manifest(composites: Sequence[Composite], boxes: Sequence[Box], head: dict, *, class_names: Sequence[str]
             ) -> str:
    """The set's manifest (JSON): the rule, then every image with its labels and patches
    (source image, box, line of the boxes file, cell and pixels on the canvas)."""
    images = [{"file": c.file_name(head["name"]), "k": c.k, "p": c.p,
               "labels": [class_names[i] for i in c.labels],
               "patches": [{"image": boxes[pl.patch].image, "wnid": boxes[pl.patch].wnid,
                            "box": list(boxes[pl.patch].crop), "line": boxes[pl.patch].line,
                            "cell": [pl.row, pl.col], "at": [pl.x, pl.y, pl.w, pl.h]} for pl in c.placements]}
              for c in composites]
    return json.dumps({**head, "files": images}, indent=1, sort_keys=True) + "\n"


def store_patchml(*, session: Session, composites: Sequence[Composite], name: str, folder: Path, boxes_path: str,
                  sha256: str) -> list[int]:
    """Add the drawn images (files in `folder`, kept as absolute paths) and their labels
    (label set "patchml", kind correct, one label source for the boxes file) in the caller's
    transaction; the new images' ids. They join neither the multi-label set nor any other
    label set, have no original label, and so are never a mistake to review."""
    source = LabelSource(kind=LABEL_SET, path=boxes_path, sha256=sha256)
    session.add(source)
    session.flush()
    files = [c.file_name(name) for c in composites]
    conn = session.connection()
    conn.execute(insert(Image.__table__), [{"file_name": f, "path": str(folder / f), "original_label": None,
                                            "problematic": False, "val_index": None, "multilabel": False}
                                           for f in files])
    ids = {}
    for start in range(0, len(files), 900):  # SQLite's parameter limit per IN (...)
        ids.update(session.execute(select(Image.file_name, Image.id)
                                   .where(Image.file_name.in_(files[start:start + 900]))).all())
    conn.execute(insert(Label.__table__), [{"label_set": LABEL_SET, "image_id": ids[f], "class_index": cls,
                                            "kind": "correct", "source_id": source.id}
                                           for f, c in zip(files, composites) for cls in c.labels])
    return [ids[f] for f in files]
