"""The list of the 20,000 annotated validation images with their original labels.

ImageNetV2's `imagenet-annotatedval20k.json`: {"image_filenames":
[[file_name, original_wnid], ...], ...}.
"""

from __future__ import annotations

from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers._plan import ImportPlan
from reviewer.importers._read import class_of_wnid, read_json


def looks_like(data: object) -> bool:
    return isinstance(data, dict) and "image_filenames" in data


def parse(path: str | Path, data: object | None = None) -> ImportPlan:
    source = str(path)
    data = read_json(path) if data is None else data
    if not looks_like(data) or not isinstance(data["image_filenames"], list):
        raise InputError(source, "expected {'image_filenames': [[file_name, wnid], ...]}")
    plan = ImportPlan(kind="annotated_list", source_path=source)
    for i, record in enumerate(data["image_filenames"]):
        if not (isinstance(record, list) and len(record) == 2 and isinstance(record[0], str)):
            raise InputError(source, f"expected [file_name, wnid], got {record!r}", record=f"image_filenames[{i}]")
        name, wnid = record
        if name in plan.images:
            raise InputError(source, f"{name} is listed twice", record=f"image_filenames[{i}]")
        plan.image(name).original_label = class_of_wnid(wnid, source=source, record=f"image_filenames[{i}]")
    return plan
