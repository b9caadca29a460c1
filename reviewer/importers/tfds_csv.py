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

from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers._multilabel import MultilabelRecords
from reviewer.importers._plan import ImportPlan
from reviewer.importers._read import class_index_list, class_index_text, image_rows, open_csv, shown

REQUIRED = ("id", "original_label", "proposed_labels", "unclear_multi_labels", "wrong_multi_labels",
            "is_problematic")
KIND_COLUMNS = {"correct": "proposed_labels", "unclear": "unclear_multi_labels", "wrong": "wrong_multi_labels"}
PROBLEMATIC_META = {"reason": "is_problematic in the TFDS imagenet2012_multilabel v3.0.0 CSV dump"}


def looks_like(header: list[str]) -> bool:
    """Whether a CSV header is this dump's (its multi-label columns are there)."""
    columns = {c.strip() for c in header}
    return {"id", "proposed_labels", "wrong_multi_labels"} <= columns


def parse(path: str | Path) -> ImportPlan:
    source = str(path)
    header, reader = open_csv(path)
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(source, f"the header lacks the columns {', '.join(missing)}",
                         hint="expected the TFDS imagenet2012_multilabel CSV dump: " + ", ".join(REQUIRED))
    plan = ImportPlan(kind="tfds_v3_csv", source_path=source)
    records = MultilabelRecords(plan)
    for name, record, cell in image_rows(reader, header, source=source):
        plan.image(name).original_label = class_index_text(cell["original_label"], source=source, record=record,
                                                           column="original_label")
        records.add(name, {kind: class_index_list(cell[column], source=source, record=record, column=column)
                           for kind, column in KIND_COLUMNS.items()})
        flag = cell["is_problematic"]
        if flag not in ("True", "False", "true", "false", "1", "0"):
            raise InputError(source, f"'is_problematic' must be True or False, got {shown(flag)}", record=record)
        if flag in ("True", "true", "1"):
            plan.problematic[name] = dict(PROBLEMATIC_META)
    if not plan.multilabel_images:
        raise InputError(source, "has a header but no rows", hint="is the file complete?")
    return records.finish()
