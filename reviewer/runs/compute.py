"""Model runs over a project's images: `predict` computes one, resumably.

A run is a Run row, the image list `runs/run_<id>.images.npy` (row i of the
run = image ids[i]) and the full softmax `runs/run_<id>.probs.f16.npy`.
Each batch is written to the probability file and synced *before* its
Prediction rows are committed, so every committed prediction has its
probabilities on disk. An interrupted run (Ctrl-C, crash, power cut) keeps
status 'running' / 'cancelled' / 'failed'; running the same model over the
same images again resumes it from its predictions, and only the end of the
last batch sets 'complete'. Rows whose probabilities did not survive (a power
cut between the write and the sync) are found on resume and computed again.

The GUI calls the same `predict` from a worker thread with a `progress`
callback and a `cancel` check (e.g. `threading.Event().is_set`); a cancel
stops after the batch in flight.

`predict_models` runs several models as one pass per data config (`_Pass`):
each image is decoded once and each batch goes through every model that
still lacks it; each model keeps its own run, file, writes and report. The
precision (`models.PRECISIONS`) and the decoding are recorded in the run's
`preprocessing` and are part of its identity: a run resumes only with the
same ones. Each run's report also keeps `first_batch_seconds` (from the call
to the first probabilities: loading, preparing, the first decode) and the
result `finish_seconds` (after the last batch: writes, mistakes).

The units of work of a run are opened here and only here, each one step of its
lifecycle (by design not one transaction: a killed run resumes from its committed
batches): the model and its runs found or made, the run created, the run prepared
(lost rows forgotten, its row set running), each batch's rows, the report, and
`end_run` (its mistakes stored). `reviewer.runs.records` reads and writes through
the session each step gives it; `reviewer.app.runs` is the act the window and the
command line call.
"""

from __future__ import annotations

import json
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import torch
from sqlalchemy import insert

from db.tables import Prediction, Run, utcnow
from models import (
    DEFAULT_PRECISION,
    PRECISIONS,
    Classifier,
    InferenceConfig,
    ModelInputError,
    PipelineConfig,
    ProbabilityWriter,
    create_batch_loader,
    default_batch_size,
    default_streams,
    load_model,
    top_k,
)
from models.inference import ForwardStreams, padded_batch_size
from models.pipeline import DECODERS
from models.sources import LoadedModel
from models.store import written_rows
from reviewer.errors import InputError, UserError
from reviewer.project import Project
from reviewer.runs.records import (
    RunLock,
    RunResult,
    forget_predictions,
    image_files,
    load_image_ids,
    matching_runs,
    model_row,
    predicted_rows,
    prediction_count,
    probs_relpath,
    run_images,
    run_precision,
    save_image_ids,
    store_run_mistakes,
)
from reviewer.terms import RunStatus


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


def predict(project: Project, model: str, *, checkpoint: str | Path | None = None, name: str | None = None,
            **options) -> RunResult:
    """Run a timm model over the project's images (or a named slice), resuming an
    unfinished run of the same model, images, decoding and precision.

    `name`: the name to record the model under (default: `model`, or
    `model:<checkpoint stem>`). Other options as `predict_models`.
    """
    return predict_models(project, [model], checkpoints=[checkpoint], names=[name], **options)[0]


