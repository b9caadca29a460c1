"""Make a PatchML set in a project (`reviewer patchml`): Anzaku et al.'s synthetic
multi-label images of object patches (§3.2, Algorithm 1; `reviewer.importers.patchml`),
drawn from the boxes of the project's own images, written as a slice that `reviewer
predict --images NAME` runs on and the report scores (`reviewer.evaluation.patchml`).

The boxes are read and checked, and the set planned, before anything is written; the
images are drawn into PROJECT/patchml/.NAME.partial and renamed to PROJECT/patchml/NAME
when all are there; then one unit of work adds the images, their labels and the slice
with its rule. If that fails, the folder goes too: nothing half-made stays.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from reviewer.app.changes import Changes, Done
from reviewer.errors import UserError
from reviewer.project import Project

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class PatchMLMade:
    name: str  # the slice
    folder: Path  # where its images and manifest.json are
    rule: dict  # reviewer.importers.patchml.description: seed, counts per k and per label count, ...


def default_name(seed: int) -> str:
    return f"patchml-s{seed}"


def make_patchml(project: Project, boxes: str | Path, *, seed: int, name: str | None = None,
                 skip_missing: bool = False, progress: Callable[[int, int], None] | None = None
                 ) -> Done[PatchMLMade]:
    """A PatchML set from the boxes file `boxes` (LOC_val_solution.csv layout) over the
    project's images, with the paper's K, P and F and this `seed`; stored as the slice
    `name` (default patchml-s<seed>). `progress(done, total)` is called per image drawn."""
    from sqlalchemy import select

    from db.tables import Image
    from reviewer._files import atomic_write_text, sha256_file
    from reviewer.classes.vocabulary import load_classes
    from reviewer.evaluation.slices import MAX_NAME, save_slice, slice_names
    from reviewer.importers.boxes import read_boxes
    from reviewer.importers.patchml import (
        PATCH_COUNTS,
        description,
        manifest,
        plan_patchml,
        store_patchml,
        write_images,
    )

    name = default_name(seed) if name is None else name.strip()
    if not NAME.match(name) or len(name) > MAX_NAME:
        raise UserError(f"{name!r}: a PatchML set's name is its slice's and its folder's: 1 to {MAX_NAME} letters, "
                        "digits, '.', '_' or '-', starting with a letter or digit")
    if seed < 0:
        raise UserError(f"--seed {seed}: a seed is a whole number 0 or more")
    with project.read() as session:
        if name in slice_names(session=session):
            raise UserError(f"the project already has a slice named {name!r}: choose another seed, or name the set "
                            "with --name")
        images = {file_name: project.image_file(image) for file_name, image in
                  ((row.file_name, row) for row in session.execute(select(Image)).scalars())}
    pool = read_boxes(boxes, images=images, skip_missing=skip_missing)
    composites = plan_patchml(pool.boxes, seed=seed)
    if not composites:
        raise UserError(f"{boxes}: {len(pool.boxes)} box(es) make no PatchML image (each needs at least "
                        f"{min(PATCH_COUNTS)} patches); add boxes")
    root = project.root / "patchml"
    folder, partial = root / name, root / f".{name}.partial"
    if folder.exists():
        raise UserError(f"{folder} exists though the project has no slice {name!r} (left from an earlier try?): "
                        "remove the folder, or choose another --name")
    shutil.rmtree(partial, ignore_errors=True)
    sha = sha256_file(boxes)
    head = description(composites, pool, name=name, seed=seed, sha256=sha)
    try:
        write_images(composites, pool.boxes, partial, name=name, image_path=lambda n: images[n], progress=progress)
        atomic_write_text(partial / "manifest.json",
                          manifest(composites, pool.boxes, head, class_names=load_classes().wnids))
        partial.rename(folder)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise

    def work(session) -> None:
        ids = store_patchml(session=session, composites=composites, name=name, folder=folder,
                            boxes_path=str(Path(boxes).resolve()), sha256=sha)
        save_slice(session=session, name=name, image_ids=ids, rule=head)

    try:
        project.write(work)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Done(PatchMLMade(name, folder, head), Changes(labels=True))
