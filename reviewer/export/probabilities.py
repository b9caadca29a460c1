"""A run's full softmax as an `.npz` a notebook can load, and `import-logits` reads back.

Layout: `file_names` (1-D unicode array, sorted) and `probabilities` (float16
[images, 1000], the values the run stored, row i for file_names[i]); `model`
(a 0-d string) names the model. Only the run's predicted images are written
(an image a run skipped has no row). The file is written as a zip of two
`.npy` members, the probabilities streamed in blocks, so a 50,000-image run is
never held in memory; and it is written aside and renamed into place, so a
failure leaves no half-written file.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import select
from sqlmodel import Session

from db.tables import Image, Model, Prediction, Run
from reviewer.errors import UserError
from reviewer.project import Project
from reviewer.runs.predictions import run_probabilities

BLOCK = 4096


@dataclass(frozen=True)
class ProbabilityExport:
    path: Path
    model: str
    images: int


def export_probabilities(project: Project, run_id: int, path: str | Path, *, session: Session) -> ProbabilityExport:
    """Write run `run_id`'s probabilities to `path` (.npz)."""
    path = Path(path).expanduser()
    found = session.execute(select(Run, Model.name).join(Model, Model.id == Run.model_id)
                            .where(Run.id == run_id)).first()
    if found is None:
        raise UserError(f"no run with id {run_id}; 'reviewer report PROJECT' lists the runs")
    run, model = found
    rows = session.execute(select(Image.file_name, Prediction.row).join(Image, Image.id == Prediction.image_id)
                           .where(Prediction.run_id == run_id).order_by(Image.file_name)).all()
    probs = run_probabilities(project, run)
    if probs is None:
        raise UserError(f"run {run_id} of {model} has no probability file in {project.root / 'runs'}; "
                        "compute the run again with 'reviewer predict ... --rerun'")
    if not rows:
        raise UserError(f"run {run_id} of {model} has no predictions yet; nothing was written")
    names = np.array([name for name, _ in rows])
    order = np.array([row for _, row in rows], dtype=np.int64)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
            with archive.open("file_names.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, names, allow_pickle=False)
            with archive.open("model.npy", "w") as member:
                np.lib.format.write_array(member, np.array(model), allow_pickle=False)
            with archive.open("probabilities.npy", "w", force_zip64=True) as member:
                header = {"descr": np.lib.format.dtype_to_descr(np.dtype(probs.dtype)), "fortran_order": False,
                          "shape": (len(order), probs.shape[1])}
                np.lib.format.write_array_header_2_0(member, header)
                for start in range(0, len(order), BLOCK):
                    member.write(np.ascontiguousarray(probs[order[start:start + BLOCK]]).tobytes())
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UserError(f"could not write {path}: {exc.strerror or exc}") from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return ProbabilityExport(path=path, model=model, images=len(order))