def predict_models(project: Project, models: Sequence[str], *, checkpoints: Sequence[str | Path | None] | None = None,
                   names: Sequence[str | None] | None = None, device: str | None = None,
                   batch_size: int | None = None, limit: int | None = None, image_slice: str | None = None,
                   workers: int | None = None, streams: int | None = None, rerun: bool = False,
                   fast_decode: bool = False, precision: str = DEFAULT_PRECISION, decoder: str = "auto",
                   progress: ProgressCallback | None = None, cancel: Callable[[], bool] | None = None
                   ) -> list[RunResult]:
    """Run several models over the same images, each stored as its own run (results in
    the order of `models`). Models sharing a data config (input size, crop,
    interpolation, mean and std) are computed in one pass: each image is decoded
    once and each batch goes through every model of the pass.

    `rerun`: compute new runs even when complete. `workers`: decoding threads or
    processes (`decoder`: auto, threads or processes; auto: processes on a machine
    with many cores); `streams`: batches computed at once (default
    `models.default_streams`). `fast_decode`: decode large JPEGs in draft mode,
    faster but not timm's exact preprocessing. `precision`: fp32 (exact, the
    default), tf32, bf16 or fp16. Decoding and precision are recorded with each
    run, and a run resumes only with the same ones.
    """
    called = time.perf_counter()
    if batch_size is not None and batch_size < 1:
        raise InputError(f"--batch-size {batch_size}", "must be at least 1")
    if limit is not None and limit < 1:
        raise InputError(f"--limit {limit}", "must be at least 1")
    if streams is not None and streams < 1:
        raise InputError(f"--streams {streams}", "must be at least 1")
    if workers is not None and workers < 1:
        raise InputError(f"--workers {workers}", "must be at least 1")
    if precision not in PRECISIONS:
        raise InputError(f"--precision {precision}", "is not a precision this tool computes in",
                         hint=f"one of {', '.join(PRECISIONS)}")
    if decoder not in DECODERS:
        raise InputError(f"--decoder {decoder}", "is not a decoder", hint=f"one of {', '.join(DECODERS)}")
    if not models:
        raise InputError("--model", "names no model")
    checkpoints = list(checkpoints or [None] * len(models))
    names = list(names or [None] * len(models))
    if len(checkpoints) != len(models) or len(names) != len(models):
        raise InputError("--checkpoint/--name", "give one per model, or none")
    twice = sorted({m for m in models if models.count(m) > 1}) if not any(names) and not any(checkpoints) else []
    if twice:
        raise InputError(f"--model {' '.join(models)}", f"names {', '.join(twice)} more than once")
    with project.read() as session:  # fails early on a bad slice
        ids = run_images(session=session, image_slice=image_slice, limit=limit, source=str(project.root))
    results: dict[int, RunResult] = {}
    attempts: list[tuple[int, _Attempt]] = []
    for index, (model, checkpoint, name) in enumerate(zip(models, checkpoints, names)):
        loading = time.perf_counter()
        try:  # weights stay on the CPU until the decoding processes have started (see _Pass)
            loaded = load_model(model, checkpoint=checkpoint, device=device, move=False)
        except ModelInputError as exc:
            raise InputError(exc.source, exc.problem, hint=exc.hint) from exc
        load_seconds = time.perf_counter() - loading
        display = name or (f"{model}:{Path(checkpoint).stem}" if checkpoint else model)

        def find_runs(session):
            """The model's row (made when new) and its runs this call could resume or reuse."""
            row = model_row(session, name=display, source=loaded.source,
                            checkpoint=str(Path(checkpoint).resolve()) if checkpoint else None,
                            weights_sha256=loaded.weights_sha256)
            return row.id, row.name, matching_runs(session=session, model_id=row.id, image_slice=image_slice,
                                                   limit=limit, fast_decode=fast_decode, precision=precision)

        model_id, model_name, runs = project.write(find_runs)
        unfinished = next((r for r in runs if r.status != RunStatus.COMPLETE), None)
        if unfinished is None and runs and not rerun:
            results[index] = _already_complete(project, runs[0], model_name)
            continue
        run = unfinished or _create_run(project, model_id, ids, loaded, image_slice=image_slice, limit=limit,
                                        fast_decode=fast_decode, precision=precision)
        pipeline = PipelineConfig(batch_size=batch_size or default_batch_size(loaded.device), num_workers=workers,
                                  draft=fast_decode, decoder=decoder, pin_memory=loaded.device.type == "cuda")
        # On an accelerator every batch has one shape (see InferenceConfig.pad_to).
        pad_to = padded_batch_size(loaded.device, pipeline.batch_size)
        attempts.append((index, _Attempt(project, run, loaded, model_name, pipeline=pipeline,
                                         inference=InferenceConfig(streams=streams, precision=precision,
                                                                   pad_to=pad_to),
                                         load_seconds=load_seconds, resumed=unfinished is not None)))
    for group in _groups([a for _, a in attempts]):
        with ExitStack() as locks:
            for attempt in group:
                locks.enter_context(RunLock(project, attempt.run.id))
            _Pass(project, group, called=called).compute(progress=progress, cancel=cancel)
    for index, attempt in attempts:
        result = attempt.result
        if result.status == RunStatus.COMPLETE:
            result.mistakes, result.mistakes_note = end_run(project, attempt.run.id)
        result.finish_seconds = round(time.perf_counter() - attempt.last_batch_at, 3) if attempt.last_batch_at else 0.0
        results[index] = result
    return [results[i] for i in range(len(models))]


def end_run(project: Project, run_id: int) -> tuple[int | None, str | None]:
    """The step that ends a complete run, one unit of work: its mistakes found and stored,
    their count kept in its report. (count, None), or (None, why not)."""
    try:
        return project.write(lambda session: store_run_mistakes(session=session, run_id=run_id)), None
    except UserError as exc:
        return None, f"mistakes not computed: {exc}"


