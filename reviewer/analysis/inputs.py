"""What the report's figures read, as cheap aggregates: the keys they are kept under
(`reviewer.analysis.cache`).

Each figure's key must change whenever anything it reads changes, so it is built
from the tables themselves, not from what the app remembers doing to them:

- a small table (settings, label sources, models, runs, panelists, reviews, evidence
  sources) is read whole, every column of every row;
- a large table gives its row count, its largest id and a checksum: the sum over its
  rows of a mix of every column (numbers as they are, booleans as 0/1, reals to six
  decimals, text by its length and its lengths without 'c' and without 'e', so
  'correct', 'wrong' and 'unclear' differ; times by their latest value). A row
  deleted and written again under the same id with other values changes the sum;
- the panel's history (votes, decisions, notes) is append-only (migration 0005's
  triggers): its count and largest id say everything;
- a run's predictions are written with its 'complete' in one transaction and never
  changed after (`reviewer.runs.logits`, `reviewer.runs.compute`): the run's row
  (status, start and finish times, number of images, probability file) and its
  probability file's size and modification time stand for them;
- files: the run's probability files, the neighbour index's files (`reviewer index`).

`TABLES_READ` names what `report_inputs` covers; tests/analysis/test_figure_cache.py
checks that it names every table of the schema but those the report never reads
(`NOT_READ`), so a new table cannot be forgotten.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import BigInteger, Boolean, DateTime, Float, Integer, String, cast, func, literal, select
from sqlmodel import Session

from db.tables import (
    Decision,
    DiscussionNote,
    EvidenceClass,
    EvidenceItem,
    EvidenceSource,
    Image,
    ImageSlice,
    ImportedReview,
    ImportedReviewItem,
    Label,
    LabelSource,
    Mistake,
    Model,
    Panelist,
    Prediction,
    ProblematicMark,
    ProjectSetting,
    Run,
    Vote,
    ZoomProbe,
)
from reviewer.project import Project

MODULUS = 2147483647  # 2**31 - 1: each row's mix stays below it, a sum of 2**32 rows fits 63 bits
MULTIPLIER = 1000003
LETTERS = ("c", "e")  # text's signature: its length and its lengths without each of these

SMALL_TABLES = (ProjectSetting, LabelSource, Model, Run, Panelist, ImportedReview, EvidenceSource)
APPEND_ONLY = (Vote, Decision, DiscussionNote)
LABEL_TABLES = (Image, Label, ProblematicMark, ImportedReviewItem, ImageSlice)
OTHER_LARGE = (Mistake, EvidenceItem, EvidenceClass, ZoomProbe)
TABLES_READ = frozenset(t.__tablename__ for t in (*SMALL_TABLES, *APPEND_ONLY, *LABEL_TABLES, *OTHER_LARGE,
                                                  Prediction))
NOT_READ = {"app_lock": "the locks of a read-then-write: no figure reads them",
            "alembic_version": "the schema's version: the code fingerprint covers what reads it"}


def _column_terms(column) -> list:
    """Integer SQL terms standing for a column's value in a row's mix."""
    kind = column.type
    if isinstance(kind, DateTime):
        return []  # times are summed as their latest value (`_large`)
    if isinstance(kind, Boolean):
        return [func.coalesce(cast(column, Integer), 2)]
    if isinstance(kind, (Integer, BigInteger)):
        return [func.coalesce(column, -1) % MODULUS]
    if isinstance(kind, Float):
        return [func.coalesce(cast(func.round(column * 1000000), BigInteger), -1) % MODULUS]
    if isinstance(kind, String):
        text = func.coalesce(column, "")
        return [func.length(text)] + [func.length(func.replace(text, letter, "")) for letter in LETTERS]
    return []  # JSON: in small tables only


def _mix(table) -> object:
    """A row's mix of every column, below MODULUS (every step stays within 63 bits)."""
    mix = literal(7, BigInteger)
    for column in table.__table__.columns:
        for term in _column_terms(column):
            mix = (mix * MULTIPLIER + cast(term, BigInteger) + 3) % MODULUS
    return mix


def _large(session: Session, table, *, group=None) -> object:
    """[count, largest id, checksum, latest time] of a large table (per `group` value when given)."""
    times = [c for c in table.__table__.columns if isinstance(c.type, DateTime)]
    columns = [func.count(), func.max(table.__table__.c.id), func.sum(_mix(table)),
               *(func.max(c) for c in times)]
    query = select(*columns) if group is None else select(group, *columns).group_by(group).order_by(group)
    rows = [[_plain(v) for v in row] for row in session.execute(query).all()]
    return rows[0] if group is None else {str(row[0]): row[1:] for row in rows}


