"""Validation images listed by their class folder: a JSON list of paths such as
"val/n01440764/ILSVRC2012_val_00000293.JPEG" (cleanlab/label-errors'
`imagenet_val_set_index_to_filepath.json`, all 50,000 images in class-folder order).
The folder is the image's original label (the standard ImageNet validation layout)."""

from __future__ import annotations

import re
from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers._plan import ImportPlan
from reviewer.importers._read import class_of_wnid, image_name, read_json, shown

PATH = re.compile(r"^(?:.*/)?(n\d{8})/([^/\\]+)$")


def looks_like(data: object) -> bool:
    """A list of strings whose first entries are `.../wnid/file` paths."""
    head = data[:100] if isinstance(data, list) else []
    return bool(head) and all(isinstance(x, str) for x in head) and any(PATH.match(x) for x in head)


def parse(path: str | Path, data: object | None = None) -> ImportPlan:
    source = str(path)
    data = read_json(path) if data is None else data
    if not looks_like(data):
        raise InputError(source, "expected a list of image paths in class folders, e.g. "
                                 "\"val/n01440764/ILSVRC2012_val_00000293.JPEG\"")
    plan = ImportPlan(kind="val_paths", source_path=source)
    first_seen: dict[str, int] = {}
    for i, entry in enumerate(data):
        record = f"entry {i}"
        match = PATH.match(entry) if isinstance(entry, str) else None
        if match is None:
            raise InputError(source, f"expected a path 'FOLDER/wnid/file name', got {shown(entry)}", record=record,
                             hint="every entry names an image inside its class's folder")
        wnid, name = match.groups()
        name = image_name(name, source=source, record=record)
        if name in first_seen:
            raise InputError(source, f"{name} is listed twice (entries {first_seen[name]} and {i})", record=record,
                             hint="an image has one original label; keep one entry")
        first_seen[name] = i
        plan.image(name).original_label = class_of_wnid(wnid, source=source, record=record)
    plan.create_missing_images = True
    return plan