def _groups(attempts: list["_Attempt"]) -> list[list["_Attempt"]]:
    """Attempts that can share decoded images: the same data config and decoding."""
    groups: dict[str, list[_Attempt]] = {}
    for attempt in attempts:
        key = json.dumps([attempt.loaded.data_config, attempt.pipeline], sort_keys=True, default=str)
        groups.setdefault(key, []).append(attempt)
    return list(groups.values())


def _create_run(project: Project, model_id: int, ids: list[int], loaded: LoadedModel, *,
                image_slice: str | None, limit: int | None, fast_decode: bool, precision: str) -> Run:
    def work(session) -> Run:
        run = Run(model_id=model_id, status=RunStatus.RUNNING, image_slice=image_slice, num_images=len(ids),
                  device=str(loaded.device),
                  preprocessing=_preprocessing(loaded, fast_decode=fast_decode, precision=precision),
                  report={"limit": limit})
        session.add(run)
        session.flush()
        run.probs_path = probs_relpath(run.id)
        session.add(run)
        return run

    run = project.write(work)
    save_image_ids(project, run.id, ids)
    ProbabilityWriter.create(project.root / run.probs_path, len(ids)).close()
    return run


def _preprocessing(loaded: LoadedModel, *, fast_decode: bool, precision: str) -> dict:
    """The model's data config as applied, whether large JPEGs were decoded in draft
    mode (1/2..1/8 scale, never below the resize size: not timm's exact pixels), and the
    precision the forward passes computed in (`models.PRECISIONS`)."""
    config = {k: list(v) if isinstance(v, tuple) else v for k, v in loaded.data_config.items()}
    config.update(jpeg_draft=fast_decode, transform="timm create_transform (eval)",
                  architecture=loaded.name,  # the timm name the weights load into (the zoom probe reloads it)
                  precision=precision)
    return config


def _already_complete(project: Project, run: Run, model_name: str) -> RunResult:
    report = run.report or {}
    with project.read() as session:
        predicted = prediction_count(session=session, run_id=run.id)
    result = RunResult(run_id=run.id, model=model_name, status=RunStatus.COMPLETE, total=run.num_images,
                       predicted=predicted, skipped=report.get("skipped", []),
                       already_complete=True, seconds=report.get("seconds", 0.0),
                       images_per_second=report.get("images_per_second", 0.0), mistakes=report.get("mistakes"),
                       precision=run_precision(run))
    if result.mistakes is None:  # an earlier attempt could not compute them
        result.mistakes, result.mistakes_note = end_run(project, run.id)
    return result


_PREDICTION_KEYS = ("run_id", "image_id", "row", *(f"pred_{k}" for k in range(1, 6)),
                    *(f"prob_{k}" for k in range(1, 6)))


class _Recorder:
    """Writes each batch's results on a thread of its own, in order (the file's
    rows made durable, then the database rows that say they exist), while the
    model computes the next batch: the fsync and the commit wait on the disk,
    not on a core. At most `depth` batches wait; a failed write is raised by
    the next `submit` or by `drain`."""

    def __init__(self, record: Callable[[np.ndarray, np.ndarray], None], depth: int = 2):
        self._record, self._depth = record, depth
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="record")
        self._pending: deque[Future[None]] = deque()

    def submit(self, rows: np.ndarray, probs: np.ndarray) -> None:
        while len(self._pending) >= self._depth:
            self._pending.popleft().result()
        self._pending.append(self._pool.submit(self._record, rows, probs))

    def drain(self) -> None:
        while self._pending:
            self._pending.popleft().result()

    def close(self) -> None:
        """Wait for the writes already handed over (their errors are dropped: the
        run is ending with an error of its own)."""
        self._pool.shutdown(wait=True)


