"""The list of the 20,000 annotated validation images with their original labels.

ImageNetV2's `imagenet-annotatedval20k.json`: {"image_filenames":
[[file_name, original_wnid], ...], ...}.
"""

from __future__ import annotations

from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers._plan import ImportPlan
from reviewer.importers._read import class_of_wnid, read_json, shown


def looks_like(data: object) -> bool:
    return isinstance(data, dict) and "image_filenames" in data


def parse(path: str | Path, data: object | None = None) -> ImportPlan:
    source = str(path)
    data = read_json(path) if data is None else data
    if not looks_like(data) or not isinstance(data["image_filenames"], list):
        raise InputError(source, "expected {'image_filenames': [[file_name, wnid], ...]}",
                         hint="use ImageNetV2's imagenet-annotatedval20k.json")
    plan = ImportPlan(kind="annotated_list", source_path=source)
    first_seen: dict[str, int] = {}
    for i, record in enumerate(data["image_filenames"]):
        if not (isinstance(record, list) and len(record) == 2 and isinstance(record[0], str)):
            raise InputError(source, f"expected [file_name, wnid], got {shown(record)}", record=f"image_filenames[{i}]",
                             hint='each entry is a pair such as ["ILSVRC2012_val_00000001.JPEG", "n01751748"]')
        name, wnid = record
        if name in first_seen:
            raise InputError(source, f"{name} is listed twice (image_filenames[{first_seen[name]}] and [{i}])",
                             record=f"image_filenames[{i}]", hint="an image has one original label; keep one entry")
        first_seen[name] = i
        plan.image(name).original_label = class_of_wnid(wnid, source=source, record=f"image_filenames[{i}]")
    return plan
