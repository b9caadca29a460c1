"""The zoom probe as acts: run it for one mistake (on a worker thread, with partial
results as it goes), store it with the run, and read what is stored, with each
crop's outcome for the mistake (`reviewer.runs.zoom`); probe every mistake of a run
(`probe_run`, `reviewer zoom`); and the zoom-hard split of the mistakes no crop
corrects (`zoom_hard_split`, `reviewer zoom-split`; Taesiri et al. 2023 §4.4.1).

The model is the run's own: loaded once per (architecture, checkpoint, device) and
kept, so a second probe starts at once. A result is stored as soon as the first pass
is done and again when complete, so every panelist sees it and a closed window
loses at most the scales in flight; `probe_run` stores each mistake's result when
its last crop is in, one unit of work each, so a killed probe loses at most the
mistakes in flight.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from db.tables import Image, Model, Run
from reviewer.app.changes import Changes, Done
from reviewer.errors import InputError, UserError
from reviewer.items import Item
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.project import Project
from reviewer.runs.zoom.grid import open_image
from reviewer.runs.zoom.result import ZoomCell, ZoomResult, ZoomSummary, accepted_classes, summarise, zoom_cells
from reviewer.runs.zoom.store import ZoomProvenance, load_zoom, save_zoom, zoom_provenance

if TYPE_CHECKING:  # pandas: only where a split is made, not for the window's probe
    from reviewer.evaluation.zoom_hard import ZoomHardResult

# torch and the models are imported by the acts that run a model, not by reading results.
_MODELS: dict = {}  # (architecture, checkpoint, device) -> models.Classifier
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


def run_classifier(project: Project, run_id: int, *, device: str = "cpu"):
    """The run's model (a `models.Classifier`) on `device` (auto: an accelerator where there is
    one), loaded once and kept."""
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
    key = (arch, checkpoint, device)
    with _MODELS_LOCK:
        if key not in _MODELS:
            try:
                loaded = load_model(arch, checkpoint=Path(checkpoint) if checkpoint else None, device=device)
            except ModelInputError as exc:
                raise InputError(exc.source, exc.problem, hint=exc.hint) from exc
            _MODELS[key] = Classifier(loaded)
        return _MODELS[key]


def stored_zoom(project: Project, *, run_id: int, item: Item, reader_id: int | None = None) -> ZoomView | None:
    """The stored result of the mistake's probe that the panelist `reader_id` takes (its own
    first, then the owner's or chair's, then another's: reviewer.runs.zoom.store), with each
    crop's outcome and who computed it, or None."""
    return stored_zooms(project, run_ids=[run_id], item=item, reader_id=reader_id).get(run_id)


def stored_zooms(project: Project, *, run_ids: list[int], item: Item,
                 reader_id: int | None = None) -> dict[int, ZoomView]:
    """`stored_zoom` of each run of `run_ids` that has one, read in one session (`reviewer show`
    asks for every run's: twenty runs, one read)."""
    found = {}
    with project.read() as session:
        for run_id in run_ids:
            stored = load_zoom(session=session, run_id=run_id, image=item.image_id, reader_id=reader_id)
            if stored is not None and stored.predicted == item.predicted:
                found[run_id] = stored  # (rarely: most mistakes shown have no probe, one indexed query each)
        if not found:
            return {}
        labels = reviewed_labelset(session=session, after_review=False)
        reader = _name(session, reader_id) if reader_id is not None else None
    accepted = accepted_classes(labels, item.image_id)
    return {run_id: view_of(stored.result, item=item, accepted=accepted,
                            computed_by=None if reader is not None and stored.computed_by == reader
                            else stored.computed_by)
            for run_id, stored in found.items()}


def _name(session, panelist_id: int) -> str | None:
    from db.tables import Panelist

    row = session.get(Panelist, panelist_id)
    return row.name if row else None


