"""The project's labels as numpy arrays, for vectorised metrics.

A `LabelSet` holds N images (sorted by image id) and their labels in
coordinate form: `rows[j]` (image position), `classes[j]`, `kinds[j]`
(0 correct, 1 wrong, 2 unclear). A class may be listed under two kinds of one
image, as in the official TFDS v3 file; readers treat a class that is correct
or unclear as accepted whatever else it is listed as (the reference rule).

PatchML's labels (label set "patchml": each synthetic image's patch classes,
`reviewer.importers.patchml`) are held apart in `patchml_rows` / `patchml_classes`,
as ReaL's are: no metric of the multi-label set sees them.

`multilabel` marks the images of the multi-label evaluation set (those a
multi-label file lists). A project without such a set (a folder of images
with their original labels, like the demo) has no multi-labels at all: there
the original label stands in as each image's one correct label, so its
mistakes can still be found and reviewed, and `original_only` says so; MLA
is not defined for it (`reviewer.evaluation.metrics`).

Two predicates on a label set live here, asked alike by the metrics, the mistake
finder (`reviewer.runs.mistakes`) and the split: `accepted` (the prediction is among
the image's correct or unclear labels) and `evaluable` (the image is in the review
scope and not problematic).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from sqlmodel import Session

from reviewer.classes.collapsed import acceptance_matrix
from reviewer.terms import Verdict

CORRECT, WRONG, UNCLEAR = 0, 1, 2
KIND_CODES = {Verdict.CORRECT: CORRECT, Verdict.WRONG: WRONG, Verdict.UNCLEAR: UNCLEAR}


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
    multilabel: np.ndarray  # bool [N]: in the multi-label evaluation set
    validation: np.ndarray  # bool [N]: an ImageNet validation image (ILSVRC2012_val_*)
    original_only: bool = False  # no multi-label set: the original labels stand in as correct labels
    patchml_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # int32 [P]
    patchml_classes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))  # int16 [P]

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

    def in_review_scope(self) -> np.ndarray:
        """bool [N]: images whose mistakes are sought and reviewed: the multi-label set,
        or, in a project without one, every image with a known original label.
        Problematic images are in scope here; callers skip them where the reference does."""
        return self.multilabel.copy() if not self.original_only else self.original >= 0

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
        final decisions), replacing every earlier listing of that class there;
        of two judgements of one (image, class) the later one wins."""
        pos = self.positions(np.asarray(image_ids, dtype=np.int64))
        keep = pos >= 0
        new_rows = pos[keep].astype(np.int32)
        new_cls = np.asarray(classes, dtype=np.int16)[keep]
        new_kind = np.asarray(kinds, dtype=np.int8)[keep]
        new_key = new_rows.astype(np.int64) * 1000 + new_cls
        order = np.arange(len(new_key))[::-1]
        _, last = np.unique(new_key[order], return_index=True)
        pick = np.sort(order[last])
        old = ~np.isin(self.rows.astype(np.int64) * 1000 + self.classes, new_key)
        problematic = self.problematic.copy()
        if problematic_ids is not None and len(problematic_ids):
            p = self.positions(np.asarray(problematic_ids, dtype=np.int64))
            problematic[p[p >= 0]] = True
        return replace(self, rows=np.concatenate([self.rows[old], new_rows[pick]]),
                       classes=np.concatenate([self.classes[old], new_cls[pick]]),
                       kinds=np.concatenate([self.kinds[old], new_kind[pick]]), problematic=problematic)


# -- predicates on a label set: which predictions it accepts, which images it evaluates -------
def accepted(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray, *,
             collapsed: bool = False) -> np.ndarray:
    """bool [M]: each prediction is among its image's correct or unclear labels (a class
    also listed as wrong still counts, as in the reference). With `collapsed`, a label
    also accepts the classes the paper's Appendix C mappings let it subsume."""
    positions = np.asarray(positions, dtype=np.int64)
    predicted = np.asarray(predicted, dtype=np.int64)
    pred_at = np.full(len(labels), -1, dtype=np.int64)
    pred_at[positions] = predicted
    valid = labels.kinds != WRONG
    rows, classes = labels.rows[valid], labels.classes[valid].astype(np.int64)
    has_pred = pred_at[rows] >= 0
    rows, classes = rows[has_pred], classes[has_pred]
    hit = acceptance_matrix()[classes, pred_at[rows]] if collapsed else classes == pred_at[rows]
    ok = np.zeros(len(labels), bool)
    ok[rows[hit]] = True
    return ok[positions]


