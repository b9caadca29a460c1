"""A run from precomputed logits or probabilities (`reviewer import-logits`).

Its units of work, each opened here on the project (`reviewer.runs.records` takes
the session): the model's row and its runs, the run started, the predictions and
'complete' together, and the run's end (`_end.end_run`, its mistakes stored).

numpy only, no torch or timm: the file is read a block of rows at a time
(`models.logits`), each block's softmax and top-5 (`models.ranking.top_k`) computed and
its float16 rows written (on a thread, while the next block is computed); what is held
for the whole run is its top-5 (10 numbers an image), so a 50,000-row import holds a few
blocks, not the matrix.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from sqlalchemy import delete, select

from db.tables import Image, Prediction, Run, utcnow
from models.errors import ModelInputError
from models.logits import CHUNK, ScoreFile, read_scores
from models.ranking import TOP_K, top_k
from models.store import ProbabilityWriter
from reviewer._files import sha256_file
from reviewer.errors import InputError, UserError
from reviewer.project import Project
from reviewer.runs._end import end_run
from reviewer.runs.predictions import insert_predictions
from reviewer.runs.records import (
    RunLock,
    RunResult,
    images_file,
    matching_runs,
    model_row,
    prediction_count,
    probs_relpath,
    save_image_ids,
)
from reviewer.terms import RunStatus

STEPS = ("reading the scores", "writing the probabilities", "storing the predictions", "the run's mistakes")


def import_logits(project: Project, path: str | Path, *, model: str, kind: str = "auto",
                  progress: Callable[[str, int, int], None] | None = None):
    """Store a score file as a complete run of `model`; returns a `RunResult`.

    Rows map to images by file name (an .npz with names) or by validation
    index (row i = Image.val_index i). Images of the project without a row
    are left out of the run; a file name the project does not know is an error.
    `progress(step, done, total)` hears each of `STEPS` as it starts, then the end.
    """
    def step(done: int) -> None:
        if progress is not None:
            progress(STEPS[done] if done < len(STEPS) else "done", done, len(STEPS))

    path = Path(path).expanduser().resolve()
    step(0)
    # The file's hash (its identity as the model's weights) is read on a thread of its own beside
    # the checks and the matching: hashlib computes without the GIL, and a second core is free.
    with ThreadPoolExecutor(1, thread_name_prefix="hash") as pool:
        hashing = pool.submit(sha256_file, path)
        try:
            scores = read_scores(path, kind=kind)
        except ModelInputError as exc:
            raise InputError(exc.source, exc.problem, hint=exc.hint) from exc
        image_ids, score_rows = _match_images(project, scores)
        sha = hashing.result()

    def find_runs(session):
        """The model's row (made when new), its runs, and a complete one's predictions."""
        row = model_row(session, name=model, source="logits", checkpoint=str(path), weights_sha256=sha)
        runs = matching_runs(session=session, model_id=row.id, image_slice=None, limit=None)
        done = next((r for r in runs if r.status == RunStatus.COMPLETE), None)
        return row.id, row.name, runs, done and prediction_count(session=session, run_id=done.id)

    model_id, model_name, runs, predicted = project.write(find_runs)
    earlier = [r for r in runs if r.status == RunStatus.COMPLETE]
    if earlier:
        run = earlier[0]
        return RunResult(run_id=run.id, model=model_name, status=RunStatus.COMPLETE, total=run.num_images,
                         predicted=predicted, already_complete=True, mistakes=(run.report or {}).get("mistakes"))
    # An import of this file that was killed (its run left 'running', a full probability
    # file beside it) is resumed under its run's number; older leftovers are removed.
    unfinished = [r.id for r in runs if r.status != RunStatus.COMPLETE and (r.report or {}).get("source") == "logits"]
    report = {"limit": None, "imported_from": str(path), "kind": scores.kind, "file_rows": len(scores),
              "source": "logits", "weights_sha256": sha}
    run_id = _start_run(project, model_id, unfinished[0] if unfinished else None, len(image_ids), report)
    for orphan in unfinished[1:]:
        with contextlib.suppress(UserError), RunLock(project, orphan):  # one being imported now stays
            _remove_run(project, orphan)
    with RunLock(project, run_id):
        try:
            step(1)
            top = _write_probabilities(project, run_id, scores, image_ids, score_rows)
            step(2)

            # Predictions and 'complete' in one transaction: an interrupted import leaves no half run.
            def complete(session) -> None:
                _insert_predictions(session, run_id, image_ids, top)
                run = session.get(Run, run_id)
                run.status, run.finished_at = RunStatus.COMPLETE, utcnow()
                session.add(run)

            project.write(complete)
        except BaseException as exc:
            # Nothing of a failed import stays (no run left 'running', no probability file);
            # if even that fails (the server gone), the retry resumes the run.
            with contextlib.suppress(Exception):
                _remove_run(project, run_id)
            if isinstance(exc, ModelInputError):  # the file changed or ended since it was checked
                raise InputError(exc.source, exc.problem, hint=exc.hint) from None
            if isinstance(exc, OSError) and not isinstance(exc, ConnectionError):
                where = exc.filename or project.runs_dir
                raise UserError(f"could not write {where}: {exc.strerror or exc}; nothing was imported. Free "
                                f"space (or fix the folder's permissions) and run the same command again") from None
            raise
    result = RunResult(run_id=run_id, model=model_name, status=RunStatus.COMPLETE, total=len(image_ids),
                       predicted=len(image_ids))
    step(3)
    result.mistakes, result.mistakes_note = end_run(project, run_id)
    step(4)
    return result


def _start_run(project: Project, model_id: int, resumed: int | None, images: int, report: dict) -> int:
    """A 'running' run of the import: the killed one resumed, else a new one."""
    def work(session) -> int:
        run = session.get(Run, resumed) if resumed is not None else None
        if run is None:
            run = Run(model_id=model_id, device="", preprocessing={})
        run.status, run.num_images, run.report = RunStatus.RUNNING, images, report
        session.add(run)
        session.flush()
        run.probs_path = probs_relpath(run.id)
        session.add(run)
        return run.id

    return project.write(work)


def _write_probabilities(project: Project, run_id: int, scores: ScoreFile, image_ids: np.ndarray,
                         score_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The run's image list and probability file (synced), read from the score file in its
    own order, a block at a time; returns the top-5 of each run row (classes, probabilities)."""
    save_image_ids(project, run_id, image_ids.tolist())
    run_row = np.full(len(scores), -1, dtype=np.int64)  # the run row of each file row; -1: not imported
    run_row[score_rows] = np.arange(len(image_ids))
    classes = np.zeros((len(image_ids), TOP_K), dtype=np.int64)
    values = np.zeros((len(image_ids), TOP_K), dtype=np.float32)
    # Each block's float16 rows are rounded and written on a thread of their own while the next
    # block's softmax is computed (numpy's loops run without the GIL); one block in flight.
    with ProbabilityWriter.create(project.root / probs_relpath(run_id), len(image_ids)) as writer, \
            ThreadPoolExecutor(1, thread_name_prefix="write") as pool:
        writing = None
        for start, block in scores.array.blocks(CHUNK):
            rows = run_row[start:start + len(block)]
            wanted = rows >= 0
            if not wanted.all():  # rows of images the project lacks (a file in validation order)
                rows, block = rows[wanted], block[wanted]
            if not len(rows):
                continue
            probs = scores.probabilities(block)
            if writing is not None:
                writing.result()  # the block before is written (its error raised here)
            writing = pool.submit(writer.write, rows, probs)
            classes[rows], values[rows] = top_k(probs)
        if writing is not None:
            writing.result()
        writer.sync()
    return classes, values


