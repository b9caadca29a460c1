"""The project's labels as numpy arrays, for vectorised metrics.

A `LabelSet` holds N images (sorted by image id) and their labels in
coordinate form: `rows[j]` (image position), `classes[j]`, `kinds[j]`
(0 correct, 1 wrong, 2 unclear). An image with no multi-label annotation at
all has its original label as its one correct label (folder projects,
images outside the annotated 20k).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from sqlalchemy import select

from db.engine import read_session
from db.tables import Image, Label
from reviewer.project import Project

CORRECT, WRONG, UNCLEAR = 0, 1, 2
KIND_CODES = {"correct": CORRECT, "wrong": WRONG, "unclear": UNCLEAR}


@dataclass(frozen=True)
class LabelSet:
    image_ids: np.ndarray  # int64 [N], sorted
    original: np.ndarray  # int16 [N], -1 when unknown
    problematic: np.ndarray  # bool [N]
    rows: np.ndarray  # int32 [L]
    classes: np.ndarray  # int16 [L]
    kinds: np.ndarray  # int8 [L]
    real_rows: np.ndarray  # int32 [R]
    real_classes: np.ndarray  # int16 [R]

    def __len__(self) -> int:
        return len(self.image_ids)

    def positions(self, image_ids: np.ndarray) -> np.ndarray:
        """Positions of the given image ids in this set (-1 where absent)."""
        image_ids = np.asarray(image_ids, dtype=np.int64)
        if not len(self.image_ids):
            return np.full(len(image_ids), -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.image_ids, image_ids), len(self.image_ids) - 1)
        return np.where(self.image_ids[pos] == image_ids, pos, -1)

    def has_multilabels(self) -> np.ndarray:
        """bool [N]: the image has at least one correct or unclear label."""
        out = np.zeros(len(self), bool)
        out[self.rows[self.kinds != WRONG]] = True
        return out

    def has_real(self) -> np.ndarray:
        out = np.zeros(len(self), bool)
        out[self.real_rows] = True
        return out

    def label_counts(self, kind: int = CORRECT) -> np.ndarray:
        return np.bincount(self.rows[self.kinds == kind], minlength=len(self))

    def labels_of(self, position: int) -> dict[str, list[int]]:
        """The correct / wrong / unclear classes of one image."""
        sel = self.rows == position
        return {name: sorted(int(c) for c in self.classes[sel & (self.kinds == code)])
                for name, code in KIND_CODES.items()}

    def with_judgements(self, image_ids: np.ndarray, classes: np.ndarray, kinds: np.ndarray,
                        problematic_ids: np.ndarray | None = None) -> "LabelSet":
        """A copy where each given (image, class) takes the given kind (a panel's
        final decisions), overriding any earlier label of that class."""
        pos = self.positions(np.asarray(image_ids, dtype=np.int64))
        keep = pos >= 0
        rows = np.concatenate([self.rows, pos[keep].astype(np.int32)])
        cls = np.concatenate([self.classes, np.asarray(classes, dtype=np.int16)[keep]])
        knd = np.concatenate([self.kinds, np.asarray(kinds, dtype=np.int8)[keep]])
        # Keep the last entry of each (row, class): the judgement wins.
        key = rows.astype(np.int64) * 1000 + cls
        order = np.arange(len(key))[::-1]
        _, first = np.unique(key[order], return_index=True)
        sel = np.sort(order[first])
        problematic = self.problematic.copy()
        if problematic_ids is not None and len(problematic_ids):
            p = self.positions(np.asarray(problematic_ids, dtype=np.int64))
            problematic[p[p >= 0]] = True
        return replace(self, rows=rows[sel], classes=cls[sel], kinds=knd[sel], problematic=problematic)


def load_labelset(project: Project) -> LabelSet:
    """Read all images and labels of the project (one query per table)."""
    with read_session(project.engine) as session:
        conn = session.connection()
        images = [tuple(r) for r in conn.execute(
            select(Image.id, Image.original_label, Image.problematic).order_by(Image.id))]
        labels = [tuple(r) for r in conn.execute(
            select(Label.image_id, Label.class_index, Label.kind, Label.label_set))]
    image_ids = np.fromiter((r[0] for r in images), np.int64, len(images))
    original = np.fromiter((-1 if r[1] is None else r[1] for r in images), np.int16, len(images))
    problematic = np.fromiter((bool(r[2]) for r in images), bool, len(images))
    if labels:
        lab_img = np.fromiter((r[0] for r in labels), np.int64, len(labels))
        lab_cls = np.fromiter((r[1] for r in labels), np.int16, len(labels))
        lab_kind = np.fromiter((KIND_CODES.get(r[2], CORRECT) for r in labels), np.int8, len(labels))
        is_real = np.fromiter((r[3] == "real" for r in labels), bool, len(labels))
    else:
        lab_img = np.zeros(0, np.int64)
        lab_cls = np.zeros(0, np.int16)
        lab_kind = np.zeros(0, np.int8)
        is_real = np.zeros(0, bool)
    rows = np.searchsorted(image_ids, lab_img).astype(np.int32)
    ml = ~is_real
    labelset = LabelSet(
        image_ids=image_ids, original=original, problematic=problematic,
        rows=rows[ml], classes=lab_cls[ml], kinds=lab_kind[ml],
        real_rows=rows[is_real], real_classes=lab_cls[is_real],
    )
    return _with_original_fallback(labelset)


def _with_original_fallback(labels: LabelSet) -> LabelSet:
    """Images without any multi-label annotation get their original label as correct."""
    annotated = np.zeros(len(labels), bool)
    annotated[labels.rows] = True
    fallback = np.flatnonzero(~annotated & (labels.original >= 0)).astype(np.int32)
    if not len(fallback):
        return labels
    return replace(
        labels,
        rows=np.concatenate([labels.rows, fallback]),
        classes=np.concatenate([labels.classes, labels.original[fallback]]),
        kinds=np.concatenate([labels.kinds, np.zeros(len(fallback), np.int8)]),
    )
