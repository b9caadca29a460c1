"""Label files read as evidence: ReaL's `real.json` and the TFDS v3 multi-labels
(the CSV dump or the official JSON). Read by the label importers' own parsers
(the same checks as `import-labels`), then kept as evidence: nothing of them
reaches the labels that metrics use.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from reviewer.evidence.kinds import EvidenceKind
from reviewer.evidence.parsed import ParsedSource
from reviewer.importers import real, tfds, tfds_csv


def parse_real(path: str | Path, data: list, sha256: str) -> ParsedSource:
    """ReaL labels: all 50,000 validation images, [] for an image ReaL leaves out."""
    plan = real.parse(path, data)
    labels: dict[str, list[int]] = {name: [] for name in plan.real_images}
    for name, cls in plan.real_labels:
        labels[name].append(cls)
    items = {name: {"labels": classes} for name, classes in labels.items()}
    return ParsedSource(kind=EvidenceKind.REAL_LABELS, path=Path(path), sha256=sha256, items=items,
                        figures={"images": len(items),
                                 "left out (no label)": sum(1 for c in labels.values() if not c)})


def parse_tfds_csv(path: str | Path, sha256: str) -> ParsedSource:
    return _multilabel(tfds_csv.parse(path), path, sha256)


def parse_tfds_json(path: str | Path, data: dict, sha256: str) -> ParsedSource:
    return _multilabel(tfds.parse(path, data), path, sha256)


def _multilabel(plan, path: str | Path, sha256: str) -> ParsedSource:
    kinds: dict[str, dict[str, list[int]]] = defaultdict(lambda: {"correct": [], "unclear": [], "wrong": []})
    for name, cls, kind in plan.labels:
        kinds[name][kind].append(cls)
    items = {}
    for name in plan.multilabel_images:
        original = plan.images[name].original_label if name in plan.images else None
        items[name] = {"original": original, **kinds[name], "problematic": name in plan.problematic}
    return ParsedSource(kind=EvidenceKind.TFDS_MULTILABEL, path=Path(path), sha256=sha256, items=items,
                        figures={"images": len(items), "problematic": len(plan.problematic)})
