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
callback (`reviewer.runs.records.RunProgress`) and a `cancel` check (e.g.
`threading.Event().is_set`); a cancel stops after the batch in flight.

`predict_models` runs several models as one pass per data config
(`reviewer.runs._pass`): each image is decoded once and each batch goes through
every model that still lacks it; each model keeps its own run, file, writes and
report (`reviewer.runs._attempt`). The precision (`models.PRECISIONS`) and the
decoding are recorded in the run's `preprocessing` and are part of its identity:
a run resumes only with the same ones. Each run's report also keeps
`first_batch_seconds` (from the call to the first probabilities: loading,
preparing, the first decode) and the result `finish_seconds` (after the last
batch: writes, mistakes).

This module holds the entry points: the options checked, the models loaded, each
model's run found, made or reused, the runs grouped into passes and locked, and
each complete run ended.

The units of work of a run are opened by this lifecycle only, each one step of it
(by design not one transaction: a killed run resumes from its committed batches):
here the model and its runs found or made, the run created, and `end_run` (its
mistakes stored; in `reviewer.runs._end`, which an import of scores shares without
loading torch); in `reviewer.runs._attempt` the run prepared (lost rows
forgotten, its row set running), each batch's rows, and the report.
`reviewer.runs.records` reads and writes through the session each step gives it;
`reviewer.app.runs` is the act the window and the command line call.
"""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Callable, Sequence

from db.tables import Run
from models import (
    DEFAULT_PRECISION,
    PRECISIONS,
    InferenceConfig,
    ModelInputError,
    PipelineConfig,
    ProbabilityWriter,
    default_batch_size,
    load_model,
)
from models.inference import padded_batch_size
from models.pipeline import DECODERS
from models.sources import LoadedModel
from reviewer.errors import InputError
from reviewer.project import Project
from reviewer.runs._attempt import Attempt, run_preprocessing
from reviewer.runs._end import end_run
from reviewer.runs._pass import Pass
from reviewer.runs.records import (
    ProgressCallback,
    RunLock,
    RunResult,
    matching_runs,
    model_row,
    prediction_count,
    probs_relpath,
    run_images,
    run_precision,
    save_image_ids,
)
from reviewer.terms import RunStatus


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
    attempts: list[tuple[int, Attempt]] = []
    for index, (model, checkpoint, name) in enumerate(zip(models, checkpoints, names)):
        loading = time.perf_counter()
        try:  # weights stay on the CPU until the decoding processes have started (see _pass.Pass)
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
        attempts.append((index, Attempt(project, run, loaded, model_name, pipeline=pipeline,
                                        inference=InferenceConfig(streams=streams, precision=precision,
                                                                  pad_to=pad_to),
                                        load_seconds=load_seconds, resumed=unfinished is not None)))
    for group in _groups([a for _, a in attempts]):
        with ExitStack() as locks:
            for attempt in group:
                locks.enter_context(RunLock(project, attempt.run.id))
            Pass(project, group, called=called).compute(progress=progress, cancel=cancel)
    for index, attempt in attempts:
        result = attempt.result
        if result.status == RunStatus.COMPLETE:
            result.mistakes, result.mistakes_note = end_run(project, attempt.run.id)
        result.finish_seconds = round(time.perf_counter() - attempt.last_batch_at, 3) if attempt.last_batch_at else 0.0
        results[index] = result
    return [results[i] for i in range(len(models))]


def _groups(attempts: list[Attempt]) -> list[list[Attempt]]:
    """Attempts that can share decoded images: the same data config and decoding."""
    groups: dict[str, list[Attempt]] = {}
    for attempt in attempts:
        key = json.dumps([attempt.loaded.data_config, attempt.pipeline], sort_keys=True, default=str)
        groups.setdefault(key, []).append(attempt)
    return list(groups.values())


def _create_run(project: Project, model_id: int, ids: list[int], loaded: LoadedModel, *,
                image_slice: str | None, limit: int | None, fast_decode: bool, precision: str) -> Run:
    def work(session) -> Run:
        run = Run(model_id=model_id, status=RunStatus.RUNNING, image_slice=image_slice, num_images=len(ids),
                  device=str(loaded.device),
                  preprocessing=run_preprocessing(loaded, fast_decode=fast_decode, precision=precision),
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
