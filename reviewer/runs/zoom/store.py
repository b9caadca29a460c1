"""Zoom results stored with the run: one row per (run, image, probe version)
in `zoom_probe`, its result as the compact JSON of `result.to_json`.

A result is computed once (on demand, by whichever panelist asks first) and
read by everyone. Saving again replaces the stored result, except that a
partial result (a stopped probe) never replaces a complete one; two panelists
saving at once leave one row (INSERT ... ON CONFLICT on SQLite and PostgreSQL
alike). These rows are a cache of a computation, not panel history: they
are not append-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import or_, select
from sqlmodel import Session

from db.tables import Image, Model, Prediction, Run, ZoomProbe, utcnow
from reviewer.runs.zoom.result import PROBE_VERSION, ZoomResult, from_json, to_json


@dataclass(frozen=True)
class StoredZoom:
    run_id: int
    image_id: int
    predicted: int
    version: int
    complete: bool
    computed_at: datetime
    result: ZoomResult


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


def save_zoom(*, session: Session, run_id: int, image: int | str, predicted: int, result: ZoomResult) -> bool:
    """Store a probe's result for the run's prediction `predicted` on `image` (id or file
    name). Returns False when a complete result was kept instead of this partial one.

    Refuses (ValueError) a result computed by other weights than the run's model, or
    for a class the run did not predict for the image."""
    run = session.get(Run, run_id)
    if run is None:
        raise KeyError(f"the project has no run {run_id}")
    image_id = _image_id(session, image)
    model = session.get(Model, run.model_id)
    if model.weights_sha256 and result.weights_sha256:
        if model.weights_sha256 != result.weights_sha256:
            raise ValueError(f"the zoom result was computed by other weights ({result.model}, "
                             f"{result.weights_sha256[:12]}) than run {run_id}'s model {model.name} "
                             f"({model.weights_sha256[:12]})")
    elif model.name.split("#")[0] != result.model:
        raise ValueError(f"the zoom result was computed by {result.model}, run {run_id}'s model is {model.name}")
    top1 = session.execute(select(Prediction.pred_1).where(Prediction.run_id == run_id,
                                                           Prediction.image_id == image_id)).scalar_one_or_none()
    if top1 is not None and top1 != predicted:
        raise ValueError(f"run {run_id} predicted class {top1} for image {image_id}, not {predicted}")
    values = {"run_id": run_id, "image_id": image_id, "predicted": int(predicted),
              "probe_version": result.params.version, "complete": result.complete, "payload": to_json(result),
              "computed_at": utcnow()}
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    elif dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    else:  # pragma: no cover - the app runs on SQLite or PostgreSQL
        raise NotImplementedError(f"zoom results are stored on SQLite or PostgreSQL, not {dialect}")
    statement = insert(ZoomProbe).values(**values)
    statement = statement.on_conflict_do_update(
        index_elements=["run_id", "image_id", "probe_version"],
        set_={k: statement.excluded[k] for k in ("predicted", "complete", "payload", "computed_at")},
        # a partial result never replaces a complete one
        where=or_(statement.excluded.complete, ZoomProbe.complete.is_(False)))
    # A row comes back when it was inserted or updated, none when the complete result was kept.
    return session.execute(statement.returning(ZoomProbe.id)).first() is not None


def load_zoom(*, session: Session, run_id: int, image: int | str,
              version: int | None = PROBE_VERSION) -> StoredZoom | None:
    """The stored result of `run_id` on `image` (id or file name), of probe `version`
    (None: the newest stored); None when there is none."""
    image_id = _image_id(session, image)
    query = select(ZoomProbe).where(ZoomProbe.run_id == run_id, ZoomProbe.image_id == image_id)
    if version is not None:
        query = query.where(ZoomProbe.probe_version == version)
    row = session.execute(query.order_by(ZoomProbe.probe_version.desc())).scalars().first()
    if row is None:
        return None
    return StoredZoom(run_id=row.run_id, image_id=row.image_id, predicted=row.predicted,
                      version=row.probe_version, complete=row.complete, computed_at=row.computed_at,
                      result=from_json(row.payload))
