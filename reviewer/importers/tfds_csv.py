"""The CSV dump of TFDS `imagenet2012_multilabel` v3.0.0 (split `validation`).

One row per image, as dumped from the TFDS dataset (e.g. by the Flaws of
ImageNet repository, `multilabel.csv`): `id`, `original_label` (class index),
`proposed_labels` (TFDS `correct_multi_labels`), `unclear_multi_labels`,
`wrong_multi_labels` (comma-separated class indices, empty for none) and
`is_problematic` (`True`/`False`). The dump's `category` (A/B/M/Z, derived
from the labels) and `manually_validated` (always True) carry nothing of
their own and are not read. The content is the official
`human_accuracy_v3.0.0.json`'s, with the original labels that file lacks.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers._multilabel import MultilabelRecords
from reviewer.importers._plan import ImportPlan
from reviewer.importers._read import class_of_index, decode_text, image_name, read_bytes, shown

REQUIRED = ("id", "original_label", "proposed_labels", "unclear_multi_labels", "wrong_multi_labels",
            "is_problematic")
KIND_COLUMNS = {"correct": "proposed_labels", "unclear": "unclear_multi_labels", "wrong": "wrong_multi_labels"}
PROBLEMATIC_META = {"reason": "is_problematic in the TFDS imagenet2012_multilabel v3.0.0 CSV dump"}


def looks_like(header: list[str]) -> bool:
    """Whether a CSV header is this dump's (its multi-label columns are there)."""
    columns = {c.strip() for c in header}
    return {"id", "proposed_labels", "wrong_multi_labels"} <= columns


def _classes(text: str, *, source: str, record: str, column: str) -> list[int]:
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not (part.isascii() and part.isdigit() and len(part) <= 4):
            raise InputError(source, f"'{column}' must list class indices 0-999 separated by commas, got "
                                     f"{shown(text)}", record=record)
        out.append(class_of_index(int(part), source=source, record=record))
    return out


def parse(path: str | Path) -> ImportPlan:
    source = str(path)
    text = decode_text(path, read_bytes(path))
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [c.strip() for c in next(reader, [])]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(source, f"the header lacks the columns {', '.join(missing)}",
                         hint="expected the TFDS imagenet2012_multilabel CSV dump: " + ", ".join(REQUIRED))
    at = {name: header.index(name) for name in REQUIRED}
    plan = ImportPlan(kind="tfds_v3_csv", source_path=source)
    records = MultilabelRecords(plan)
    first_line: dict[str, int] = {}
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        record = f"line {line}"
        if len(row) != len(header):
            raise InputError(source, f"has {len(row)} fields where the header has {len(header)}", record=record,
                             hint="is the file complete? a label list must be quoted (\"1, 2\")")
        name = image_name(row[at["id"]], source=source, record=record)
        if name in first_line:
            raise InputError(source, f"{name} is listed twice (lines {first_line[name]} and {line})",
                             record=record, hint="an image has one row; keep one of the two")
        first_line[name] = line
        original = row[at["original_label"]].strip()
        if not (original.isascii() and original.isdigit() and len(original) <= 4):
            raise InputError(source, f"'original_label' must be a class index 0-999, got {shown(original)}",
                             record=record)
        plan.image(name).original_label = class_of_index(int(original), source=source, record=record)
        kinds = {kind: _classes(row[at[column]], source=source, record=record, column=column)
                 for kind, column in KIND_COLUMNS.items()}
        records.add(name, kinds)
        flag = row[at["is_problematic"]].strip()
        if flag not in ("True", "False", "true", "false", "1", "0"):
            raise InputError(source, f"'is_problematic' must be True or False, got {shown(flag)}", record=record)
        if flag in ("True", "true", "1"):
            plan.problematic[name] = dict(PROBLEMATIC_META)
    if not first_line:
        raise InputError(source, "has a header but no rows", hint="is the file complete?")
    return records.finish()
