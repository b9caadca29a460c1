"""One pass over the images of runs that share a data config (`Pass`): the images
decoded once (the decoding started before the weights move to the device), each
batch sent through every model that still lacks some of its images, progress
reported and a cancel honoured after each batch, and every attempt closed with
the pass's status (complete, cancelled or failed). Private to
`reviewer.runs.compute`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

import torch

from models import create_batch_loader, default_streams
from models.inference import ForwardStreams
from reviewer.project import Project
from reviewer.runs._attempt import Attempt
from reviewer.runs.records import ProgressCallback, image_files
from reviewer.terms import RunStatus


class Pass:
    """One pass over the images of runs that share a data config: each image decoded once,
    each batch computed by every model that still lacks some of its images."""

    def __init__(self, project: Project, attempts: list[Attempt], *, called: float):
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
