"""An evidence file read and checked, not yet stored: what every reader returns."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.evidence.kinds import EvidenceKind, source_title


@dataclass
class ParsedSource:
    """One file's evidence: per-image payloads, or per-class rows (class groups).

    `figures` are the file's counts (images, questions, raters, ...), stored with
    the source and printed by import-evidence; `seconds` what reading took.
    """

    kind: EvidenceKind
    path: Path
    sha256: str
    items: dict[str, dict] = field(default_factory=dict)  # image file name -> payload
    classes: list[tuple[int, int, dict]] = field(default_factory=list)  # (class index, group number, payload)
    figures: dict = field(default_factory=dict)
    seconds: float = 0.0
    # Set when this very file (same SHA-256) is already stored: the id of that source, and the file was not read again.
    stored_id: int | None = None
    stored_items: int = 0

    @property
    def file_name(self) -> str:
        return self.path.name

    @property
    def title(self) -> str:
        return source_title(self.kind, self.file_name)

    @property
    def n_items(self) -> int:
        """The rows it stores: images, or classes for a per-class source (0 for an auxiliary file)."""
        if self.stored_id is not None:
            return self.stored_items
        return len(self.classes) if self.kind.per_class else len(self.items)


def dumps(payload: dict) -> str:
    """A payload as stored: compact JSON."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


def describe_figures(figures: dict) -> str:
    """'50,000 images, 3,163 without a label': a source's counts in words, as stored."""
    return ", ".join(f"{value:,} {name}" if isinstance(value, int) else f"{name} {value}"
                     for name, value in figures.items())
