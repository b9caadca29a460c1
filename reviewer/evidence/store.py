"""Storing checked evidence files, in the caller's transaction (all files or none).

One source of each kind is kept (one per file name for the shared relabeling
layout): the same file again (same kind, same SHA-256) changes nothing and says
so; another file of that kind replaces the stored one and all its rows, so two
versions of one relabeling never speak twice about an image. Nothing here
touches the images, labels or problematic marks that metrics read.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sqlalchemy import delete, func, insert, select
from sqlmodel import Session

from db.engine import EVIDENCE_SOURCES, serialise
from db.tables import EvidenceClass, EvidenceItem, EvidenceSource
from reviewer.errors import UserError
from reviewer.evidence.kinds import EvidenceKind, source_title
from reviewer.evidence.parsed import ParsedSource, describe_figures, dumps

BATCH = 5_000  # rows per executemany (bounded memory for the parameter lists)


@dataclass(frozen=True)
class StoredEvidence:
    """What importing one file did."""

    title: str
    kind: str
    file_name: str
    source_id: int
    status: str  # "imported" | "unchanged" (the same file was there) | "replaced"
    n_items: int
    figures: dict = field(default_factory=dict)
    replaced: tuple[str, ...] = ()  # file names of the sources it replaced
    read_seconds: float = 0.0
    store_seconds: float = 0.0

    def describe(self) -> str:
        what = describe_figures(self.figures) or f"{self.n_items:,} rows"
        if self.status == "unchanged":
            return (f"{self.file_name}: {self.title}, already imported as evidence source {self.source_id} "
                    f"(same file); nothing changed")
        kind = "auxiliary file, checked and recorded" if EvidenceKind(self.kind).auxiliary else self.title
        replaced = f"; replaces {', '.join(self.replaced)}" if self.replaced else ""
        return (f"{self.file_name}: {kind} ({self.kind}): {what}{replaced}; "
                f"read in {self.read_seconds:.2f} s, stored in {self.store_seconds:.2f} s")


def store_evidence(*, session: Session, sources: list[ParsedSource]) -> list[StoredEvidence]:
    """Store checked sources (`sniff.read_evidence_files`) in the session's transaction."""
    serialise(session, EVIDENCE_SOURCES, 0)  # two imports at once on PostgreSQL: one after the other
    return [_store_one(session, source) for source in sources]


def _store_one(session: Session, source: ParsedSource) -> StoredEvidence:
    started = time.perf_counter()
    same = session.execute(select(EvidenceSource).where(
        EvidenceSource.kind == source.kind.value, EvidenceSource.sha256 == source.sha256)).scalars().first()
    if source.stored_id is not None and (same is None or same.id != source.stored_id):
        raise UserError(f"{source.path}: evidence source {source.stored_id} changed while importing (another import "
                        "ran at the same time); nothing was imported, run the command again")
    if same is not None:
        return StoredEvidence(title=source.title, kind=source.kind.value, file_name=source.file_name,
                              source_id=same.id, status="unchanged", n_items=same.n_items, figures=same.figures,
                              read_seconds=source.seconds)
    older = select(EvidenceSource).where(EvidenceSource.kind == source.kind.value)
    if source.kind.one_per_file_name:
        older = older.where(EvidenceSource.file_name == source.file_name)
    replaced = list(session.execute(older).scalars())
    for row in replaced:
        delete_source(session=session, source_id=row.id)
    row = EvidenceSource(kind=source.kind.value, file_name=source.file_name, path=str(source.path.resolve()),
                         sha256=source.sha256, n_items=source.n_items, figures=dict(source.figures))
    session.add(row)
    session.flush()
    connection = session.connection()
    if source.kind.per_class:
        rows = [{"source_id": row.id, "class_index": cls, "group_number": group, "payload": dumps(payload)}
                for cls, group, payload in source.classes]
        _insert(connection, EvidenceClass, rows)
    else:
        items = [{"source_id": row.id, "image_name": name, "payload": dumps(payload)}
                 for name, payload in source.items.items()]
        _insert(connection, EvidenceItem, items)
    return StoredEvidence(title=source.title, kind=source.kind.value, file_name=source.file_name, source_id=row.id,
                          status="replaced" if replaced else "imported", n_items=source.n_items,
                          figures=dict(source.figures), replaced=tuple(r.file_name for r in replaced),
                          read_seconds=source.seconds, store_seconds=time.perf_counter() - started)


def _insert(connection, table, rows: list[dict]) -> None:
    if not rows:
        return
    if connection.dialect.name == "postgresql":
        _copy(connection, table, rows)
        return
    for start in range(0, len(rows), BATCH):
        connection.execute(insert(table.__table__), rows[start:start + BATCH])


def _copy(connection, table, rows: list[dict]) -> None:
    """PostgreSQL's COPY (50,000 rows: 0.37 s, against 1.5 s by executemany, measured)."""
    columns = list(rows[0])
    cursor = connection.connection.driver_connection.cursor()
    with cursor.copy(f"COPY {table.__tablename__} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([row[c] for c in columns])


def delete_source(*, session: Session, source_id: int) -> None:
    """Remove one source and all its rows (in the caller's transaction)."""
    session.execute(delete(EvidenceItem).where(EvidenceItem.source_id == source_id))
    session.execute(delete(EvidenceClass).where(EvidenceClass.source_id == source_id))
    session.execute(delete(EvidenceSource).where(EvidenceSource.id == source_id))


@dataclass(frozen=True)
class SourceInfo:
    id: int
    kind: str
    title: str
    file_name: str
    sha256: str
    imported_at: str
    n_items: int
    figures: dict


def stored_files(*, session: Session) -> dict[str, tuple[int, str, int]]:
    """SHA-256 of each stored source -> (id, kind, rows): the files an import need not read again."""
    return {sha: (id_, kind, n) for id_, kind, sha, n in session.execute(
        select(EvidenceSource.id, EvidenceSource.kind, EvidenceSource.sha256, EvidenceSource.n_items))}


def list_sources(*, session: Session) -> list[SourceInfo]:
    """The imported sources, oldest first."""
    rows = session.execute(select(EvidenceSource).order_by(EvidenceSource.id)).scalars()
    return [SourceInfo(id=r.id, kind=r.kind, title=source_title(r.kind, r.file_name), file_name=r.file_name,
                       sha256=r.sha256, imported_at=r.imported_at.isoformat(), n_items=r.n_items,
                       figures=dict(r.figures)) for r in rows]


def evidence_row_count(*, session: Session) -> int:
    """Rows of all evidence tables (sources, items, classes): what a refused import must leave as it was."""
    return sum(session.execute(select(func.count()).select_from(t)).scalar_one()
               for t in (EvidenceSource, EvidenceItem, EvidenceClass))
