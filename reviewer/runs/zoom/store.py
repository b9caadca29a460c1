"""Zoom results stored with the run: rows of `zoom_probe`, each result as the
compact JSON of `result.to_json`, with who computed it.

A result is computed on demand, by whichever panelist asks, and read by everyone.
Rows are appended, never updated: on a panel of database roles a panelist's role
may insert only results under its own name (reviewer.panel.roles), so nobody can
replace another's result, and what a reader sees is chosen here (`choose`):
its own result first, then the owner's or the chair's, then another panelist's
(shown with their name); within each, a complete result before a partial one,
then the newest. Every payload is validated on read (`result.from_json`: the
probe's fixed shape) and must name the run's model; one that does not is passed
over, never shown. These rows are a cache of a computation, not panel history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlmodel import Session

from db.tables import Image, Model, Panelist, Prediction, Run, ZoomProbe, utcnow
from reviewer.runs.zoom.result import PROBE_VERSION, ZoomFormatError, ZoomResult, from_json, to_json

# The longest payload the server stores (migration 0013): a full probe of the paper's grid at
# top-5 is about 20,000 characters.
PAYLOAD_MAX_CHARS = 1_000_000


@dataclass(frozen=True)
class StoredZoom:
    run_id: int
    image_id: int
    predicted: int
    version: int
    complete: bool
    computed_at: datetime
    result: ZoomResult
    computed_by: str | None = None  # the panelist whose process computed it; None: the project's owner


def _image_id(session: Session, image: int | str) -> int:
    """An image id from an id or a file name."""
    if isinstance(image, str):
        found = session.execute(select(Image.id).where(Image.file_name == image)).scalar_one_or_none()
        if found is None:
            raise KeyError(f"the project has no image named {image}")
        return int(found)
    if session.get(Image, int(image)) is None:
        raise KeyError(f"the project has no image with id {image}")
    return int(image)


def _model_mismatch(model: Model, result: ZoomResult) -> str | None:
    """Why `result` cannot be the run's model's (None when it can)."""
    if model.weights_sha256 and result.weights_sha256:
        if model.weights_sha256 != result.weights_sha256:
            return (f"the zoom result was computed by other weights ({result.model}, "
                    f"{result.weights_sha256[:12]}) than the run's model {model.name} ({model.weights_sha256[:12]})")
        return None
    if model.name.split("#")[0] != result.model:
        return f"the zoom result was computed by {result.model}, the run's model is {model.name}"
    return None


def save_zoom(*, session: Session, run_id: int, image: int | str, predicted: int, result: ZoomResult,
              computed_by: int | None = None) -> bool:
    """Store a probe's result for the run's prediction `predicted` on `image` (id or file
    name), computed by the panelist `computed_by` (None: the project's owner). Appends a
    row; returns False, storing nothing, when this partial result would add nothing to a
    complete one the same panelist stored before.

    Refuses (ValueError) a result computed by other weights than the run's model, or
    for a class the run did not predict for the image."""
    run = session.get(Run, run_id)
    if run is None:
        raise KeyError(f"the project has no run {run_id}")
    image_id = _image_id(session, image)
    mismatch = _model_mismatch(session.get(Model, run.model_id), result)
    if mismatch is not None:
        raise ValueError(f"{mismatch} (run {run_id})")
    top1 = session.execute(select(Prediction.pred_1).where(Prediction.run_id == run_id,
                                                           Prediction.image_id == image_id)).scalar_one_or_none()
    if top1 is not None and top1 != predicted:
        raise ValueError(f"run {run_id} predicted class {top1} for image {image_id}, not {predicted}")
    payload = to_json(result)
    if len(payload) > PAYLOAD_MAX_CHARS:
        raise ValueError(f"the zoom result is {len(payload):,} characters as stored, more than the "
                         f"{PAYLOAD_MAX_CHARS:,} the database holds (a smaller top-k)")
    mine = ZoomProbe.computed_by.is_(None) if computed_by is None else ZoomProbe.computed_by == computed_by
    if not result.complete and session.execute(select(ZoomProbe.id).where(
            ZoomProbe.run_id == run_id, ZoomProbe.image_id == image_id,
            ZoomProbe.probe_version == result.params.version, ZoomProbe.complete.is_(True), mine)).first():
        return False  # a partial result never shadows one's own complete one
    session.add(ZoomProbe(run_id=run_id, image_id=image_id, predicted=int(predicted),
                          probe_version=result.params.version, complete=result.complete, payload=payload,
                          computed_at=utcnow(), computed_by=computed_by))
    session.flush()
    return True


def choose(rows: list[ZoomProbe], *, reader_id: int | None, trusted: set[int]) -> list[ZoomProbe]:
    """`rows` of one (run, image) in the order a reader takes them (module docstring):
    the reader's own, then the owner's (computed_by None) or a member of `trusted` (the
    chair), then the others'; complete before partial; the newest first."""
    def rank(row: ZoomProbe):
        tier = 0 if (reader_id is not None and row.computed_by == reader_id) else (
            1 if row.computed_by is None or row.computed_by in trusted else 2)
        return (-row.probe_version, tier, not row.complete, -row.computed_at.timestamp(), -(row.id or 0))
    return sorted(rows, key=rank)


def readable(row: ZoomProbe, model: Model) -> ZoomResult | None:
    """The row's result when its payload is sound and the run's model's, else None."""
    try:
        result = from_json(row.payload)
    except ZoomFormatError:
        return None
    return result if _model_mismatch(model, result) is None else None


def load_zoom(*, session: Session, run_id: int, image: int | str,
              version: int | None = PROBE_VERSION, reader_id: int | None = None) -> StoredZoom | None:
    """The result of `run_id` on `image` (id or file name) that `reader_id` (None: the
    owner) takes (`choose`), of probe `version` (None: the newest stored); None when no
    sound result is stored. Damaged rows and results of another model are passed over."""
    image_id = _image_id(session, image)
    query = select(ZoomProbe).where(ZoomProbe.run_id == run_id, ZoomProbe.image_id == image_id)
    if version is not None:
        query = query.where(ZoomProbe.probe_version == version)
    rows = list(session.execute(query).scalars())
    if not rows:
        return None
    run = session.get(Run, run_id)
    model = session.get(Model, run.model_id)
    chairs = set(session.execute(select(Panelist.id).where(Panelist.is_chair.is_(True))).scalars())
    for row in choose(rows, reader_id=reader_id, trusted=chairs):
        result = readable(row, model)
        if result is None:
            continue
        by = session.get(Panelist, row.computed_by) if row.computed_by is not None else None
        return StoredZoom(run_id=row.run_id, image_id=row.image_id, predicted=row.predicted,
                          version=row.probe_version, complete=row.complete, computed_at=row.computed_at,
                          result=result, computed_by=by.name if by else None)
    return None


@dataclass(frozen=True)
class ChosenZoom:
    """The result a reader takes for one mistake of a run, with whose it is (a panelist's id;
    None: the project's owner)."""

    result: ZoomResult
    computed_by: int | None


def counting_ids(session: Session) -> set[int]:
    """The panelists whose zoom results count in the report and the splits besides the project's
    owner's (computed_by None): the chair's. Any other panelist's result serves their own window
    (and is shown to others with their name) but counts nowhere: on a panel of database roles a
    panelist's role can insert a well-formed result under its own name, computed or not."""
    return set(session.execute(select(Panelist.id).where(Panelist.is_chair.is_(True))).scalars())


def is_counted(row: ZoomProbe, counting: set[int]) -> bool:
    """Whether the stored result counts in the report and the splits (`counting_ids`)."""
    return row.computed_by is None or row.computed_by in counting


@dataclass(frozen=True)
class ZoomProvenance:
    """Whose zoom results a figure counts: the project's owner's and the chair's, and how many
    results of other panelists it leaves out."""

    counted: tuple[str, ...]  # "the project's owner" and the chair's name(s), where they stored results
    left_out: int = 0  # stored results of other panelists, not counted
    left_out_by: tuple[str, ...] = ()

    def text(self) -> str:
        whose = " and ".join(self.counted) if self.counted else "the project's owner and the chair (none stored)"
        out = f"counts the zoom results computed by {whose}"
        if self.left_out:
            out += (f"; {self.left_out} result(s) computed by {', '.join(self.left_out_by)} are not counted (a "
                    "panelist's own probe serves their window; the owner or the chair recomputes it to count it)")
        return out

    def as_dict(self) -> dict:
        return {"counted": list(self.counted), "left_out": self.left_out, "left_out_by": list(self.left_out_by)}


def zoom_provenance(*, session: Session, run_ids: list[int] | None = None) -> ZoomProvenance:
    """Whose stored results of the runs `run_ids` (None: every run) count, and whose do not."""
    query = select(ZoomProbe.computed_by, func.count(ZoomProbe.id)).group_by(ZoomProbe.computed_by)
    if run_ids is not None:
        query = query.where(ZoomProbe.run_id.in_(list(run_ids)))
    by = dict(session.execute(query).all())
    counting = counting_ids(session)
    names = dict(session.execute(select(Panelist.id, Panelist.name)).all())
    counted = (["the project's owner"] if None in by else []) + sorted(
        f"the chair {names.get(i, i)}" for i in by if i is not None and i in counting)
    others = {i: n for i, n in by.items() if i is not None and i not in counting}
    return ZoomProvenance(counted=tuple(counted), left_out=sum(others.values()),
                          left_out_by=tuple(sorted(str(names.get(i, i)) for i in others)))


def run_zooms(*, session: Session, run_id: int, reader_id: int | None = None,
              version: int = PROBE_VERSION, counted_only: bool = False) -> dict[tuple[int, int], ChosenZoom]:
    """{(image id, predicted class): the result `reader_id` takes} for every stored probe of the
    run, by the rules of `load_zoom` (its own first, then the owner's or the chair's, then
    another's; complete before partial; the newest), in one query: what `reviewer zoom`
    resumes from. `counted_only`: only the results that count (`counts`: the owner's and the
    chair's), as the zoom-hard split reads them. Damaged rows and other models' results are
    passed over."""
    run = session.get(Run, run_id)
    if run is None:
        raise KeyError(f"the project has no run {run_id}")
    model = session.get(Model, run.model_id)
    rows: dict[tuple[int, int], list[ZoomProbe]] = {}
    for row in session.execute(select(ZoomProbe).where(ZoomProbe.run_id == run_id,
                                                       ZoomProbe.probe_version == version)).scalars():
        rows.setdefault((int(row.image_id), int(row.predicted)), []).append(row)
    chairs = counting_ids(session)
    out = {}
    for key, candidates in rows.items():
        if counted_only:
            candidates = [row for row in candidates if is_counted(row, chairs)]
        for row in choose(candidates, reader_id=reader_id, trusted=chairs):
            result = readable(row, model)
            if result is not None:
                out[key] = ChosenZoom(result, row.computed_by)
                break
    return out
