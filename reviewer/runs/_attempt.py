"""One model's part of a computing run (`Attempt`): the rows its run still lacks
(resuming: rows whose probabilities did not survive are forgotten and computed
again), its classifier, each batch written on a thread of its own (`_Recorder`:
the probability file synced before the Prediction rows are committed) and the
run's report at the end. Private to `reviewer.runs.compute`, which makes the
attempts, and `reviewer.runs._pass`, which feeds them batches.

Units of work opened here, each one step of the run's lifecycle
(`reviewer.runs.compute` names them all): the run prepared (lost rows forgotten,
its row set running), each batch's rows, and the report.
"""

from __future__ import annotations

import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

import numpy as np
import torch

from db.tables import Run, utcnow
from models import Classifier, InferenceConfig, PipelineConfig, ProbabilityWriter, top_k
from models.sources import LoadedModel
from models.store import written_rows
from reviewer.project import Project
from reviewer.runs.predictions import insert_predictions
from reviewer.runs.records import (
    RunProgress,
    RunResult,
    forget_predictions,
    load_image_ids,
    predicted_rows,
    prediction_count,
    run_images,
    save_image_ids,
)
from reviewer.terms import RunStatus


def run_preprocessing(loaded: LoadedModel, *, fast_decode: bool, precision: str) -> dict:
    """The model's data config as applied, whether large JPEGs were decoded in draft
    mode (1/2..1/8 scale, never below the resize size: not timm's exact pixels), and the
    precision the forward passes computed in (`models.PRECISIONS`)."""
    config = {k: list(v) if isinstance(v, tuple) else v for k, v in loaded.data_config.items()}
    config.update(jpeg_draft=fast_decode, transform="timm create_transform (eval)",
                  architecture=loaded.name,  # the timm name the weights load into (the zoom probe reloads it)
                  precision=precision)
    return config


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


class Attempt:
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
            row.preprocessing = run_preprocessing(self.loaded, fast_decode=self.pipeline.draft,
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
        image_ids = [ids[row] for row in rows.tolist()]
        self.project.write(lambda session: insert_predictions(session=session, run_id=run_id, image_ids=image_ids,
                                                              rows=rows, classes=classes, values=values))

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