def view_of(result: ZoomResult, *, item: Item, accepted: frozenset[int], computed_by: str | None = None) -> ZoomView:
    return ZoomView(result=result, cells=tuple(zoom_cells(result, predicted=item.predicted, accepted=accepted)),
                    summary=summarise(result, predicted=item.predicted, accepted=accepted), accepted=accepted,
                    computed_by=computed_by)


def run_zoom(project: Project, *, run_id: int, item: Item, progress: Callable[[ZoomView], None] | None = None,
             should_stop: Callable[[], bool] | None = None, panelist_id: int | None = None) -> Done[ZoomView]:
    """Probe the mistake with the run's model; partial views go to `progress` (on this
    thread). Stored after the first pass and at the end (a stop keeps what was done),
    as computed by the panelist `panelist_id` (None: the project's owner)."""
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
                                          result=result, computed_by=panelist_id))

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


# -- every mistake of a run (`reviewer zoom`) ----------------------------------------------
@dataclass(frozen=True)
class ZoomRunProgress:
    """Where a probe of a run's mistakes stands (after each mistake)."""

    run_id: int
    total: int  # mistakes in scope (the first `limit` of the run's, by file name)
    already: int  # found probed when it started (or, with skip_corrected, already corrected): not computed
    done: int  # probed in this call so far (stored, complete or partial)
    failed: int  # images that could not be used (no file, undecodable)
    crops: int  # crops computed in this call
    elapsed: float  # seconds since the first crop was asked for
    last: str | None = None  # the file name of the mistake just probed

    @property
    def left(self) -> int:
        return self.total - self.already - self.done - self.failed

    @property
    def crops_per_second(self) -> float:
        return self.crops / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def mistakes_per_minute(self) -> float:
        return 60 * self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        return self.left * self.elapsed / self.done if self.done else None


@dataclass(frozen=True)
class ZoomRunResult:
    """What `probe_run` did: counts, speed, the images it could not use, and whether it was stopped."""

    run_id: int
    model: str
    device: str
    batch_size: int
    first_pass: bool  # only the probe's first-pass scales were computed (results stored partial)
    total: int
    already: int
    probed: int
    skipped_corrected: int  # with skip_corrected: left out, a stored crop already corrects them
    crops: int
    seconds: float  # from the first crop asked for to the last result stored
    failed: tuple[tuple[str, str], ...] = ()  # (file name, reason)
    stopped: bool = False
    corrected: int = 0  # of the mistakes probed here, those some crop corrects (Taesiri et al.'s IN+ReaL)
    complete: int = 0  # of the mistakes probed here, those whose grid is now complete

    @property
    def crops_per_second(self) -> float:
        return self.crops / self.seconds if self.seconds > 0 else 0.0

    @property
    def mistakes_per_minute(self) -> float:
        return 60 * self.probed / self.seconds if self.seconds > 0 else 0.0


def _panelist_id(session, name: str | None) -> int | None:
    """Whose results these are: on a panel of database roles the connection's role (it may insert
    only its own); elsewhere the panelist `name`, or the project's owner (None) without one."""
    from reviewer.panel.identity import acting_panelist, uses_database_roles

    if not name and not uses_database_roles(session):
        return None
    return int(acting_panelist(session=session, name=name).id)


