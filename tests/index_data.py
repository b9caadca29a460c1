"""A hand-built nearest-neighbour index beside a project (the files `reviewer index` writes,
reviewer/neighbours/store.py), for tests whose answers must not hang on a model: the
window's neighbours strip, the review of alike mistakes, the leakage section.

Importable from any test as `from index_data import write_index`. Its manifest records
every file's size and checksum, as a build's does (`reviewer.neighbours.integrity`).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from reviewer.neighbours.store import IndexFiles, write_json


def write_index(project_root: Path, *, train_root: Path, train: list[tuple[str, str]],
                project: list[tuple[str, str]] | None = None, neighbours: dict[str, list] | None = None,
                duplicates: list[dict] | None = None, project_vectors: np.ndarray | None = None,
                model: str = "hand_built", k: int = 10) -> IndexFiles:
    """An index named `model`, complete: `train` [(path relative to train_root, wnid)],
    `project` [(absolute path, wnid)] (the project collection, one row per image),
    `neighbours` {file name: [(training row, similarity), ...]}, `duplicates` as
    duplicates.json holds them, `project_vectors` [rows, dim] (unit rows) for the project."""
    files = IndexFiles.of(project_root, model)
    files.folder.mkdir(parents=True, exist_ok=True)
    project = project or []
    dim = project_vectors.shape[1] if project_vectors is not None else 8
    files.write_files("train", train)
    files.write_files("project", project)
    np.save(files.embeddings_path("train"), np.zeros((len(train), dim), dtype=np.float16))
    vectors = project_vectors if project_vectors is not None else np.zeros((len(project), dim))
    np.save(files.embeddings_path("project"), np.asarray(vectors, dtype=np.float16))
    for name, listing in (("train", train), ("project", project)):
        files.append_rows(name, [{"sha": str(i), "dhash": i} for i in range(len(listing))])
    write_json(files.neighbours_path, {"k": k, "images": {name: [[int(r), float(s)] for r, s in near]
                                                          for name, near in (neighbours or {}).items()}})
    write_json(files.duplicates_path, duplicates or [])
    files.write_manifest({"model": model, "images": str(train_root), "k": k, "dim": dim, "complete": True,
                          "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                          "counts": {"train": len(train), "project": len(project)}})
    return files


def record_files(files: IndexFiles) -> None:
    """Record the index's files as they are now in its manifest, as a build does at its end
    (a test that changes a file as a rebuild would)."""
    manifest = {k: v for k, v in files.read_manifest().items() if k not in ("files", "checksum")}
    files.write_manifest(manifest)


def duplicate(image: str, kind: str, *, train_root: Path, path: str, wnid: str, row: int = 0,
              collection: str = "train", **measure) -> dict:
    """One entry of duplicates.json: `image` (a project file name) and the other image."""
    full = str(Path(train_root) / path) if collection == "train" else path
    return {"image": image, "kind": kind, **measure,
            "other": {"collection": collection, "row": row, "path": full, "file_name": Path(path).name,
                      "wnid": wnid}}