def _plain(value):
    """A value as JSON takes it: numbers (PostgreSQL's sums are Decimal) as int, the rest as text."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (str, bytes)) or not hasattr(value, "as_integer_ratio"):
        return str(value)
    return int(value)


def _count_and_last(session: Session, table) -> list:
    count, last = session.execute(select(func.count(), func.max(table.__table__.c.id))).one()
    return [int(count), None if last is None else int(last)]


def _whole(session: Session, table) -> list:
    """Every row of a small table, every column, by primary key."""
    t = table.__table__
    return [[_plain(v) for v in row] for row in session.execute(select(t).order_by(*t.primary_key.columns)).all()]


def _file(path: Path | None) -> list | None:
    if path is None:
        return None
    try:
        stat = path.stat()
    except OSError:
        return [str(path), None]
    return [str(path), stat.st_size, stat.st_mtime_ns]


def setting_inputs(*, session: Session) -> list:
    """Every project setting (the panel's rules, its scope, the slices' rules, the revision of
    the stored mistakes, ...): all of them, so a new one is covered without a word here."""
    return _whole(session, ProjectSetting)


def label_inputs(*, session: Session) -> dict:
    """What the labels before the panel's review read: images, labels and their sources,
    problematic marks, imported reviews' items (judged wrong), slices (PatchML sets) and
    the settings."""
    return {"settings": setting_inputs(session=session), "label_source": _whole(session, LabelSource),
            **{t.__tablename__: _large(session, t) for t in LABEL_TABLES}}


def run_inputs(project: Project, run: Run, model: Model) -> dict:
    """One run: its row, its model's and its probability file (module docstring). The run's
    `report` is left out: it holds counts the app rewrites after the run (its mistakes when
    a label import recomputes them), which its predictions and figures do not read; the
    report's summary, which does, is under `report_inputs`."""
    path = project.root / run.probs_path if run.probs_path else None
    return {"run": _row(run, leave_out=("report",)), "model": _row(model), "probabilities": _file(path)}


def _row(row, *, leave_out: tuple[str, ...] = ()) -> list:
    """Every column of an ORM row but `leave_out`, in the table's order."""
    return [_plain(getattr(row, c.name)) for c in type(row).__table__.columns if c.name not in leave_out]


def reader(*, session: Session) -> str | None:
    """Who reads: on PostgreSQL, the database role, whose row-level security may hide
    others' votes (a blind panel); None on SQLite, where everyone reads every row."""
    if session.connection().dialect.name != "postgresql":
        return None
    return str(session.execute(select(func.current_user())).scalar_one())


def panel_inputs(*, session: Session) -> dict:
    """What the panel's figures read: panelists, the append-only history (as the reader may
    see it), every run's stored mistakes (the panel's items) and the settings (its rules)."""
    return {"reader": reader(session=session), "settings": setting_inputs(session=session),
            "panelist": _whole(session, Panelist),
            **{t.__tablename__: _count_and_last(session, t) for t in APPEND_ONLY},
            "mistake": _large(session, Mistake, group=Mistake.run_id)}


def evidence_inputs(*, session: Session) -> dict:
    """What the suggestions read besides the labels and the run (`reviewer.review.suggest`):
    the imported evidence sources, their per-image and per-class rows."""
    return {"evidence_source": _whole(session, EvidenceSource),
            **{t.__tablename__: _large(session, t) for t in (EvidenceItem, EvidenceClass)}}


def panel_status_inputs(*, session: Session, items: bool) -> dict:
    """What `reviewer.app.panel_status` reads: the panel's inputs (panelists, the history as the
    reader may see it, every run's stored mistakes, the settings that hold the scope and the
    rules), the runs and their models (an item names the models that made it), the slices a
    scope may name, the imported reviews' items (an item only they list still counts) and the
    runs' predictions through their rows (an item with a history that a run still predicts
    is "no longer a mistake"); with `items`, the images, whose file names it prints."""
    return {"panel": panel_inputs(session=session), "run": _whole(session, Run), "model": _whole(session, Model),
            "image_slice": _large(session, ImageSlice), "imported_review_item": _large(session, ImportedReviewItem),
            "image": _large(session, Image) if items else None}


def report_inputs(project: Project, *, session: Session, labels: dict, panel: dict,
                  evidence: dict | None = None) -> dict:
    """Everything the report reads (`TABLES_READ`, the probability files, the neighbour index)
    and the project's folder, which the report names; `labels`, `panel` and `evidence` are
    `label_inputs`, `panel_inputs` and `evidence_inputs` of the same session (the evidence's
    read here when not given)."""
    from reviewer.neighbours.store import INDEX_FOLDER  # here: numpy's import is not every key's cost

    index = project.root / INDEX_FOLDER
    index_files = sorted(_file(Path(folder) / name) for folder, _, names in os.walk(index) for name in names) \
        if index.is_dir() else []
    runs = session.execute(select(Run).order_by(Run.id)).scalars().all()
    return {
        "root": str(project.root), "labels": labels, "panel": panel,
        **{t.__tablename__: _whole(session, t) for t in SMALL_TABLES if t not in (ProjectSetting, LabelSource,
                                                                                 Panelist, EvidenceSource)},
        "evidence": evidence_inputs(session=session) if evidence is None else evidence,
        "zoom_probe": _large(session, ZoomProbe),
        "probabilities": [_file(project.root / r.probs_path if r.probs_path else None) for r in runs],
        "index": index_files,
    }