def probe_run(project: Project, *, run_id: int, limit: int | None = None, image_slice: str | None = None,
              first_pass: bool = False, skip_corrected: bool = False, device: str = "auto",
              batch_size: int | None = None, workers: int | None = None,
              panelist: str | None = None, progress: Callable[[ZoomRunProgress], None] | None = None,
              should_stop: Callable[[], bool] | None = None,
              loading: Callable[[int], None] | None = None) -> Done[ZoomRunResult]:
    """Probe the run's mistakes with its own model (Taesiri et al. 2023 §3: 36 scales x a 3x3 grid of
    224-px crops; §4.4.1 needs all 324 for "unclassifiable"), in large batches across mistakes
    (`reviewer.runs.zoom.batched`), each result stored with the run as the window's probe stores it
    (`save_zoom`: a row appended per mistake, one unit of work each), so a killed probe resumes:
    a mistake whose result (as `panelist` reads it) is complete is not computed again, and one's own
    partial result is completed from its computed cells. `limit`: only the first N mistakes by file
    name. `image_slice`: only the mistakes on the images of this slice (e.g. another run's zoom-hard
    split: the images a split across runs still needs this run's probe of). `first_pass`: only the
    probe's six first-pass scales (54 crops; partial results, enough to find most corrected mistakes).
    `skip_corrected`: leave out the mistakes whose stored result already has a crop correct by IN+ReaL
    (after a first pass, the rest of the grid is computed only where the zoom-hard split still needs
    it). `progress` is called on this thread after each mistake;
    `should_stop` is asked before each batch (a stop stores what was computed)."""
    import time

    from reviewer.runs.mistakes import stored_mistakes
    from reviewer.runs.zoom.grid import FIRST_PASS_SCALES
    from reviewer.runs.zoom.result import ZoomParams, taesiri_accepted_classes
    from reviewer.runs.zoom.store import run_zooms
    from reviewer.terms import RunStatus

    if limit is not None and limit < 1:
        raise InputError("--limit", f"{limit} mistakes", hint="give at least 1, or leave it out for all")
    with project.read() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise ZoomError(f"the project has no run {run_id} ('reviewer report PROJECT' lists the runs)")
        if run.status != RunStatus.COMPLETE:
            raise ZoomError(f"run {run_id} is {run.status}: its mistakes are stored when it completes "
                            "(run the same 'reviewer predict' again to finish it)")
        model_name = session.get(Model, run.model_id).name
        me = _panelist_id(session, panelist)
        mistakes = sorted(stored_mistakes(session=session, run_id=run_id), key=lambda m: (m.file_name, m.image_id))
        if image_slice is not None:
            from reviewer.evaluation.slices import slice_image_ids

            on_slice = set(slice_image_ids(session=session, name=image_slice).tolist())
            mistakes = [m for m in mistakes if m.image_id in on_slice]
        if limit is not None:
            mistakes = mistakes[:limit]
        paths = {m.image_id: project.image_file(session.get(Image, m.image_id)) for m in mistakes}
        stored = run_zooms(session=session, run_id=run_id, reader_id=me)
        labels = reviewed_labelset(session=session, after_review=False)
    params = ZoomParams()
    compute = FIRST_PASS_SCALES if first_pass else params.scales
    jobs, already, skipped = [], 0, 0
    for mistake in mistakes:
        chosen = stored.get((mistake.image_id, mistake.predicted))
        if chosen is not None and _covers(chosen.result, compute, params):
            already += 1
            continue
        if skip_corrected and chosen is not None and _corrected(chosen.result, mistake, labels):
            skipped += 1
            continue
        # One's own partial result is completed; another panelist's is not taken over as one's own.
        own = chosen is not None and chosen.computed_by == me and chosen.result.params == params
        jobs.append((mistake, paths[mistake.image_id], chosen.result if own else None))
    classifier, size = None, batch_size or 0
    if jobs:  # torch and the model load only when there is work
        if loading is not None:
            loading(len(jobs))
        from reviewer.runs.zoom.batched import ProbeJob, default_batch_size, probe_images

        classifier = run_classifier(project, run_id, device=device)
        size = batch_size or default_batch_size(classifier.device)
    probed = crops = corrected = complete = 0
    failed: list[tuple[str, str]] = []
    stopped = False
    items = []
    started = time.perf_counter()
    handed_back = 0
    if jobs:
        for done in probe_images(classifier, [ProbeJob(*job) for job in jobs], compute=compute,
                                 batch_size=size, workers=workers, should_stop=should_stop):
            mistake = done.key
            handed_back += 1
            stopped = stopped or done.stopped
            if done.result is None:
                failed.append((mistake.file_name, done.error or "could not be probed"))
            elif done.computed:
                project.write(lambda s, m=mistake, r=done.result: save_zoom(
                    session=s, run_id=run_id, image=m.image_id, predicted=m.predicted, result=r, computed_by=me))
                items.append(mistake.item)
                probed += 1
                crops += done.computed
                complete += int(done.result.complete)
                try:
                    accepted = taesiri_accepted_classes(labels, mistake.image_id)
                except KeyError:
                    accepted = frozenset()
                corrected += int(summarise(done.result, predicted=mistake.predicted, accepted=accepted).corrected)
            if progress is not None:
                progress(ZoomRunProgress(run_id=run_id, total=len(mistakes), already=already + skipped,
                                         done=probed, failed=len(failed), crops=crops,
                                         elapsed=time.perf_counter() - started, last=mistake.file_name))
    # A stop between two images leaves no image half done, and the images not started are not handed
    # back at all (probe_images' contract): fewer jobs back than given is a stop too.
    stopped = stopped or handed_back < len(jobs)
    result = ZoomRunResult(run_id=run_id, model=model_name, device=str(classifier.device) if classifier else "-",
                           batch_size=size, first_pass=first_pass, total=len(mistakes), already=already,
                           probed=probed, skipped_corrected=skipped, crops=crops,
                           seconds=time.perf_counter() - started, failed=tuple(failed), stopped=stopped,
                           corrected=corrected, complete=complete)
    return Done(result, Changes(items=frozenset(items)))


