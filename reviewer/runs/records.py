"""Database and file records of model runs: model rows, the run's image list,
its files in `runs/`, the lock that keeps one process per run, a run's progress
and result, and the step that ends every run (its mistakes stored).

A run is computed (or imported) as a sequence of units of work by design:
each batch is committed on its own so that a killed run resumes where it
stopped. Those units of work are opened by the lifecycle itself
(`reviewer.runs.compute`, `reviewer.runs.logits`), each named there; every
function here reads or writes through the caller's session.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from filelock import FileLock, Timeout
from sqlalchemy import delete, func, select
from sqlmodel import Session

from db.tables import Image, ImageSlice, Model, Prediction, Run
from reviewer._files import atomic_write_bytes
from reviewer.errors import InputError, UserError
from reviewer.project import Project


@dataclass
class RunResult:
    run_id: int
    model: str
    status: str  # RunStatus: complete | cancelled
    total: int
    predicted: int  # images with predictions (all attempts)
    skipped: list[dict] = field(default_factory=list)  # {image_id, file_name, reason}
    resumed: bool = False
    resumed_from: int = 0  # predictions the run had when this call started
    already_complete: bool = False  # nothing computed: the same run was complete
    seconds: float = 0.0  # this call's computing time
    images_per_second: float = 0.0
    startup_seconds: float = 0.0  # from the call to the first batch's probabilities (models loaded too)
    finish_seconds: float = 0.0  # from the last batch's probabilities to the call's return (storing)
    precision: str = "fp32"
    mistakes: int | None = None
    mistakes_note: str | None = None


@dataclass(frozen=True)
class RunProgress:
    run_id: int
    done: int  # images finished (predicted or skipped), earlier attempts included
    total: int
    skipped: int  # in this attempt
    done_now: int  # images finished in this attempt
    elapsed: float  # seconds of this attempt

    @property
    def images_per_second(self) -> float:
        return self.done_now / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        rate = self.images_per_second
        return (self.total - self.done) / rate if rate > 0 else None


ProgressCallback = Callable[[RunProgress], None]


# -- models ------------------------------------------------------------------------
def model_row(session: Session, *, name: str, source: str, checkpoint: str | None = None,
              weights_sha256: str | None = None) -> Model:
    """The Model row for these weights, created when new.

    A name already used by other weights gets their hash appended
    (`resnet50#1a2b3c4d`), so two checkpoints never share a model row. A
    placeholder row of an imported review (source 'review', no weights) is
    taken over: the run then belongs to the model the review is about.
    """
    suffix = (weights_sha256 or source)[:8]
    for candidate in (name, f"{name}#{suffix}"):
        row = session.execute(select(Model).where(Model.name == candidate)).scalars().first()
        if row is None:
            row = Model(name=candidate, source=source, checkpoint=checkpoint, weights_sha256=weights_sha256)
            session.add(row)
            session.flush()
            return row
        if row.source == "review" and row.weights_sha256 is None:
            row.source, row.checkpoint, row.weights_sha256 = source, checkpoint, weights_sha256
            session.add(row)
            return row
        if row.source == source and row.weights_sha256 == weights_sha256:
            return row
    raise UserError(f"model names {name} and {name}#{suffix} are taken by other weights; "
                    "record this model under another name")


# -- images ------------------------------------------------------------------------
def run_images(*, session: Session, image_slice: str | None, limit: int | None, source: str) -> list[int]:
    """Ids of the images a new run covers: images with files, in id order,
    restricted to a named slice, the first `limit` of them. `source`: the project
    an error names."""
    query = select(Image.id).where(Image.path.is_not(None)).order_by(Image.id)
    if image_slice is not None:
        names = list(session.execute(select(ImageSlice.name).distinct()).scalars())
        if image_slice not in names:
            raise InputError(f"--images {image_slice}", "the project has no image slice of this name",
                             hint=f"slices: {', '.join(sorted(names))}" if names else "the project has no slices")
        query = query.where(Image.id.in_(select(ImageSlice.image_id).where(ImageSlice.name == image_slice)))
    if limit is not None:
        query = query.limit(limit)
    ids = list(session.execute(query).scalars())
    if not ids:
        where = f"slice {image_slice}" if image_slice else "the project"
        raise InputError(source, f"{where} has no images with files to run a model on",
                         hint="add an image folder with 'reviewer import-images PROJECT DIR'")
    return ids


def image_files(project: Project, ids: list[int], *, session: Session
                ) -> tuple[list[Path | None], list[str | None]]:
    """(file path, file name) of each image id; None for images no longer in the project.

    Plain tuples, not ORM objects: a 50,000-image run keeps them for its whole length.
    """
    found: dict[int, tuple[str, str | None]] = {}
    for start in range(0, len(ids), 900):  # SQLite's bound-parameter limit
        chunk = ids[start:start + 900]
        rows = session.execute(select(Image.id, Image.file_name, Image.path).where(Image.id.in_(chunk)))
        found.update({image_id: (name, path) for image_id, name, path in rows})
    # Where Project.stored_path_file puts a stored path (absolute as it is, else under the images'
    # root), with the root read once: read per image (a settings query each), it took 0.9 ms an
    # image before a run's first batch, 18 s at 20,000 images on a busy 2-core machine.
    base = project.images_root or project.root
    paths, names = [], []
    for image_id in ids:
        name, path = found.get(image_id, (None, None))
        names.append(name)
        paths.append(base / path if path else None)  # an absolute path replaces the base
    return paths, names


# -- run files ------------------------------------------------------------------------
def probs_relpath(run_id: int) -> str:
    return f"runs/run_{run_id}.probs.f16.npy"


def images_file(project: Project, run_id: int) -> Path:
    return project.runs_dir / f"run_{run_id}.images.npy"


def save_image_ids(project: Project, run_id: int, ids: list[int]) -> None:
    """The run's image list (row i of the probability file = image ids[i])."""
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(ids, dtype=np.int64))
    atomic_write_bytes(images_file(project, run_id), buffer.getvalue())


