"""The project's zoom-hard splits in an export: one file per saved slice,
`splits/<slice>.json`, with the images, the rule that made it (Taesiri et al. 2023
§4.1 and §4.4.1: the mistakes none of whose 324 zoomed crops is classified
correctly, for every chosen run; `reviewer.evaluation.zoom_hard`) and its counts,
and an entry in the manifest (`zoom_hard_splits`), as the ImageNet-M split has its
`imagenet_m` list and `split` entry. The files are deterministic: the same slice
and rule give the same bytes."""

from __future__ import annotations

import re

from sqlmodel import Session

from reviewer.evaluation.slices import slice_file_names
from reviewer.evaluation.zoom_hard import zoom_hard_slices

FOLDER = "splits"
FORMAT = "zoom-hard split"


def split_file_name(name: str) -> str:
    """A safe file name for the slice `name` (slice names may hold any character)."""
    return f"{FOLDER}/{re.sub(r'[^A-Za-z0-9._-]+', '_', name).strip('._') or 'slice'}.json"


def zoom_hard_files(*, session: Session) -> tuple[dict[str, dict], list[dict]]:
    """({relative path: the file's data}, the manifest's entries), one per zoom-hard slice, by name."""
    files: dict[str, dict] = {}
    entries = []
    for split in zoom_hard_slices(session=session):
        path = split_file_name(split.name)
        if path in files:  # two names the safe spelling makes alike: keep both apart
            path = path[:-len(".json")] + f"-{len(files)}.json"
        images = slice_file_names(session=session, name=split.name)
        files[path] = {"format": FORMAT, "slice": split.name, "rule": split.rule, "images": images}
        entries.append({"slice": split.name, "file": path, "images": len(images), "runs": split.runs,
                        "labels": split.rule.get("labels"), "rule": split.rule})
    return files, entries
