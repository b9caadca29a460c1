"""The K nearest training images of every mistake of every complete run, computed when
the index is built (so the review page never waits) and kept in neighbours.json:
{"k": K, "search": how, "images": {file_name: [[training row, similarity], ...]}}. A later
build (`reviewer index` again, after new runs) computes only the images not there yet;
one with another K or another search (exact, approximate) computes them all again."""

from __future__ import annotations

import json
import time

import numpy as np

from reviewer.neighbours.search import QUERY_BATCH, knn
from reviewer.neighbours.store import IndexFiles, write_json


def mistake_images(project) -> list[tuple[int, str]]:
    """[(row in the project collection, file name)] of the images that are a mistake of a complete run."""
    from sqlalchemy import select

    from db.tables import Image, Mistake, Run
    from reviewer.terms import RunStatus

    with project.read() as session:
        ids = list(session.execute(select(Image.id, Image.file_name).order_by(Image.id)).all())
        wanted = set(session.execute(select(Mistake.image_id).join(Run, Run.id == Mistake.run_id)
                                     .where(Run.status == str(RunStatus.COMPLETE))).scalars())
    return [(row, name) for row, (image_id, name) in enumerate(ids) if image_id in wanted]


def read_neighbours(files: IndexFiles) -> dict:
    try:
        return json.loads(files.neighbours_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"k": None, "images": {}}


def precompute_neighbours(project, files: IndexFiles, *, k: int, progress=None, batch: int = QUERY_BATCH,
                          search=None) -> int:
    """Compute and store the neighbours of the mistakes not stored yet; returns how many.
    `search`: `(queries, k) -> (rows, similarities)` with a `record` saying what it is
    (build._Search); None: exact search over the valid training rows."""
    from reviewer.neighbours.build import valid_rows

    say = progress or (lambda line: None)
    record = getattr(search, "record", {"kind": "exact"})
    stored = read_neighbours(files)
    if stored.get("k") != k or stored.get("search", {"kind": "exact"}) != record:
        stored = {"k": k, "search": record, "images": {}}
    project_valid = valid_rows(files, "project")
    todo = [(row, name) for row, name in mistake_images(project)
            if name not in stored["images"] and project_valid[row]]
    if not todo:
        write_json(files.neighbours_path, stored)
        return 0
    say(f"neighbours: the {k} nearest training images of {len(todo)} mistaken images")
    started = time.perf_counter()
    project_embeddings = files.open_embeddings("project")
    if search is None:
        train, train_valid = files.open_embeddings("train"), valid_rows(files, "train")
        search = lambda queries, k_: knn(queries, train, k_, valid=train_valid)  # noqa: E731
    for start in range(0, len(todo), batch):  # stored after each batch: a killed build keeps them
        part = todo[start:start + batch]
        queries = np.asarray(project_embeddings[[row for row, _ in part]], dtype=np.float32)
        rows, sims = search(queries, k)
        for (_, name), r, s in zip(part, rows, sims):
            stored["images"][name] = [[int(a), round(float(b), 5)] for a, b in zip(r, s) if a >= 0]
        write_json(files.neighbours_path, stored)
        done = start + len(part)
        say(f"neighbours: {done}/{len(todo)} images ({1000 * (time.perf_counter() - started) / done:.1f} ms per image)")
    return len(todo)