def load_image_ids(project: Project, run_id: int) -> list[int] | None:
    path = images_file(project, run_id)
    if not path.exists():
        return None
    return np.load(path).astype(np.int64).tolist()


# -- runs ------------------------------------------------------------------------
def matching_runs(*, session: Session, model_id: int, image_slice: str | None, limit: int | None,
                  fast_decode: bool = False, precision: str = "fp32") -> list[Run]:
    """Runs of this model over the same images with the same decoding and precision, newest first."""
    runs = session.execute(select(Run).where(Run.model_id == model_id).order_by(Run.id.desc())).scalars()
    return [r for r in runs if r.image_slice == image_slice and (r.report or {}).get("limit") == limit
            and fast_decoded(r) == fast_decode and run_precision(r) == precision]


def images_of_run(run: Run) -> str:
    """Which images a run covers, as every report names them: "all", "slice NAME", or
    "first N" for a run limited with --limit (its figures are over those N only)."""
    limit = (run.report or {}).get("limit")
    first = f"first {limit}" if limit else ""
    if run.image_slice is None:
        return first or "all"
    return f"{first} of slice {run.image_slice}" if first else f"slice {run.image_slice}"


def fast_decoded(run: Run) -> bool:
    """Whether the run decoded large JPEGs in draft mode (not timm's exact pixels)."""
    return bool((run.preprocessing or {}).get("jpeg_draft", False))


def run_precision(run: Run) -> str:
    """The number format the run's forward passes computed in (`models.PRECISIONS`); runs
    recorded before precision was a choice computed in fp32 (on a GPU, with cuDNN's TF32)."""
    return (run.preprocessing or {}).get("precision", "fp32")


def predicted_rows(*, session: Session, run_id: int) -> tuple[np.ndarray, np.ndarray]:
    """(image ids, rows) of the images the run has predictions for."""
    result = session.execute(select(Prediction.image_id, Prediction.row).where(Prediction.run_id == run_id)).all()
    table = np.array(result, dtype=np.int64).reshape(len(result), 2)
    return table[:, 0], table[:, 1]


def forget_predictions(*, session: Session, run_id: int, image_ids: np.ndarray | None = None) -> None:
    """Drop a run's predictions (all, or those of `image_ids`) so they are computed again."""
    query = delete(Prediction).where(Prediction.run_id == run_id)
    if image_ids is None:
        session.execute(query)
        return
    ids = [int(i) for i in image_ids]
    for start in range(0, len(ids), 900):
        session.execute(query.where(Prediction.image_id.in_(ids[start:start + 900])))


def prediction_count(*, session: Session, run_id: int) -> int:
    return session.execute(select(func.count()).select_from(Prediction)
                           .where(Prediction.run_id == run_id)).scalar_one()


def top1_counts(*, session: Session, run_id: int) -> tuple[int, int]:
    """(correct, labelled): a run's top-1 predictions that equal the image's original label,
    of those with an original label (what `reviewer predict` prints at the end)."""
    base = (select(func.count()).select_from(Prediction).join(Image, Image.id == Prediction.image_id)
            .where(Prediction.run_id == run_id, Image.original_label.is_not(None)))
    labelled = session.execute(base).scalar_one()
    correct = session.execute(base.where(Prediction.pred_1 == Image.original_label)).scalar_one()
    return int(correct), int(labelled)


def store_run_mistakes(*, session: Session, run_id: int) -> int:
    """What ends a complete run: its mistakes found and stored, their count kept in the run's
    report (`reviewer.runs._end.end_run` runs it as its own unit of work)."""
    from reviewer.runs.mistakes import store_mistakes

    count = store_mistakes(session=session, run_id=run_id).mistakes
    run = session.get(Run, run_id)
    run.report = {**(run.report or {}), "mistakes": count}
    session.add(run)
    return count


class RunLock:
    """An exclusive lock on `runs/run_<id>.lock` while a process computes the run
    (filelock: the kernel drops it when the process dies, so a killed run can be
    resumed at once; a second process is told, not made to wait)."""

    def __init__(self, project: Project, run_id: int):
        self.path = project.runs_dir / f"run_{run_id}.lock"
        self.run_id = run_id
        self._lock = FileLock(self.path, timeout=0)

    def __enter__(self) -> "RunLock":
        try:
            self._lock.acquire()
        except Timeout:
            raise UserError(f"run #{self.run_id} is being computed by another process right now; "
                            "wait for it to finish (or stop it) before resuming") from None
        return self

    def __exit__(self, *exc) -> None:
        self._lock.release()
