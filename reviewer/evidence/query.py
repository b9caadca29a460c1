"""Reading evidence: the lines for one mistake, and the queue's bulk questions
(which sources accept a prediction, where they disagree, which images none covers).

Every function takes a session (the caller's unit of work) or a `Project`
(one read of its own).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterable, Iterator

from sqlalchemy import select
from sqlmodel import Session

from db.tables import EvidenceClass, EvidenceItem, EvidenceSource
from reviewer.evidence.consensus import consensus_of
from reviewer.evidence.imagenet_x import imagenet_x_line
from reviewer.evidence.kinds import EvidenceKind, source_title
from reviewer.evidence.lines import EvidenceLine, StoredSourceRow, group_line, image_data, image_line
from reviewer.evidence.verdicts import ACCEPTS, REJECTS, verdict

# The order of the lines: ReaL, cleanlab, Flaws of ImageNet, TFDS, the class groups, then ImageNet-X
# (which describes the image rather than its labels).
LINE_ORDER = (EvidenceKind.REAL_LABELS, EvidenceKind.REAL_RATERS, EvidenceKind.REAL_EXPERTS,
              EvidenceKind.REAL_RATERS_GOLDEN, EvidenceKind.CLEANLAB, EvidenceKind.FLAWS_LABEL_ERRORS,
              EvidenceKind.FLAWS_CLEAN, EvidenceKind.FLAWS_RELABELING, EvidenceKind.FLAWS_EXPERT,
              EvidenceKind.TFDS_MULTILABEL, EvidenceKind.CLASS_GROUPS, EvidenceKind.IMAGENET_X,
              EvidenceKind.IMAGENET_X_TOP)
# Names per IN (...) query: SQLite before 3.32 allows 999 parameters, later ones 32,766; psycopg 65,535.
_IN_CHUNK = 30_000 if sqlite3.sqlite_version_info >= (3, 32) else 900


@contextmanager
def _session(target) -> Iterator[Session]:
    if isinstance(target, Session):
        yield target
    else:
        with target.read() as session:
            yield session


def _sources(session: Session) -> list[StoredSourceRow]:
    rows = session.execute(select(EvidenceSource.id, EvidenceSource.kind, EvidenceSource.file_name,
                                  EvidenceSource.n_items)).all()
    rank = {kind: i for i, kind in enumerate(LINE_ORDER)}
    out = [StoredSourceRow(id=r.id, kind=EvidenceKind(r.kind), title=source_title(r.kind, r.file_name),
                           file_name=r.file_name, n_items=r.n_items) for r in rows]
    return sorted((s for s in out if s.kind in rank), key=lambda s: (rank[s.kind], s.id))


def evidence_for(target, image_name: str, predicted: int, original: int | None = None) -> list[EvidenceLine]:
    """One line per imported source about the image, its predicted class and its original label
    (None: the project has none). Auxiliary files have no line; with ReaL's labels imported, the
    crowd raters' counts are part of the ReaL line. [] when no evidence is imported."""
    with _session(target) as session:
        sources = _sources(session)
        if not sources:
            return []
        items = {source_id: json.loads(payload) for source_id, payload in session.execute(
            select(EvidenceItem.source_id, EvidenceItem.payload).where(EvidenceItem.image_name == image_name))}
        wanted = {predicted} | ({original} if original is not None else set())
        groups = _class_rows(session, wanted)
    return _lines(sources, items, groups, image_name=image_name, predicted=predicted, original=original)