def evaluable(labels: LabelSet, positions: np.ndarray) -> np.ndarray:
    """bool [M]: images whose mistakes are sought: in the review scope (the multi-label
    set, or every labelled image of a project without one) and not problematic."""
    ok = labels.in_review_scope() & ~labels.problematic
    return ok[np.asarray(positions, dtype=np.int64)]


_IMAGES_SQL = ("SELECT id, COALESCE(original_label, -1), CASE WHEN problematic THEN 1 ELSE 0 END, "
               "CASE WHEN multilabel THEN 1 ELSE 0 END, CASE WHEN val_index IS NULL THEN 0 ELSE 1 END "
               "FROM image{where} ORDER BY id")
# kind: correct 0 | wrong 1 | unclear 2 (KIND_CODES; anything else reads as correct); label set: 1 ReaL, 2 PatchML
_LABELS_SQL = ("SELECT image_id, class_index, CASE kind WHEN 'wrong' THEN 1 WHEN 'unclear' THEN 2 ELSE 0 END, "
               "CASE label_set WHEN 'real' THEN 1 WHEN 'patchml' THEN 2 ELSE 0 END FROM label{where}")


def _int_table(session: Session, sql: str, columns: int) -> np.ndarray:
    """A query of integer columns as one int64 array, read through the driver's own cursor: 50,000
    images and 140,000 labels as Python tuples into numpy in a tenth of the time row objects take."""
    cursor = session.connection().connection.cursor()
    try:
        cursor.execute(sql)
        rows = cursor.fetchall()
    finally:
        cursor.close()
    return np.array(rows, dtype=np.int64).reshape(len(rows), columns)


def load_labelset(*, session: Session, image_ids: list[int] | None = None) -> LabelSet:
    """Read all images and labels of the project (one query per table); with `image_ids`, those
    images' only (`reviewer show` of one image), the project's having a multi-label set or not
    still read from all of them."""
    if image_ids is None:
        images = _int_table(session, _IMAGES_SQL.format(where=""), 5)
        labels = _int_table(session, _LABELS_SQL.format(where=""), 4)
    else:
        listed = ", ".join(str(int(i)) for i in sorted(set(image_ids))) or "NULL"
        images = _int_table(session, _IMAGES_SQL.format(where=f" WHERE id IN ({listed})"), 5)
        labels = _int_table(session, _LABELS_SQL.format(where=f" WHERE image_id IN ({listed})"), 4)
    image_ids = images[:, 0]
    original = images[:, 1].astype(np.int16)
    problematic = images[:, 2].astype(bool)
    multilabel = images[:, 3].astype(bool)
    validation = images[:, 4].astype(bool)
    lab_img = labels[:, 0]
    lab_cls = labels[:, 1].astype(np.int16)
    lab_kind = labels[:, 2].astype(np.int8)
    is_real = labels[:, 3] == 1
    is_patchml = labels[:, 3] == 2
    rows = np.searchsorted(image_ids, lab_img).astype(np.int32)
    ml = ~is_real & ~is_patchml
    labelset = LabelSet(
        image_ids=image_ids, original=original, problematic=problematic,
        rows=rows[ml], classes=lab_cls[ml], kinds=lab_kind[ml],
        real_rows=rows[is_real], real_classes=lab_cls[is_real],
        multilabel=multilabel, validation=validation,
        patchml_rows=rows[is_patchml], patchml_classes=lab_cls[is_patchml],
    )
    has_set = multilabel.any() if image_ids is None else bool(
        _int_table(session, "SELECT COUNT(*) FROM image WHERE multilabel", 1)[0, 0])
    return labelset if has_set else _original_labels_as_correct(labelset)


def _original_labels_as_correct(labels: LabelSet) -> LabelSet:
    """A project without a multi-label set: each image's original label is its one correct label."""
    known = np.flatnonzero(labels.original >= 0).astype(np.int32)
    return replace(
        labels, original_only=True,
        rows=np.concatenate([labels.rows, known]),
        classes=np.concatenate([labels.classes, labels.original[known]]),
        kinds=np.concatenate([labels.kinds, np.zeros(len(known), np.int8)]),
    )
