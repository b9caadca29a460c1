"""Helpers of the evidence tests (imported by name: tests/ has no packages)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select

from db.tables import (
    EvidenceClass,
    EvidenceItem,
    EvidenceSource,
    Image,
    ImageSlice,
    Label,
    LabelSource,
    ProblematicMark,
)
from reviewer.project import Project

GROUND_TRUTH = (Image, Label, LabelSource, ProblematicMark, ImageSlice)
EVIDENCE = (EvidenceSource, EvidenceItem, EvidenceClass)


def published_files(folder: Path) -> list[Path]:
    """Every file of the published folder but its README, as they are."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != "README.md")


def table_counts(project: Project, tables=EVIDENCE) -> dict[str, int]:
    with project.read() as session:
        return {t.__tablename__: session.execute(select(func.count()).select_from(t)).scalar_one() for t in tables}
