"""The zoom probe as acts: run it for one mistake (on a worker thread, with partial
results as it goes), store it with the run, and read what is stored, with each
crop's outcome for the mistake (`reviewer.runs.zoom`).

The model is the run's own: loaded once per (architecture, checkpoint) and kept,
so a second probe starts at once. A result is stored as soon as the first pass
is done and again when complete, so every panelist sees it and a closed window
loses at most the scales in flight.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from db.tables import Image, Model, Run
from reviewer.app.changes import Changes, Done
from reviewer.errors import InputError, UserError
from reviewer.items import Item
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.project import Project
from reviewer.runs.zoom.grid import open_image
from reviewer.runs.zoom.result import ZoomCell, ZoomResult, ZoomSummary, accepted_classes, summarise, zoom_cells
from reviewer.runs.zoom.store import load_zoom, save_zoom

# torch and the models are imported by the acts that run a model, not by reading results.
_MODELS: dict = {}  # (architecture, checkpoint) -> models.Classifier
_MODELS_LOCK = threading.Lock()


@dataclass(frozen=True)
class ZoomView:
    """A zoom result as the window and `reviewer show` present it for one mistake."""

    result: ZoomResult
    cells: tuple[ZoomCell, ...]
    summary: ZoomSummary
    accepted: frozenset[int]
    computed_by: str | None = None  # the panelist whose result this is; None: the owner's, or one's own

    def text(self) -> str:
        s = self.summary
        done = f"{self.result.done}/{self.result.total} crops"
        if s.corrected:
            scales = ", ".join(str(x) for x in s.corrected_scales[:8]) + ("…" if len(s.corrected_scales) > 8 else "")
            n = len(s.corrected_cells)
            return f"{n} crop{' answers' if n == 1 else 's answer'} an accepted label (scales {scales}); {done}"
        return f"no crop answers an accepted label; {done}" + ("" if self.result.complete else " (partial)")


class ZoomError(UserError):
    """The probe cannot run for this mistake: no image file, a run without its model, ..."""


def run_classifier(project: Project, run_id: int):
    """The run's model (a `models.Classifier`), loaded once and kept."""
    from models import Classifier, load_model
    from models.errors import ModelInputError

    with project.read() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise ZoomError(f"the project has no run {run_id}")
        model = session.get(Model, run.model_id)
        arch = (run.preprocessing or {}).get("architecture") or model.name.split(":")[0]
        source, checkpoint = model.source, model.checkpoint
    if source not in ("hub", "bundled", "checkpoint"):
        raise ZoomError(f"run {run_id} ({model.name}) was imported as {source}, without its model: the zoom probe "
                        "needs the model itself (run it with 'reviewer predict')")
    key = (arch, checkpoint)
    with _MODELS_LOCK:
        if key not in _MODELS:
            try:
                loaded = load_model(arch, checkpoint=Path(checkpoint) if checkpoint else None, device="cpu")
            except ModelInputError as exc:
                raise InputError(exc.source, exc.problem, hint=exc.hint) from exc
            _MODELS[key] = Classifier(loaded)
        return _MODELS[key]


def stored_zoom(project: Project, *, run_id: int, item: Item, reader_id: int | None = None) -> ZoomView | None:
    """The stored result of the mistake's probe that the panelist `reader_id` takes (its own
    first, then the owner's or chair's, then another's: reviewer.runs.zoom.store), with each
    crop's outcome and who computed it, or None."""
    with project.read() as session:
        stored = load_zoom(session=session, run_id=run_id, image=item.image_id, reader_id=reader_id)
        if stored is None or stored.predicted != item.predicted:
            return None  # (the usual case, read for every mistake shown: one indexed query, no labels)
        labels = reviewed_labelset(session=session, after_review=False)
        mine = reader_id is not None and stored.computed_by is not None and _name(session, reader_id) == \
            stored.computed_by
    return view_of(stored.result, item=item, accepted=accepted_classes(labels, item.image_id),
                   computed_by=None if mine else stored.computed_by)


def _name(session, reviewer_id: int) -> str | None:
    from db.tables import Reviewer

    row = session.get(Reviewer, reviewer_id)
    return row.name if row else None


def view_of(result: ZoomResult, *, item: Item, accepted: frozenset[int], computed_by: str | None = None) -> ZoomView:
    return ZoomView(result=result, cells=tuple(zoom_cells(result, predicted=item.predicted, accepted=accepted)),
                    summary=summarise(result, predicted=item.predicted, accepted=accepted), accepted=accepted,
                    computed_by=computed_by)


def run_zoom(project: Project, *, run_id: int, item: Item, progress: Callable[[ZoomView], None] | None = None,
             should_stop: Callable[[], bool] | None = None, reviewer_id: int | None = None) -> Done[ZoomView]:
    """Probe the mistake with the run's model; partial views go to `progress` (on this
    thread). Stored after the first pass and at the end (a stop keeps what was done),
    as computed by the panelist `reviewer_id` (None: the project's owner)."""
    with project.read() as session:
        image = session.get(Image, item.image_id)
        if image is None:
            raise ZoomError(f"the project has no image with id {item.image_id}")
        path = project.image_file(image)
        labels = reviewed_labelset(session=session, after_review=False)
    if path is None or not path.is_file():
        raise ZoomError(f"{image.file_name} has no image file in this project: the zoom probe needs the pixels")
    from reviewer.runs.zoom.probe import ZoomProgress, probe

    accepted = accepted_classes(labels, item.image_id)
    classifier = run_classifier(project, run_id)
    picture = open_image(path)
    stored_first = False

    def store(result: ZoomResult) -> None:
        project.write(lambda s: save_zoom(session=s, run_id=run_id, image=item.image_id, predicted=item.predicted,
                                          result=result, computed_by=reviewer_id))

    def step(p: "ZoomProgress") -> None:
        nonlocal stored_first
        if p.first_pass_done and not stored_first:
            stored_first = True
            store(p.result)
        if progress is not None:
            progress(view_of(p.result, item=item, accepted=accepted))

    result = probe(classifier, picture, progress=step, should_stop=should_stop)
    if result.done:
        store(result)
    return Done(view_of(result, item=item, accepted=accepted), Changes(items=frozenset([item])))