def _corrected(result: ZoomResult, mistake, labels) -> bool:
    """Some computed crop of `result` is correct by Taesiri et al.'s IN+ReaL (the split's default)."""
    from reviewer.runs.zoom.result import taesiri_accepted_classes

    try:
        accepted = taesiri_accepted_classes(labels, mistake.image_id)
    except KeyError:
        return False
    return summarise(result, predicted=mistake.predicted, accepted=accepted).corrected


def _covers(result: ZoomResult, scales, params) -> bool:
    """`result` is a probe of `params` (the paper's grid) with every cell of `scales` computed."""
    if result.params != params:
        return False  # another grid (fewer scales, another crop size): not the paper's 324 crops
    computed = result.computed
    return all(computed[result.scale_index(s)].all() for s in scales)


# -- the zoom-hard split (`reviewer zoom-split`) ---------------------------------------------
@dataclass(frozen=True)
class ZoomHardOutcome:
    result: ZoomHardResult
    saved: int | None  # images stored as the slice (`save`), else None
    provenance: ZoomProvenance | None = None  # whose probes the split counts (the owner's and the chair's)


def zoom_hard_split(project: Project, *, runs: list[str], labels: str = "in-real", save: str | None = None,
                    replace: bool = False, export: str | Path | None = None) -> Done[ZoomHardOutcome]:
    """The mistakes that no crop of the zoom probe corrects for every run of `runs` (run ids or model
    names; Taesiri et al. 2023 §4.1, §4.4.1: `reviewer.evaluation.zoom_hard`). One unit of work: a read,
    or with `save` the write that also stores the unclassifiable images as that slice with the rule
    (so `reviewer predict --images SLICE` reruns models on it and `reviewer export` writes it with its
    manifest). `export`: the rule, the counts and every candidate written to this JSON file."""
    from reviewer.evaluation.zoom_hard import ZoomHardRule, resolve_runs, save_zoom_hard
    from reviewer.evaluation.zoom_hard import zoom_hard_split as split_of

    def work(session) -> ZoomHardOutcome:
        rule = ZoomHardRule(resolve_runs(session=session, specs=runs), labels=labels)
        result = split_of(session=session, rule=rule)
        size = save_zoom_hard(session=session, result=result, name=save, replace=replace) if save else None
        whose = zoom_provenance(session=session, run_ids=[run for run, _ in rule.runs])
        return ZoomHardOutcome(result, size, whose)

    from reviewer.app.split import run_split, write_candidates
    from reviewer.evaluation.zoom_hard import UNCLASSIFIABLE

    outcome = run_split(project, work, save=bool(save))
    if export:
        write_candidates(outcome.result, export, kept=UNCLASSIFIABLE)
    return Done(outcome, Changes(labels=True) if save else Changes())

