"""The CSV files of Flaws of ImageNet (klarajanouskova/ImageNet, ICLR 2025 blog post).

- `clean_validation.csv` (`id, original_label, proposed_labels, validation`): the
  36,415 images on which several published corrections agree; `validation` has
  one `+` per source that validated the image by hand and one `*` per source
  that did not.
- `label_errors.csv`: cleanlab's 5,440 flagged images with the MTurk answers
  (`cl_label`, `mturk`) and the category the MTurk majority gives (A: the given
  label, B: cleanlab's, M: both, Z: neither, X: no majority).
- the relabeling layout `id, category, original_label, proposed_labels,
  manually_validated` (`finegrained.csv`, 10,000 images: A/B/M proposed labels,
  X ambiguous, Z no label).
"""

from __future__ import annotations

import re
from pathlib import Path

from reviewer.errors import InputError
from reviewer.evidence.kinds import EvidenceKind
from reviewer.evidence.parsed import ParsedSource
from reviewer.importers._read import class_index_list, class_index_text, image_rows, open_csv, shown

CLEAN = ("id", "original_label", "proposed_labels", "validation")
RELABELING = ("id", "category", "original_label", "proposed_labels", "manually_validated")
LABEL_ERRORS = (*RELABELING, "cl_label", "mturk")
CATEGORIES = ("A", "B", "M", "X", "Z")
NO_LABEL = ("X", "Z")  # categories without a proposed label
# Python's repr of the MTurk counts, e.g. {'given': 5, 'guessed': 0, 'neither': 0, 'both': 0}: read by pattern, never
# evaluated.
MTURK = re.compile(r"^\{\s*'given':\s*(\d{1,4}),\s*'guessed':\s*(\d{1,4}),\s*'neither':\s*(\d{1,4}),"
                   r"\s*'both':\s*(\d{1,4})\s*\}$")


def kind_of_header(header: list[str]) -> EvidenceKind | None:
    columns = set(header)
    if set(CLEAN) <= columns:
        return EvidenceKind.FLAWS_CLEAN
    if set(LABEL_ERRORS) <= columns:
        return EvidenceKind.FLAWS_LABEL_ERRORS
    if set(RELABELING) <= columns and "wrong_multi_labels" not in columns:
        return EvidenceKind.FLAWS_RELABELING
    return None


def parse(path: str | Path, kind: EvidenceKind, sha256: str) -> ParsedSource:
    source = str(path)
    header, reader = open_csv(path)
    items: dict[str, dict] = {}
    for name, record, cell in image_rows(reader, header, source=source):
        payload = {"original": class_index_text(cell["original_label"], source=source, record=record,
                                                column="original_label"),
                   "proposed": list(dict.fromkeys(class_index_list(cell["proposed_labels"], source=source,
                                                                   record=record, column="proposed_labels")))}
        if kind is EvidenceKind.FLAWS_CLEAN:
            marks = cell["validation"]
            if not marks or set(marks) - {"+", "*"}:
                raise InputError(source, f"'validation' must be '+' and '*' marks (one per source), got "
                                         f"{shown(marks)}", record=record)
            if not payload["proposed"]:
                raise InputError(source, "a clean-set image must have a proposed label", record=record)
            payload.update(validated=marks.count("+"), unvalidated=marks.count("*"))
        else:
            category = cell["category"]
            if category not in CATEGORIES:
                raise InputError(source, f"'category' must be one of {', '.join(CATEGORIES)}, got {shown(category)}",
                                 record=record)
            if (category in NO_LABEL) != (not payload["proposed"]):
                raise InputError(source, f"category {category} with proposed labels {shown(cell['proposed_labels'])}:"
                                         " X and Z have none, A, B and M at least one", record=record)
            payload["category"] = category
        if kind is EvidenceKind.FLAWS_LABEL_ERRORS:
            payload["guessed"] = class_index_text(cell["cl_label"], source=source, record=record, column="cl_label")
            match = MTURK.match(cell["mturk"])
            if not match:
                raise InputError(source, f"'mturk' must count the answers given, guessed, neither and both, got "
                                         f"{shown(cell['mturk'])}", record=record,
                                 hint="e.g. {'given': 5, 'guessed': 0, 'neither': 0, 'both': 0}")
            payload["mturk"] = dict(zip(("given", "guessed", "neither", "both"), map(int, match.groups())))
        items[name] = payload
    if not items:
        raise InputError(source, "has a header but no rows", hint="is the file complete?")
    figures = {"images": len(items)}
    if kind is EvidenceKind.FLAWS_CLEAN:
        figures["validated by hand by at least one source"] = sum(1 for p in items.values() if p["validated"])
    else:
        figures["without a proposed label"] = sum(1 for p in items.values() if not p["proposed"])
    return ParsedSource(kind=kind, path=Path(path), sha256=sha256, items=items, figures=figures)
