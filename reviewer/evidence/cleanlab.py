"""cleanlab's label errors (cleanlab/label-errors, "Pervasive label errors in test sets").

`imagenet_mturk.json`: the 5,440 validation images confident learning flagged,
each with its given label, the label cleanlab guessed and five MTurk workers'
answers (`given`, `guessed`, `both`, `neither`: counts). cleanlab ran over all
50,000 validation images, so an image it does not list was not flagged.

`imagenet_val_set_index_to_filepath.json` and `imagenet_val_set_original_labels.npy`
are auxiliary: the order of cleanlab's arrays (validation images sorted by class
folder) and the original label at each position. They say nothing about an
image that ImageNet's own labels and the flagged list do not, so they are
checked (50,000 validation images, each once; each label the class of its
folder when both files come together) and recorded, with no rows of their own.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from reviewer.classes.vocabulary import load_classes
from reviewer.errors import InputError
from reviewer.evidence._npz import load_array
from reviewer.evidence.kinds import VAL_IMAGES, EvidenceKind, is_validation_image
from reviewer.evidence.parsed import ParsedSource
from reviewer.importers._read import class_of_index, class_of_wnid, shown

MTURK_ANSWERS = ("given", "guessed", "neither", "both")
FIELDS = ("id", "given_original_label", "our_guessed_label", "mturk")
INDEX_ENTRY = re.compile(r"^(?:.*/)?(n\d{8})/(ILSVRC2012_val_\d{8}\.JPEG)$")
URL_TAIL = re.compile(r"/(n\d{8})/(ILSVRC2012_val_\d{8}\.JPEG)$")


def looks_like_mturk(data: object) -> bool:
    head = data[:20] if isinstance(data, list) else []
    return bool(head) and all(isinstance(r, dict) for r in head) and any(
        "our_guessed_label" in r and "mturk" in r for r in head)


def looks_like_index(data: object) -> bool:
    head = data[:20] if isinstance(data, list) else []
    return bool(head) and all(isinstance(p, str) for p in head) and any(INDEX_ENTRY.match(p) for p in head)


def parse_mturk(path: str | Path, data: list, sha256: str) -> ParsedSource:
    source = str(path)
    items: dict[str, dict] = {}
    for n, record in enumerate(data):
        where = f"entry {n}"
        if not isinstance(record, dict):
            raise InputError(source, f"expected a record object, got {shown(record)}", record=where)
        missing = [f for f in FIELDS if f not in record]
        if missing:
            raise InputError(source, f"missing {', '.join(repr(f) for f in missing)}", record=where,
                             hint=f"a record of cleanlab's imagenet_mturk.json holds {', '.join(FIELDS)}")
        number = record["id"]
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= VAL_IMAGES:
            raise InputError(source, f"'id' must be a validation image's number 1-{VAL_IMAGES}, got {shown(number)}",
                             record=where, hint="293 stands for ILSVRC2012_val_00000293.JPEG")
        name = f"ILSVRC2012_val_{number:08d}.JPEG"
        where = f"entry {n} ({name})"
        if name in items:
            raise InputError(source, f"{name} is listed twice", record=where, hint="keep one of the two entries")
        given = class_of_index(record["given_original_label"], source=source, record=where)
        guessed = class_of_index(record["our_guessed_label"], source=source, record=where)
        url = record.get("url")
        if isinstance(url, str) and url:  # it names the image and its class folder: they must agree
            match = URL_TAIL.search(url)
            if not match or match.group(2) != name:
                raise InputError(source, f"'url' {shown(url)} does not end in .../<wnid>/{name}", record=where)
            if class_of_wnid(match.group(1), source=source, record=where) != given:
                raise InputError(source, f"'url' is in the folder of class {match.group(1)}, but the given label "
                                         f"is {given}", record=where)
        mturk = record["mturk"]
        if not isinstance(mturk, dict) or set(mturk) != set(MTURK_ANSWERS) or any(
                isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 1000 for v in mturk.values()):
            raise InputError(source, f"'mturk' must count the answers {', '.join(MTURK_ANSWERS)}, got {shown(mturk)}",
                             record=where, hint='e.g. {"given": 0, "guessed": 5, "neither": 0, "both": 0}')
        items[name] = {"given": given, "guessed": guessed, "mturk": {k: mturk[k] for k in MTURK_ANSWERS}}
    if not items:
        raise InputError(source, "holds no flagged images", hint="is the file complete?")
    return ParsedSource(kind=EvidenceKind.CLEANLAB, path=Path(path), sha256=sha256, items=items,
                        figures={"flagged images": len(items)})


def parse_index(path: str | Path, data: list, sha256: str) -> tuple[ParsedSource, list[int]]:
    """The index -> file list; returns the source and the class of each position (its folder)."""
    source = str(path)
    classes, seen = [], set()
    for n, entry in enumerate(data):
        match = INDEX_ENTRY.match(entry) if isinstance(entry, str) else None
        if not match or not is_validation_image(match.group(2)):
            raise InputError(source, f"expected a path 'val/<wnid>/ILSVRC2012_val_XXXXXXXX.JPEG', got {shown(entry)}",
                             record=f"index {n}")
        if match.group(2) in seen:
            raise InputError(source, f"{match.group(2)} appears twice", record=f"index {n}")
        seen.add(match.group(2))
        classes.append(class_of_wnid(match.group(1), source=source, record=f"index {n}"))
    if len(classes) != VAL_IMAGES:
        raise InputError(source, f"lists {len(classes):,} images; cleanlab's index lists the {VAL_IMAGES:,} "
                                 "validation images", hint="is the file complete?")
    parsed = ParsedSource(kind=EvidenceKind.CLEANLAB_INDEX, path=Path(path), sha256=sha256,
                          figures={"validation images (auxiliary: cleanlab's order)": len(classes)})
    return parsed, classes


def parse_labels(path: str | Path, sha256: str) -> tuple[ParsedSource, np.ndarray]:
    source = str(path)
    labels = load_array(path)
    if labels.ndim != 1 or labels.dtype.kind not in "iu" or len(labels) != VAL_IMAGES:
        raise InputError(source, f"expected the {VAL_IMAGES:,} original labels of cleanlab's order (integers), got "
                                 f"shape {labels.shape} of {labels.dtype}", hint="is it the right file?")
    bad = np.flatnonzero((labels < 0) | (labels >= len(load_classes())))
    if len(bad):
        raise InputError(source, f"class index must be 0-999, got {int(labels[bad[0]])}", record=f"index {bad[0]}")
    parsed = ParsedSource(kind=EvidenceKind.CLEANLAB_LABELS, path=Path(path), sha256=sha256,
                          figures={"original labels (auxiliary: cleanlab's order)": len(labels)})
    return parsed, labels


def check_together(index: tuple[ParsedSource, list[int]], labels: tuple[ParsedSource, np.ndarray]) -> None:
    """The two auxiliary files given together must agree: label i is the class of index i's folder."""
    differ = np.flatnonzero(np.asarray(index[1]) != labels[1])
    if len(differ):
        n = int(differ[0])
        raise InputError(str(labels[0].path), f"label {int(labels[1][n])} at index {n} differs from the class "
                                              f"folder of {index[0].path.name}'s index {n} (class {index[1][n]}); "
                                              f"{len(differ):,} positions differ", record=f"index {n}",
                         hint="the two files must come from the same cleanlab release")
