"""What an importer found, and how it is written: all of it in one transaction.

Parsers read a file into an `ImportPlan` (plain data, validated, nothing
written). `apply_plan` then writes the plan in a single write transaction, so
a malformed record anywhere means nothing is imported.

A multi-label file is the authority on the images it lists: their earlier
multi-labels and problematic flags are replaced by the file's, and they join
the multi-label evaluation set (`Image.multilabel`). A ReaL file likewise
replaces the ReaL labels of its images. Importing the same file twice, or an
export of it, therefore leaves the labels as they were; and the same file
imported again (the natural retry after a crash) adds no second label source
and no second problematic mark: its images' marks are the file's, as their flags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import delete, insert, select, update
from sqlmodel import Session

from db.tables import Image, ImageSlice, Label, LabelSource, ProblematicMark
from reviewer._files import sha256_file

VAL_NAME = re.compile(r"^ILSVRC2012_val_(\d{8})\.JPEG$")


def val_index(file_name: str) -> int | None:
    """ILSVRC2012_val_00000001.JPEG -> 0; None for other names."""
    match = VAL_NAME.match(file_name)
    return int(match.group(1)) - 1 if match else None


@dataclass
class ImageEntry:
    path: str | None = None
    original_label: int | None = None


@dataclass
class ImportPlan:
    """Everything one input file contributes to a project."""

    kind: str
    source_path: str
    images: dict[str, ImageEntry] = field(default_factory=dict)
    # (file_name, class_index, kind) in the multi-label set, and in the ReaL set.
    labels: list[tuple[str, int, str]] = field(default_factory=list)
    real_labels: list[tuple[str, int]] = field(default_factory=list)
    problematic: dict[str, dict] = field(default_factory=dict)
    slices: dict[str, list[str]] = field(default_factory=dict)
    # Images whose multi-labels the file gives (their earlier ones are replaced; they join
    # the multi-label set), and images whose ReaL labels it gives.
    multilabel_images: list[str] = field(default_factory=list)
    real_images: list[str] = field(default_factory=list)
    # Images that label rows may reference without the file naming them itself.
    create_missing_images: bool = True
    # Facts of the file worth a line of the summary (e.g. classes listed under two kinds).
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def image(self, file_name: str) -> ImageEntry:
        return self.images.setdefault(file_name, ImageEntry())

    def referenced_images(self) -> set[str]:
        """Every image the file names: its own entries and those its labels, marks and slices name."""
        referenced = set(self.images)
        referenced.update(f for f, _, _ in self.labels)
        referenced.update(f for f, _ in self.real_labels)
        referenced.update(self.real_images)  # also those ReaL leaves out ([]): they are images of the set
        referenced.update(self.problematic)
        for files in self.slices.values():
            referenced.update(files)
        return referenced

    def images_without_file(self, project_images: set[str]) -> set[str]:
        """The images this plan would add to a project holding `project_images`, without a file."""
        return {name for name in self.referenced_images() - project_images
                if (self.create_missing_images or name in self.images)
                and not (name in self.images and self.images[name].path)}


@dataclass
class ImportSummary:
    kind: str
    source: str
    images_added: int = 0
    images_updated: int = 0
    labels: int = 0
    multilabel_images: int = 0
    real_labels: int = 0
    problematic: int = 0
    slices: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def describe(self) -> str:
        parts = [f"{self.kind} from {self.source}:", f"{self.images_added} images added"]
        if self.images_updated:
            parts.append(f"{self.images_updated} updated")
        if self.multilabel_images:
            parts.append(f"{self.multilabel_images} images in the multi-label set")
        if self.labels:
            parts.append(f"{self.labels} labels")
        if self.real_labels:
            parts.append(f"{self.real_labels} ReaL labels")
        if self.problematic:
            parts.append(f"{self.problematic} problematic")
        for name, count in self.slices.items():
            parts.append(f"slice '{name}' of {count}")
        return ", ".join(parts[:1]) + " " + ", ".join(parts[1:])


def apply_plan(*, session: Session, plan: ImportPlan) -> ImportSummary:
    """Write `plan` into the project (in the caller's transaction: all of it or nothing)."""
    summary = ImportSummary(kind=plan.kind, source=plan.source_path, notes=list(plan.notes),
                            warnings=list(plan.warnings))
    source = _label_source(session, plan)
    ids = _write_images(session, plan, summary)
    members = [ids[name] for name in plan.multilabel_images]
    # The file decides its images' problematic marks, as it decides their flags: marks
    # of an earlier import of them go (a retry would otherwise mark them twice).
    for chunk in _chunks(sorted(set(members) | {ids[name] for name in plan.problematic})):
        session.execute(delete(ProblematicMark).where(ProblematicMark.image_id.in_(chunk)))
    _replace_labels(session, "multilabel", plan.labels, members, ids, source.id)
    _replace_labels(session, "real", [(f, c, "correct") for f, c in plan.real_labels],
                    [ids[name] for name in plan.real_images], ids, source.id)
    for chunk in _chunks(members):
        # The file decides these images' problematic flag: those it lists are set below.
        session.execute(update(Image).where(Image.id.in_(chunk)).values(multilabel=True, problematic=False))
    summary.labels, summary.real_labels = len(set(plan.labels)), len(set(plan.real_labels))
    summary.multilabel_images = len(members)
    if plan.problematic:
        for chunk in _chunks([ids[name] for name in plan.problematic]):
            session.execute(update(Image).where(Image.id.in_(chunk)).values(problematic=True))
        session.connection().execute(
            insert(ProblematicMark.__table__),
            [{"image_id": ids[n], "source_id": source.id, "meta": meta} for n, meta in plan.problematic.items()],
        )
        summary.problematic = len(plan.problematic)
    for name, files in plan.slices.items():
        session.execute(ImageSlice.__table__.delete().where(ImageSlice.name == name))
        if files:
            session.connection().execute(insert(ImageSlice.__table__), [{"name": name, "image_id": ids[f]} for f in files])
        summary.slices[name] = len(files)
    return summary


def _label_source(session: Session, plan: ImportPlan) -> LabelSource:
    """The file's label source: the row of an earlier import of the same file (same kind
    and contents, or for a folder the same path) when there is one, else a new row."""
    sha = sha256_file(plan.source_path) if Path(plan.source_path).is_file() else ""
    same = select(LabelSource).where(LabelSource.kind == plan.kind, LabelSource.sha256 == sha)
    if not sha:
        same = same.where(LabelSource.path == str(plan.source_path))
    source = session.execute(same.order_by(LabelSource.id).limit(1)).scalars().first()
    if source is None:
        source = LabelSource(kind=plan.kind, path=str(plan.source_path), sha256=sha)
        session.add(source)
        session.flush()
    return source


def _write_images(session: Session, plan: ImportPlan, summary: ImportSummary) -> dict[str, int]:
    existing = {name: (id_, path, label) for id_, name, path, label in session.execute(
        select(Image.id, Image.file_name, Image.path, Image.original_label))}
    referenced = plan.referenced_images()
    new_rows, updates, relabelled = [], [], []
    for name in referenced:
        entry = plan.images.get(name, ImageEntry())
        if name in existing:
            id_, path, label = existing[name]
            changes = {}
            if entry.path and entry.path != path:
                changes["path"] = entry.path
            if entry.original_label is not None and entry.original_label != label:
                changes["original_label"] = entry.original_label
                if label is not None:
                    relabelled.append(name)
            if changes:
                updates.append({"id": id_, **changes})
        elif plan.create_missing_images or name in plan.images:
            new_rows.append({
                "file_name": name, "path": entry.path, "original_label": entry.original_label,
                "problematic": False, "val_index": val_index(name),
            })
    if new_rows:
        # Core inserts (not ORM bulk): several times faster on 50,000 rows.
        session.connection().execute(insert(Image.__table__), sorted(new_rows, key=lambda r: r["file_name"]))
    for row in updates:  # few: paths or labels refreshed by a later import
        session.execute(update(Image).where(Image.id == row.pop("id")).values(**row))
    summary.images_added, summary.images_updated = len(new_rows), len(updates)
    if relabelled:
        shown = ", ".join(sorted(relabelled)[:3]) + (", ..." if len(relabelled) > 3 else "")
        summary.warnings.append(f"the original label of {len(relabelled)} images changed to this file's ({shown})")
    return {name: id_ for id_, name in session.execute(select(Image.id, Image.file_name))}


def _chunks(ids: list[int], size: int = 900):
    """Id lists short enough for one IN (...) on every database (SQLite's parameter limit)."""
    for start in range(0, len(ids), size):
        yield ids[start:start + size]


def _replace_labels(session: Session, label_set: str, rows: list[tuple[str, int, str]], replaced: list[int],
                    ids: dict[str, int], source_id: int) -> None:
    """The labels of the `replaced` images become exactly `rows` (theirs, from this file)."""
    for chunk in _chunks(replaced):
        session.execute(delete(Label).where(Label.label_set == label_set, Label.image_id.in_(chunk)))
    unique = dict.fromkeys((ids[name], cls, kind) for name, cls, kind in rows)
    if unique:
        session.connection().execute(insert(Label.__table__), [
            {"label_set": label_set, "image_id": image_id, "class_index": cls, "kind": kind,
             "source_id": source_id} for image_id, cls, kind in unique])