class _Attempt:
    """One model's part of a pass: the rows its run still lacks, its classifier, its
    probability file and database writes, and its report."""

    def __init__(self, project: Project, run: Run, loaded: LoadedModel, model_name: str, *,
                 pipeline: PipelineConfig, inference: InferenceConfig, load_seconds: float, resumed: bool):
        self.project, self.run, self.loaded, self.model_name = project, run, loaded, model_name
        self.pipeline, self.inference = pipeline, inference
        self.load_seconds, self.resumed = load_seconds, resumed
        self.skipped: list[dict] = []
        self.done_now = 0
        self.first_batch_at = self.last_batch_at = 0.0
        self.classifier: Classifier | None = None
        self.result: RunResult | None = None

    def prepare(self) -> None:
        """The run's image ids and the rows still to compute (`row_of`: image id -> row); repairs lost files."""
        project, run = self.project, self.run
        ids = load_image_ids(project, run.id)
        probs_file = project.root / run.probs_path
        if ids is None or len(ids) != run.num_images or not probs_file.exists():
            # Killed between creating the run and its files, or the files were
            # deleted: start the run over with the current image list.
            if ids is None or len(ids) != run.num_images:
                limit = (run.report or {}).get("limit")
                with project.read() as session:
                    ids = run_images(session=session, image_slice=run.image_slice, limit=limit,
                                     source=str(project.root))
                save_image_ids(project, run.id, ids)
            project.write(lambda session: forget_predictions(session=session, run_id=run.id))
            ProbabilityWriter.create(probs_file, len(ids)).close()
        with project.read() as session:
            done_ids, done_rows = predicted_rows(session=session, run_id=run.id)
        lost = None
        if len(done_rows):
            intact = written_rows(probs_file, done_rows)
            if not intact.all():
                lost, done_rows = done_ids[~intact], done_rows[intact]
        finished = np.zeros(len(ids), dtype=bool)
        finished[done_rows] = True

        def running(session) -> None:
            """Rows whose probabilities did not survive forgotten, and the run set running."""
            if lost is not None:
                forget_predictions(session=session, run_id=run.id, image_ids=lost)
            row = session.get(Run, run.id)
            row.status, row.device, row.num_images = RunStatus.RUNNING, str(self.loaded.device), len(ids)
            row.preprocessing = _preprocessing(self.loaded, fast_decode=self.pipeline.draft,
                                               precision=self.inference.precision)
            session.add(row)

        project.write(running)
        self.ids = ids
        self.row_of = {ids[r]: r for r in np.flatnonzero(~finished).tolist()}
        self.total, self.before = len(ids), len(ids) - len(self.row_of)

    def open(self) -> None:
        self.classifier = Classifier(self.loaded, self.inference)  # moves the weights to the device
        self.writer = ProbabilityWriter.open(self.project.root / self.run.probs_path)

        def record(rows: np.ndarray, probs: np.ndarray) -> None:
            self.writer.write(rows, probs)
            self.writer.sync()  # on disk before the database says the rows exist
            self._commit(rows, probs)

        self.recorder = _Recorder(record)

    def take(self, image_ids: list[int], probs: torch.Tensor | None, failures: list[tuple[int, str, str | None]]) -> None:
        """A batch's probabilities (rows of `image_ids`) and its images that failed to decode."""
        if probs is not None:
            rows = np.array([self.row_of[i] for i in image_ids], dtype=np.int64)
            self.recorder.submit(rows, probs.numpy())
        for image_id, reason, file_name in failures:
            self.skipped.append({"image_id": image_id, "file_name": file_name, "reason": reason})
        self.done_now += len(image_ids) + len(failures)
        self.last_batch_at = time.perf_counter()
        self.first_batch_at = self.first_batch_at or self.last_batch_at

    def progress(self, elapsed: float) -> RunProgress:
        return RunProgress(run_id=self.run.id, done=self.before + self.done_now, total=self.total,
                           skipped=len(self.skipped), done_now=self.done_now, elapsed=elapsed)

    def close(self, status: str, seconds: float, *, called: float, error: str | None = None) -> None:
        """Wait for the writes handed over (their errors raised unless the run is ending with one),
        then write the run's report and set `result`."""
        try:
            if error is None:
                self.recorder.drain()
        finally:
            self.recorder.close()
            self.writer.close()
        report = self._finish(status, self.done_now, seconds, called=called, error=error)
        with self.project.read() as session:
            predicted = prediction_count(session=session, run_id=self.run.id)
        self.result = RunResult(
            run_id=self.run.id, model=self.model_name, status=status, total=self.total,
            predicted=predicted, skipped=self.skipped, resumed=self.resumed,
            resumed_from=self.before, seconds=seconds,
            images_per_second=self.done_now / seconds if seconds > 0 else 0.0, mistakes=report.get("mistakes"),
            startup_seconds=report["parts"][-1].get("first_batch_seconds") or 0.0,
            precision=self.inference.precision)

    def _commit(self, rows: np.ndarray, probs: np.ndarray) -> None:
        classes, values = top_k(probs)
        ids, run_id = self.ids, self.run.id
        # Whole arrays to Python numbers at once (the same ints and floats as element by element),
        # and a Core insert of plain rows: no ORM bookkeeping per prediction.
        records = [dict(zip(_PREDICTION_KEYS, (run_id, ids[row], row, *top, *probabilities)))
                   for row, top, probabilities in zip(rows.tolist(), classes.tolist(), values.tolist())]
        self.project.write(lambda session: session.connection().execute(insert(Prediction.__table__), records))

    def _finish(self, status: str, done_now: int, seconds: float, *, called: float, error: str | None = None) -> dict:
        classifier_settings = self.classifier.settings() if self.classifier else {"precision": self.inference.precision}

        def work(session) -> dict:
            run = session.get(Run, self.run.id)
            report = dict(run.report or {})
            parts = report.get("parts", []) + [{
                "ended_at": utcnow().isoformat(), "status": status, "images": done_now,
                "seconds": round(seconds, 3), "load_seconds": round(self.load_seconds, 3),
                "first_batch_seconds": round(self.first_batch_at - called, 3) if self.first_batch_at else None,
                "device": str(self.loaded.device), **({"error": error} if error else {})}]
            total_seconds = sum(p["seconds"] for p in parts)
            total_images = sum(p["images"] for p in parts)
            report.update(
                parts=parts, seconds=round(total_seconds, 3),
                images_per_second=round(total_images / total_seconds, 2) if total_seconds else 0.0,
                skipped=self.skipped, source=self.loaded.source,
                weights_file=str(self.loaded.weights_file) if self.loaded.weights_file else None,
                weights_sha256=self.loaded.weights_sha256, batch_size=self.pipeline.batch_size,
                workers=self.pipeline.workers(),
                decoder="processes" if self.pipeline.uses_processes() else "threads", **classifier_settings)
            report.pop("mistakes", None)
            run.report, run.status = report, status
            if status == RunStatus.COMPLETE:
                run.finished_at = utcnow()
            session.add(run)
            return report

        return self.project.write(work)