def _insert_predictions(session, run_id: int, image_ids: np.ndarray, top: tuple[np.ndarray, np.ndarray]) -> None:
    """The run's Prediction rows, a block at a time (run row r: image_ids[r], its top-5 top[.][r])."""
    classes, values = top
    for start in range(0, len(image_ids), CHUNK):
        stop = min(start + CHUNK, len(image_ids))
        insert_predictions(session=session, run_id=run_id, image_ids=image_ids[start:stop],
                           rows=np.arange(start, stop), classes=classes[start:stop], values=values[start:stop])


def _remove_run(project: Project, run_id: int) -> None:
    """An unfinished import's run: its row (it has no predictions yet) and its files."""
    def work(session) -> None:
        session.execute(delete(Prediction).where(Prediction.run_id == run_id))
        session.execute(delete(Run).where(Run.id == run_id, Run.status != RunStatus.COMPLETE))

    project.write(work)
    for file in (project.root / probs_relpath(run_id), images_file(project, run_id)):
        file.unlink(missing_ok=True)


def _match_images(project: Project, scores: ScoreFile) -> tuple[np.ndarray, np.ndarray]:
    """(image ids in id order, the score row of each)."""
    with project.read() as session:
        images = session.execute(select(Image.id, Image.file_name, Image.val_index)).all()
    where = str(scores.path)
    if scores.names is None:
        by_index = {val: image_id for image_id, _, val in images if val is not None and val < len(scores)}
        if not by_index:
            raise InputError(where, "rows are in validation-file order, but none of the project's images has a "
                             "validation index", hint="save an .npz with a 'file_names' array naming each row")
        pairs = sorted((image_id, val) for val, image_id in by_index.items())
    else:
        by_name = {name: image_id for image_id, name, _ in images}
        by_stem: dict[str, int] | None = None  # made at the first name not found as it is (0.5 s at 50,000)
        pairs, unknown = [], []
        for row, name in enumerate(scores.names):
            image_id = by_name.get(name)
            if image_id is None:  # a name with a folder, or without the extension
                if by_stem is None:
                    by_stem = {Path(known).stem: known_id for known_id, known, _ in images}
                image_id = by_name.get(Path(name).name) or by_stem.get(Path(name).stem)
            if image_id is None:
                unknown.append(name)
            else:
                pairs.append((image_id, row))
        if unknown:
            raise InputError(where, f"{len(unknown)} of its {len(scores)} file names are not images of the project "
                             f"(first: {', '.join(unknown[:3])})",
                             hint="import those images first, or drop their rows from the file")
        if len({image_id for image_id, _ in pairs}) != len(pairs):
            raise InputError(where, "two rows name the same image (with and without a folder or extension)")
        pairs.sort()
    table = np.array(pairs, dtype=np.int64).reshape(len(pairs), 2)
    return table[:, 0], table[:, 1]
