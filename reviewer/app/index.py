"""The nearest-neighbour index for any front end (`reviewer index`): a training
folder and the project's images embedded, their duplicates found and every
mistake's nearest training images stored (`reviewer.neighbours.build`).

Like a model run it is computed in many units of work by design (each chunk of
embeddings is kept, so a killed index resumes); the act returns its summary and
says that the facts shown beside an item (its neighbours, its duplicates) may
have changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from reviewer.app.changes import Changes, Done
from reviewer.project import Project


def build_index(project: Project, *, images: str | Path, model: str | None = None, checkpoint: str | Path | None = None,
                k: int | None = None, device: str | None = "cpu", batch_size: int = 16,
                progress: Callable[[str], None] | None = None, approximate: bool = False,
                nprobe: int | None = None) -> Done:
    """Build (or resume) the index of the training folder `images` beside the project;
    None: the default model (the bundled EfficientNet-Lite0) and k (10, as the paper, or
    every training image of a smaller set; a larger k is refused with the set's size).
    `approximate`: the neighbours from an approximate index (faiss IVF-PQ, `nprobe` cells
    scanned per query) instead of exact search."""
    from reviewer.errors import UserError
    from reviewer.neighbours import build

    if k is not None and k < 1:
        raise UserError("--k must be at least 1")
    if batch_size < 1:
        raise UserError("--batch-size must be at least 1")
    if nprobe is not None and (not approximate or nprobe < 1):
        raise UserError("--nprobe needs --approximate and is at least 1")
    settings = None
    if approximate:
        from reviewer.neighbours.approximate import ApproximateSettings

        settings = ApproximateSettings(**({"nprobe": nprobe} if nprobe else {}))
    options = {name: value for name, value in (("model", model), ("k", k)) if value is not None}
    summary = build.build_index(project, images=Path(images), checkpoint=Path(checkpoint) if checkpoint else None,
                                device=device, batch_size=batch_size, progress=progress, approximate=settings,
                                **options)
    return Done(summary, Changes(labels=True))