class _Pass:
    """One pass over the images of runs that share a data config: each image decoded once,
    each batch computed by every model that still lacks some of its images."""

    def __init__(self, project: Project, attempts: list[_Attempt], *, called: float):
        self.project, self.attempts, self.called = project, attempts, called

    def compute(self, *, progress: ProgressCallback | None, cancel: Callable[[], bool] | None) -> None:
        attempts = self.attempts
        for attempt in attempts:
            attempt.prepare()
        wanted = list(dict.fromkeys(i for a in attempts for i in a.row_of))  # every image any run lacks
        with self.project.read() as session:
            paths, names = image_files(self.project, wanted, session=session)
        first = attempts[0]
        streams_count = first.inference.streams or default_streams(first.loaded.device)
        config = replace(first.pipeline, prefetch_batches=first.pipeline.prefetch_batches
                         or first.pipeline.workers() + streams_count)
        loader = create_batch_loader(paths, first.loaded.data_config, config)
        # Decoding starts here: the first batches are decoded while the weights move to the
        # device. Processes are forked before this process has threads or a GPU context.
        loader.start()
        started, status, opened = time.perf_counter(), RunStatus.CANCELLED, []
        device = first.loaded.device
        share_copy = len(attempts) > 1 and device.type != "cpu"

        def report_progress():
            if progress is not None:
                for attempt in attempts:
                    progress(attempt.progress(time.perf_counter() - started))

        def items():
            for batch in loader:
                pixels = batch.pixels
                if share_copy and len(pixels):  # one transfer for every model of the pass
                    pixels = pixels.to(device, non_blocking=True)
                for attempt in attempts:
                    keep = [k for k, p in enumerate(batch.positions) if wanted[p] in attempt.row_of]
                    failures = [(wanted[p], reason, names[p]) for p, reason in batch.failures
                                if wanted[p] in attempt.row_of]
                    image_ids = [wanted[batch.positions[k]] for k in keep]
                    chosen = pixels if len(keep) == len(batch.positions) else pixels[torch.tensor(keep, dtype=torch.long)]
                    last = attempt is attempts[-1]
                    yield (attempt, image_ids, failures, last), attempt.classifier, chosen if keep else None

        try:
            for attempt in attempts:
                attempt.open()
                opened.append(attempt)
            report_progress()
            with ForwardStreams(first.classifier) as streams:
                for (attempt, image_ids, failures, last), probs in streams.map_models(items()):
                    attempt.take(image_ids, probs, failures)
                    if last:
                        report_progress()
                        if cancel is not None and cancel():
                            break
                else:
                    status = RunStatus.COMPLETE
            loader.close()
            for attempt in attempts:
                attempt.close(status, time.perf_counter() - started, called=self.called)
        except BaseException as exc:
            loader.close()
            failed = RunStatus.CANCELLED if isinstance(exc, KeyboardInterrupt) else RunStatus.FAILED
            for attempt in opened:
                if attempt.result is None:
                    try:
                        attempt.close(failed, time.perf_counter() - started, called=self.called, error=repr(exc))
                    except Exception:  # noqa: BLE001 - the run's own error is the one to raise
                        pass
            raise
