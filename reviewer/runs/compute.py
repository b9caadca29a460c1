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
"""

from __future__ import annotations

import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np
from sqlalchemy import insert

from db.engine import write_session
from db.tables import Prediction, Run, utcnow
from models import (
    BatchLoader,
    Classifier,
    InferenceConfig,
    ModelInputError,
    PipelineConfig,
    ProbabilityWriter,
    default_batch_size,
    load_model,
    top_k,
)
from models.sources import LoadedModel
from models.store import written_rows
from reviewer.errors import InputError
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
            device: str | None = None, batch_size: int | None = None, limit: int | None = None,
            image_slice: str | None = None, workers: int | None = None, streams: int | None = None,
            rerun: bool = False, fast_decode: bool = False,
            progress: ProgressCallback | None = None, cancel: Callable[[], bool] | None = None) -> RunResult:
    """Run a timm model over the project's images (or a named slice), resuming an
    unfinished run of the same model and images.

    `name`: the name to record the model under (default: `model`, or
    `model:<checkpoint stem>`). `rerun`: compute a new run even when one is complete.
    `workers`: decoding threads; `streams`: batches computed at once (default
    `models.default_streams`). `fast_decode`: decode large JPEGs in draft mode,
    faster but not timm's exact preprocessing (recorded with the run, and a run
    resumes only with the same decoding).
    """
    if batch_size is not None and batch_size < 1:
        raise InputError(f"--batch-size {batch_size}", "must be at least 1")
    if limit is not None and limit < 1:
        raise InputError(f"--limit {limit}", "must be at least 1")
    if streams is not None and streams < 1:
        raise InputError(f"--streams {streams}", "must be at least 1")
    ids = run_images(project, image_slice=image_slice, limit=limit)  # fails early on a bad slice
    started = time.perf_counter()
    try:
        loaded = load_model(model, checkpoint=checkpoint, device=device)
    except ModelInputError as exc:
        raise InputError(exc.source, exc.problem, hint=exc.hint) from exc
    load_seconds = time.perf_counter() - started
    display = name or (f"{model}:{Path(checkpoint).stem}" if checkpoint else model)
    with write_session(project.engine) as session:
        row = model_row(session, name=display, source=loaded.source,
                        checkpoint=str(Path(checkpoint).resolve()) if checkpoint else None,
                        weights_sha256=loaded.weights_sha256)
        model_id, model_name = row.id, row.name
    runs = matching_runs(project, model_id=model_id, image_slice=image_slice, limit=limit, fast_decode=fast_decode)
    unfinished = next((r for r in runs if r.status != RunStatus.COMPLETE), None)
    if unfinished is None and runs and not rerun:
        return _already_complete(project, runs[0], model_name)
    run = unfinished or _create_run(project, model_id, ids, loaded, image_slice=image_slice, limit=limit,
                                    fast_decode=fast_decode)
    with RunLock(project, run.id):
        attempt = _Attempt(project, run, loaded, model_name, workers=workers, streams=streams, fast_decode=fast_decode,
                           load_seconds=load_seconds,
                           batch_size=batch_size or default_batch_size(loaded.device))
        result = attempt.compute(progress=progress, cancel=cancel, resumed=unfinished is not None)
    if result.status == RunStatus.COMPLETE:
        result.mistakes, result.mistakes_note = store_run_mistakes(project, run.id)
    return result


def _create_run(project: Project, model_id: int, ids: list[int], loaded: LoadedModel, *,
                image_slice: str | None, limit: int | None, fast_decode: bool) -> Run:
    with write_session(project.engine) as session:
        run = Run(model_id=model_id, status=RunStatus.RUNNING, image_slice=image_slice, num_images=len(ids),
                  device=str(loaded.device), preprocessing=_preprocessing(loaded, fast_decode=fast_decode),
                  report={"limit": limit})
        session.add(run)
        session.flush()
        run.probs_path = probs_relpath(run.id)
        session.add(run)
    save_image_ids(project, run.id, ids)
    ProbabilityWriter.create(project.root / run.probs_path, len(ids)).close()
    return run


def _preprocessing(loaded: LoadedModel, *, fast_decode: bool) -> dict:
    """The model's data config as applied, and whether large JPEGs were decoded in draft
    mode (1/2..1/8 scale, never below the resize size: not timm's exact pixels)."""
    config = {k: list(v) if isinstance(v, tuple) else v for k, v in loaded.data_config.items()}
    config.update(jpeg_draft=fast_decode, transform="timm create_transform (eval)",
                  architecture=loaded.name)  # the timm name the weights load into (the zoom probe reloads it)
    return config


def _already_complete(project: Project, run: Run, model_name: str) -> RunResult:
    report = run.report or {}
    result = RunResult(run_id=run.id, model=model_name, status=RunStatus.COMPLETE, total=run.num_images,
                       predicted=prediction_count(project, run.id), skipped=report.get("skipped", []),
                       already_complete=True, seconds=report.get("seconds", 0.0),
                       images_per_second=report.get("images_per_second", 0.0), mistakes=report.get("mistakes"))
    if result.mistakes is None:  # an earlier attempt could not compute them
        result.mistakes, result.mistakes_note = store_run_mistakes(project, run.id)
    return result


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
    """One pass of `predict` over the images a run still lacks."""

    def __init__(self, project: Project, run: Run, loaded: LoadedModel, model_name: str, *, batch_size: int,
                 workers: int | None, streams: int | None, load_seconds: float, fast_decode: bool):
        self.project, self.run, self.loaded, self.model_name = project, run, loaded, model_name
        self.inference = InferenceConfig(streams=streams)
        self.pipeline = PipelineConfig(batch_size=batch_size, num_workers=workers, draft=fast_decode)
        self.load_seconds = load_seconds
        self.skipped: list[dict] = []

    def compute(self, *, progress: ProgressCallback | None, cancel: Callable[[], bool] | None,
                resumed: bool) -> RunResult:
        ids, todo = self._prepare()
        total, before = len(ids), len(ids) - len(todo)
        paths, names = image_files(self.project, [ids[r] for r in todo])
        classifier = Classifier(self.loaded, self.inference)
        # Enough batches decoded ahead to feed every stream and keep every decoder busy.
        loader = BatchLoader(paths, self.loaded.data_config,
                             replace(self.pipeline, prefetch_batches=self.pipeline.workers() + classifier.streams))
        writer = ProbabilityWriter.open(self.project.root / self.run.probs_path)
        started, done_now, status = time.perf_counter(), 0, RunStatus.CANCELLED

        def report_progress():
            if progress is not None:
                progress(RunProgress(run_id=self.run.id, done=before + done_now, total=total,
                                     skipped=len(self.skipped), done_now=done_now,
                                     elapsed=time.perf_counter() - started))

        def record(rows: np.ndarray, probs: np.ndarray) -> None:
            writer.write(rows, probs)
            writer.sync()  # on disk before the database says the rows exist
            self._commit(ids, rows, probs)

        recorder = _Recorder(record)
        streams = classifier.stream()
        try:
            report_progress()
            with streams:
                for batch, probs in streams.map((batch, batch.pixels) for batch in loader):
                    if probs is not None:
                        rows = np.array([todo[p] for p in batch.positions], dtype=np.int64)
                        recorder.submit(rows, probs.numpy())
                    for position, reason in batch.failures:
                        self.skipped.append({"image_id": ids[todo[position]], "file_name": names[position],
                                             "reason": reason})
                    done_now += len(batch.positions) + len(batch.failures)
                    report_progress()
                    if cancel is not None and cancel():
                        break
                else:
                    status = RunStatus.COMPLETE
            recorder.drain()
        except BaseException as exc:
            recorder.close()  # what was handed over is written before the run's report
            self._finish(RunStatus.CANCELLED if isinstance(exc, KeyboardInterrupt) else RunStatus.FAILED,
                         classifier, done_now, time.perf_counter() - started, error=repr(exc))
            raise
        finally:
            loader.close()
            recorder.close()
            writer.close()
        seconds = time.perf_counter() - started
        report = self._finish(status, classifier, done_now, seconds)
        return RunResult(run_id=self.run.id, model=self.model_name, status=status, total=total,
                         predicted=prediction_count(self.project, self.run.id), skipped=self.skipped,
                         resumed=resumed, resumed_from=before, seconds=seconds,
                         images_per_second=done_now / seconds if seconds > 0 else 0.0,
                         mistakes=report.get("mistakes"))

    def _prepare(self) -> tuple[list[int], list[int]]:
        """The run's image ids and the rows still to compute; repairs lost files."""
        project, run = self.project, self.run
        ids = load_image_ids(project, run.id)
        probs_file = project.root / run.probs_path
        if ids is None or len(ids) != run.num_images or not probs_file.exists():
            # Killed between creating the run and its files, or the files were
            # deleted: start the run over with the current image list.
            if ids is None or len(ids) != run.num_images:
                limit = (run.report or {}).get("limit")
                ids = run_images(project, image_slice=run.image_slice, limit=limit)
                save_image_ids(project, run.id, ids)
            forget_predictions(project, run.id)
            ProbabilityWriter.create(probs_file, len(ids)).close()
        done_ids, done_rows = predicted_rows(project, run.id)
        if len(done_rows):
            intact = written_rows(probs_file, done_rows)
            if not intact.all():
                forget_predictions(project, run.id, done_ids[~intact])
                done_rows = done_rows[intact]
        finished = np.zeros(len(ids), dtype=bool)
        finished[done_rows] = True
        with write_session(project.engine) as session:
            row = session.get(Run, run.id)
            row.status, row.device, row.num_images = RunStatus.RUNNING, str(self.loaded.device), len(ids)
            row.preprocessing = _preprocessing(self.loaded, fast_decode=self.pipeline.draft)
            session.add(row)
        return ids, np.flatnonzero(~finished).tolist()

    def _commit(self, ids: list[int], rows: np.ndarray, probs: np.ndarray) -> None:
        classes, values = top_k(probs)
        records = [
            {"run_id": self.run.id, "image_id": ids[row], "row": int(row),
             **{f"pred_{k + 1}": int(classes[i, k]) for k in range(5)},
             **{f"prob_{k + 1}": float(values[i, k]) for k in range(5)}}
            for i, row in enumerate(rows)
        ]
        with write_session(self.project.engine) as session:
            session.execute(insert(Prediction), records)

    def _finish(self, status: str, classifier: Classifier, done_now: int, seconds: float, *,
                error: str | None = None) -> dict:
        with write_session(self.project.engine) as session:
            run = session.get(Run, self.run.id)
            report = dict(run.report or {})
            parts = report.get("parts", []) + [{
                "ended_at": utcnow().isoformat(), "status": status, "images": done_now,
                "seconds": round(seconds, 3), "load_seconds": round(self.load_seconds, 3),
                "device": str(self.loaded.device), **({"error": error} if error else {})}]
            total_seconds = sum(p["seconds"] for p in parts)
            total_images = sum(p["images"] for p in parts)
            report.update(
                parts=parts, seconds=round(total_seconds, 3),
                images_per_second=round(total_images / total_seconds, 2) if total_seconds else 0.0,
                skipped=self.skipped, source=self.loaded.source,
                weights_file=str(self.loaded.weights_file) if self.loaded.weights_file else None,
                weights_sha256=self.loaded.weights_sha256, batch_size=self.pipeline.batch_size,
                workers=self.pipeline.workers(), **classifier.settings())
            report.pop("mistakes", None)
            run.report, run.status = report, status
            if status == RunStatus.COMPLETE:
                run.finished_at = utcnow()
            session.add(run)
        return report