def evidence_for_many(session: Session, mistakes: Iterable[tuple[str, int, int | None]], *, texts: bool = True,
                      rows: dict[str, dict[int, dict]] | None = None
                      ) -> dict[tuple[str, int, int | None], list[EvidenceLine]]:
    """`evidence_for` of many mistakes at once, (image file name, predicted, original) each, in
    two queries rather than three per mistake (a run's thousands of mistakes, categorised in
    bulk): {mistake: its lines}, the same lines `evidence_for` gives. `texts` False: the lines of
    the per-image sources without their words (`lines.image_data`: what a rule reads, in a
    fraction of the time). `rows`: {image: {source: its row}} kept between calls of one read
    (the runs of a report share most images): an image read once is not read again."""
    mistakes = list(dict.fromkeys((str(name), int(cls), None if original is None else int(original))
                                  for name, cls, original in mistakes))
    sources = _sources(session)
    if not sources:
        return {m: [] for m in mistakes}
    items: dict[str, dict[int, dict]] = {} if rows is None else rows
    unread = sorted({name for name, _, _ in mistakes if name not in items})
    for name in unread:
        items[name] = {}
    for source_id, name, payload in _rows_for(session, unread):
        items[name][source_id] = json.loads(payload)
    wanted = {cls for _, cls, _ in mistakes} | {o for _, _, o in mistakes if o is not None}
    groups = _class_rows(session, wanted)
    plan = _plan(sources)
    return {(name, cls, original): _lines(sources, items.get(name, {}), groups, image_name=name, predicted=cls,
                                          original=original, texts=texts, plan=plan)
            for name, cls, original in mistakes}


def _class_rows(session: Session, classes: set[int]) -> dict[int, dict[int, tuple[int, dict]]]:
    """{source: {class: (group, row)}} of the per-class sources (the class groups) for `classes`."""
    groups: dict[int, dict[int, tuple[int, dict]]] = {}
    for source_id, cls, group, payload in session.execute(
            select(EvidenceClass.source_id, EvidenceClass.class_index, EvidenceClass.group_number,
                   EvidenceClass.payload).where(EvidenceClass.class_index.in_(sorted(classes)))):
        groups.setdefault(source_id, {})[cls] = (group, json.loads(payload))
    return groups


# What each source's line is made of (`_plan`): a class-group line, an ImageNet-X line, a per-image one.
_GROUPS, _IMAGENET_X, _IMAGE = "groups", "imagenet_x", "image"


def _plan(sources: list[StoredSourceRow]) -> list[tuple[StoredSourceRow, str, int | None]]:
    """(source, the kind of its line, the id of the source folded into it) of each source with a
    line, in order: worked out once for all the mistakes of a bulk call."""
    crowd = next((s for s in sources if s.kind is EvidenceKind.REAL_RATERS), None)
    has_real = any(s.kind is EvidenceKind.REAL_LABELS for s in sources)
    main_factor = next((s for s in sources if s.kind is EvidenceKind.IMAGENET_X_TOP), None)
    has_factors = any(s.kind is EvidenceKind.IMAGENET_X for s in sources)
    plan = []
    for source in sources:
        if source.kind.per_class:
            plan.append((source, _GROUPS, None))
        elif source.kind is EvidenceKind.IMAGENET_X_TOP and has_factors:
            continue  # its main factor is in the ImageNet-X line
        elif not source.kind.about_labels:
            plan.append((source, _IMAGENET_X, main_factor.id if main_factor else None))
        elif source.kind is EvidenceKind.REAL_RATERS and has_real:
            continue  # its counts are in the ReaL line
        else:
            fold = source.kind is EvidenceKind.REAL_LABELS and crowd is not None
            plan.append((source, _IMAGE, crowd.id if fold else None))
    return plan


def _lines(sources: list[StoredSourceRow], items: dict[int, dict],
           groups: dict[int, dict[int, tuple[int, dict]]], *, image_name: str, predicted: int, original: int | None,
           texts: bool = True, plan: list[tuple] | None = None) -> list[EvidenceLine]:
    """The lines of one mistake from its image's rows (`items`, by source) and the class rows
    (`plan`: `_plan(sources)`, when worked out already; `texts` False: the per-image sources'
    lines without their words)."""
    lines = []
    for source, what, folded in _plan(sources) if plan is None else plan:
        if what == _GROUPS:
            lines.append(group_line(source, groups.get(source.id, {}), predicted=predicted, original=original))
        elif what == _IMAGENET_X:
            lines.append(imagenet_x_line(source, items.get(source.id), image=image_name, original=original,
                                         top=items.get(folded) if folded is not None else None))
        else:
            fold = folded is not None
            raters = items.get(folded) if fold else None
            lines.append(image_line(source, items.get(source.id), image=image_name, predicted=predicted,
                                    original=original, raters=raters, raters_imported=fold) if texts else
                         EvidenceLine(source=source.title, text="", data=image_data(
                             source, items.get(source.id), predicted=predicted, original=original, raters=raters,
                             raters_imported=fold)))
    return lines


