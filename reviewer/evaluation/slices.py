"""Named image slices: the imported ImageNet-M list, a curated major-error split,
any subset a model is rerun on (`reviewer predict --images SLICE`).

A slice is stored as `ImageSlice` rows (name, image); the rule that made a
curated slice is kept as the project setting `slice_rule:<name>` (JSON), so an
export can state it.
"""

from __future__ import annotations

import json

import numpy as np
from sqlalchemy import delete, func, insert, select
from sqlmodel import Session

from db.tables import Image, ImageSlice, ProjectSetting
from reviewer.errors import UserError

RULE_KEY = "slice_rule:"
MAX_NAME = 64 - len(RULE_KEY)


class SliceError(UserError):
    """A slice that does not exist or cannot be saved as asked."""


def slice_names(*, session: Session) -> dict[str, int]:
    """{slice name: number of images}, by name."""
    rows = session.execute(select(ImageSlice.name, func.count(ImageSlice.id))
                           .group_by(ImageSlice.name).order_by(ImageSlice.name)).all()
    return {name: int(n) for name, n in rows}


def slice_image_ids(*, session: Session, name: str) -> np.ndarray:
    """Sorted image ids of the slice; a SliceError naming the slices there are if none has that name."""
    ids = session.execute(select(ImageSlice.image_id).where(ImageSlice.name == name)).scalars().all()
    if not ids:
        known = ", ".join(slice_names(session=session)) or "none yet"
        raise SliceError(f"the project has no image slice named {name!r} (slices: {known}); make one with "
                         "'reviewer split PROJECT ... --save NAME' or import a TFDS file with 'imagenet_m'")
    return np.array(sorted(ids), dtype=np.int64)


def slice_file_names(*, session: Session, name: str) -> list[str]:
    """File names of the slice's images, sorted."""
    ids = slice_image_ids(session=session, name=name)
    return sorted(session.execute(select(Image.file_name).join(ImageSlice, ImageSlice.image_id == Image.id)
                                  .where(ImageSlice.name == name)).scalars().all()) if len(ids) else []


def slice_rule(*, session: Session, name: str) -> dict | None:
    """The rule a curated slice was made with, or None (imported or hand-made slices)."""
    row = session.get(ProjectSetting, RULE_KEY + name)
    return json.loads(row.value) if row and row.value else None


def save_slice(*, session: Session, name: str, image_ids, rule: dict | None = None, replace: bool = False) -> int:
    """Store `image_ids` as the slice `name`; returns its size.

    An existing slice of that name is only replaced when `replace` is true, so
    a curated split never silently overwrites the imported ImageNet-M list.
    """
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise SliceError(f"a slice name needs 1 to {MAX_NAME} characters, got {name!r}")
    ids = sorted({int(i) for i in image_ids})
    if not ids:
        raise SliceError(f"slice {name!r} would be empty; nothing was saved")
    exists = session.execute(select(func.count(ImageSlice.id)).where(ImageSlice.name == name)).scalar_one()
    if exists and not replace:
        raise SliceError(f"the project already has a slice named {name!r} ({exists} images); "
                         "choose another name or replace it explicitly")
    session.execute(delete(ImageSlice).where(ImageSlice.name == name))
    session.execute(insert(ImageSlice), [{"name": name, "image_id": i} for i in ids])
    key = RULE_KEY + name
    setting = session.get(ProjectSetting, key)
    if rule is None:
        if setting is not None:
            session.delete(setting)
    else:
        setting = setting or ProjectSetting(key=key)
        setting.value = json.dumps(rule, sort_keys=True)
        session.add(setting)
    session.flush()
    return len(ids)
