"""The JSON files of Flaws of ImageNet (klarajanouskova/ImageNet).

- `expert_356_357_358_359.json`: an expert's relabeling of the 200 images of the
  weasel-family classes 356-359: `{image: {old_label, new_label, detailed_labels,
  label_type[, selected_classes]}}`. `label_type` basic: `new_label` is a class;
  multilabel: a list of classes; custom: no ImageNet class fits (the animal is
  named in `detailed_labels`); uncertain: no label (`selected_classes` are the
  classes it could be).
- `problem_groups_clusters.json`: 48 groups of classes that overlap or are
  ambiguous, `[{"category": [problem kinds 1-6], "classes": {index: name}}]`,
  stored per class.
"""

from __future__ import annotations

from pathlib import Path

from reviewer.errors import InputError
from reviewer.evidence.kinds import EvidenceKind
from reviewer.evidence.parsed import ParsedSource
from reviewer.importers._read import class_of_index, class_of_label, image_name, shown

EXPERT_FIELDS = ("old_label", "new_label", "label_type")
LABEL_TYPES = ("basic", "multilabel", "custom", "uncertain")

# The problem kinds of the groups, in the words of the repository's classes/problem_groups/CATEGORIES.md.
PROBLEM_KINDS = {
    1: "easily distinguishable by non-experts",
    2: "similar for non-experts",
    3: "one class is a subclass of another",
    4: "one class is a part of another's object",
    5: "near synonyms for non-experts",
    6: "mostly occur together",
}


def looks_like_expert(data: object) -> bool:
    head = list(data.values())[:20] if isinstance(data, dict) else []
    return bool(head) and all(isinstance(v, dict) for v in head) and any(
        "old_label" in v and "new_label" in v for v in head)


def looks_like_groups(data: object) -> bool:
    head = data[:20] if isinstance(data, list) else []
    return bool(head) and all(isinstance(g, dict) for g in head) and any(
        "classes" in g and "category" in g for g in head)


def parse_expert(path: str | Path, data: dict, sha256: str) -> ParsedSource:
    source = str(path)
    items: dict[str, dict] = {}
    for key, entry in data.items():
        name = image_name(key, source=source, record=shown(key))
        record = name
        missing = [f for f in EXPERT_FIELDS if f not in entry]
        if missing:
            raise InputError(source, f"missing {', '.join(repr(f) for f in missing)}", record=record,
                             hint=f"an entry holds {', '.join(EXPERT_FIELDS)}")
        kind = entry["label_type"]
        if kind not in LABEL_TYPES:
            raise InputError(source, f"'label_type' must be one of {', '.join(LABEL_TYPES)}, got {shown(kind)}",
                             record=record)
        new = entry["new_label"]
        if kind == "basic":
            new = [class_of_index(new, source=source, record=record)]
        elif kind == "multilabel":
            if not isinstance(new, list) or not new:
                raise InputError(source, f"a multilabel entry's 'new_label' must list classes, got {shown(new)}",
                                 record=record)
            new = list(dict.fromkeys(class_of_index(c, source=source, record=record) for c in new))
        elif new is not None:
            raise InputError(source, f"a {kind} entry has no 'new_label' (null), got {shown(new)}", record=record)
        detail = entry.get("detailed_labels") or ""
        if not isinstance(detail, str):
            raise InputError(source, f"'detailed_labels' must be text, got {shown(detail)}", record=record)
        candidates = entry.get("selected_classes") or {}
        if not isinstance(candidates, dict):
            raise InputError(source, f"'selected_classes' must map class indices to names, got {shown(candidates)}",
                             record=record)
        items[name] = {"old": class_of_index(entry["old_label"], source=source, record=record), "type": kind,
                       "new": new, "detail": detail[:500],
                       "candidates": [class_of_label(c, source=source, record=record) for c in candidates]}
    if not items:
        raise InputError(source, "holds no images", hint="is the file complete?")
    return ParsedSource(kind=EvidenceKind.FLAWS_EXPERT, path=Path(path), sha256=sha256, items=items,
                        figures={"images": len(items), "classes": len({p["old"] for p in items.values()})})


def parse_groups(path: str | Path, data: list, sha256: str) -> ParsedSource:
    source = str(path)
    rows: list[tuple[int, int, dict]] = []
    group_of: dict[int, int] = {}
    for n, group in enumerate(data):
        record = f"group {n}"
        if not isinstance(group, dict) or "classes" not in group or "category" not in group:
            raise InputError(source, f"expected {{\"category\": [...], \"classes\": {{index: name}}}}, got "
                                     f"{shown(group)}", record=record)
        kinds, classes = group["category"], group["classes"]
        if not isinstance(kinds, list) or not all(k in PROBLEM_KINDS for k in kinds if not isinstance(k, bool)) \
                or any(isinstance(k, bool) for k in kinds):
            raise InputError(source, f"'category' must list problem kinds 1-6, got {shown(kinds)}", record=record)
        if not isinstance(classes, dict) or len(classes) < 2:
            raise InputError(source, f"'classes' must map at least two class indices to names, got {shown(classes)}",
                             record=record)
        members = [class_of_label(c, source=source, record=record) for c in classes]
        for cls in members:
            if cls in group_of and group_of[cls] != n:
                raise InputError(source, f"class {cls} is in groups {group_of[cls]} and {n}", record=record,
                                 hint="a class belongs to one group")
            group_of[cls] = n
        payload = {"kinds": sorted(set(kinds)), "classes": members}
        rows.extend((cls, n, payload) for cls in members)
    if not rows:
        raise InputError(source, "holds no groups", hint="is the file complete?")
    return ParsedSource(kind=EvidenceKind.CLASS_GROUPS, path=Path(path), sha256=sha256, classes=rows,
                        figures={"groups": len(data), "classes": len(rows)})