@dataclass(frozen=True)
class PairEvidence:
    """What the imported sources say about one (image, predicted class), for the queue's filters.
    Names are the sources' short names; `covered_by` the sources with a row on the image."""

    accepted_by: tuple[str, ...] = ()
    rejected_by: tuple[str, ...] = ()
    covered_by: tuple[str, ...] = ()
    # ReaL's crowd raters' consensus that the class is in the image (reviewer.evidence.consensus);
    # None when they were not asked about it, or no rater file with a consensus is imported.
    consensus: float | None = None

    @property
    def accepted(self) -> bool:
        """Some source accepts the prediction."""
        return bool(self.accepted_by)

    @property
    def disputed(self) -> bool:
        """The sources disagree with each other: some accept the prediction, some reject it."""
        return bool(self.accepted_by) and bool(self.rejected_by)

    @property
    def covered(self) -> bool:
        return bool(self.covered_by)


def _rows_for(session: Session, names: list[str], *, payloads: bool = True) -> Iterator[tuple]:
    columns = (EvidenceItem.source_id, EvidenceItem.image_name) + ((EvidenceItem.payload,) if payloads else ())
    for start in range(0, len(names), _IN_CHUNK):  # one query for any queue under 30,000 images
        yield from session.execute(select(*columns).where(EvidenceItem.image_name.in_(names[start:start + _IN_CHUNK])))


def evidence_by_pair(target, pairs: Iterable[tuple[str, int]]) -> dict[tuple[str, int], PairEvidence]:
    """For each (image file name, predicted class): the sources that accept it, reject it and cover
    the image (`verdicts` holds each source's rule), and the crowd raters' consensus on the class.
    Class groups and auxiliary files take no part."""
    pairs = list(dict.fromkeys((str(name), int(cls)) for name, cls in pairs))
    names = sorted({name for name, _ in pairs})
    with _session(target) as session:
        ordered = [s for s in _sources(session) if not s.kind.per_class and s.kind.about_labels]
        sources = {s.id: s for s in ordered}
        rows: dict[str, list[tuple[StoredSourceRow, dict]]] = {}
        if sources and names:
            for source_id, name, payload in _rows_for(session, names):
                if source_id in sources:
                    rows.setdefault(name, []).append((sources[source_id], json.loads(payload)))
    rank = {s.id: i for i, s in enumerate(ordered)}
    for found in rows.values():
        found.sort(key=lambda row: rank[row[0].id])  # names in the order of the evidence lines
    out = {}
    for name, cls in pairs:
        accepted, rejected, covered, consensus = [], [], [], None
        for source, payload in rows.get(name, ()):
            covered.append(source.title)
            said = verdict(source.kind, payload, cls)
            (accepted if said == ACCEPTS else rejected if said == REJECTS else []).append(source.title)
            if source.kind is EvidenceKind.REAL_RATERS:
                consensus = consensus_of(payload, cls)
        out[(name, cls)] = PairEvidence(tuple(accepted), tuple(rejected), tuple(covered), consensus)
    return out


def uncovered_images(target, image_names: Iterable[str]) -> set[str]:
    """The images no imported source of labels has a row on (cleanlab's 'not flagged' is no row; class
    groups and ImageNet-X, which says nothing of the labels, do not count)."""
    names = sorted(set(image_names))
    with _session(target) as session:
        per_image = {s.id for s in _sources(session) if not s.kind.per_class and s.kind.about_labels}
        seen = {name for source_id, name in _rows_for(session, names, payloads=False) if source_id in per_image} \
            if per_image else set()
    return set(names) - seen
