"""The annotation file behind TFDS `imagenet2012_multilabel` v3.0.0.

Layout: {"initial_annots": {image: {"correct": [wnid], "wrong": [...],
"unclear": [...]}}, "problematic_images": {image: {reason, reviewer, ...}},
"imagenet_m": [image, ...]}. A missing kind means an empty list. Keys that are
not validation images (ImageNetV2's, no ILSVRC2012_val_ prefix) are kept:
they are reviewed and exported like the others, and MLA leaves them out as
TFDS and the reference notebook do. A class listed under two kinds is kept
as in the file (see `_multilabel`).
"""

from __future__ import annotations

from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers._multilabel import MultilabelRecords
from reviewer.importers._plan import ImportPlan
from reviewer.importers._read import class_of_wnid, image_name, read_json, shown
from reviewer.terms import Verdict, values

IMAGENET_M_SLICE = "imagenet_m"


def looks_like(data: object) -> bool:
    return isinstance(data, dict) and "initial_annots" in data


def parse(path: str | Path, data: object | None = None) -> ImportPlan:
    source = str(path)
    data = read_json(path) if data is None else data
    if not looks_like(data):
        raise InputError(source, "no 'initial_annots' key: not a TFDS imagenet2012_multilabel annotation file")
    plan = ImportPlan(kind="tfds_v3", source_path=source)
    annots = data["initial_annots"]
    if not isinstance(annots, dict):
        raise InputError(source, "'initial_annots' must map image names to label dicts")
    records = MultilabelRecords(plan)
    for name, entry in annots.items():
        name = image_name(name, source=source, record=f"initial_annots/{shown(name)}")
        if not isinstance(entry, dict):
            raise InputError(source, f"expected {{correct, wrong, unclear}} lists, got {shown(entry)}",
                             record=f"initial_annots/{name}")
        unknown = set(entry) - set(values(Verdict))
        if unknown:
            raise InputError(source, f"unknown keys {sorted(unknown)}", record=f"initial_annots/{name}",
                             hint="an image's labels are listed under 'correct', 'wrong' and 'unclear'")
        kinds: dict[str, list[int]] = {}
        for kind in values(Verdict):
            wnids = entry.get(kind, [])
            if not isinstance(wnids, list):
                raise InputError(source, f"'{kind}' must be a list of wnids, got {shown(wnids)}",
                                 record=f"initial_annots/{name}")
            kinds[kind] = [class_of_wnid(w, source=source, record=f"initial_annots/{name}/{kind}") for w in wnids]
        records.add(name, kinds)
    records.finish()
    problematic = data.get("problematic_images", {})
    if not isinstance(problematic, dict):
        raise InputError(source, "'problematic_images' must map image names to metadata dicts")
    for name, meta in problematic.items():
        name = image_name(name, source=source, record=f"problematic_images/{shown(name)}")
        if not isinstance(meta, dict):
            raise InputError(source, f"metadata must be an object ({{reason, reviewer, ...}}), got {shown(meta)}",
                             record=f"problematic_images/{name}")
        plan.problematic[name] = meta
    imagenet_m = data.get("imagenet_m", [])
    if not isinstance(imagenet_m, list) or not all(isinstance(n, str) for n in imagenet_m):
        raise InputError(source, "'imagenet_m' must be a list of image names")
    for i, name in enumerate(imagenet_m):
        # ImageNet-M is a subset of the annotated images; a name outside them is a typo
        # or a file of another version, and would add an image without labels.
        if name not in plan.images:
            raise InputError(source, f"{name} is not an image of 'initial_annots'", record=f"imagenet_m[{i}]",
                             hint="ImageNet-M lists annotated validation images; fix or remove the name")
    if imagenet_m:
        plan.slices[IMAGENET_M_SLICE] = list(dict.fromkeys(imagenet_m))
    return plan
