"""The files of an index, beside the project: P/index/<model>/.

- manifest.json: the model, its weights' hash, its data config (the pixels), the
  training folder, the embedding's size, the thresholds, and `complete` once built;
- for each collection (`train`: the training folder, `project`: the project's images):
  <name>_files.csv (row, path, wnid), <name>.npy (float16 [rows, dim], memory-mapped,
  unit rows; a skipped file's row is zeros) and <name>_rows.jsonl, one line per row
  done (in order: the file's decoded-pixel hash, its dHash, or the reason it was
  skipped). The .jsonl is the progress file: a resumed build starts after its last
  complete line (the embeddings of a chunk are flushed before its lines are written);
- neighbours.json: the K nearest training rows of each precomputed project image, and
  how they were found ("search": exact, or the approximate index's settings);
- train.ivfpq.faiss: with `reviewer index --approximate`, the approximate index;
- duplicates.json: exact and near duplicates of the project's images.

A complete index's manifest records every other file's size and digest and its own
digest (`integrity`): `read_manifest` refuses a damaged one, naming it.
"""

from __future__ import annotations

import csv
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reviewer._files import atomic_write_text
from reviewer.neighbours.integrity import IndexDamaged, file_record, parse_manifest, sealed

INDEX_FOLDER = "index"
COLLECTIONS = ("train", "project")


def index_name(model: str) -> str:
    """A folder name for a model name (`tf_efficientnet_lite0`, `org/model.tag` -> safe)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._") or "model"


@dataclass(frozen=True)
class IndexFiles:
    folder: Path

    @classmethod
    def of(cls, project_root: Path, model: str) -> "IndexFiles":
        return cls(Path(project_root) / INDEX_FOLDER / index_name(model))

    @property
    def manifest_path(self) -> Path:
        return self.folder / "manifest.json"

    def files_csv(self, collection: str) -> Path:
        return self.folder / f"{collection}_files.csv"

    def embeddings_path(self, collection: str) -> Path:
        return self.folder / f"{collection}.npy"

    def rows_path(self, collection: str) -> Path:
        return self.folder / f"{collection}_rows.jsonl"

    @property
    def neighbours_path(self) -> Path:
        return self.folder / "neighbours.json"

    @property
    def duplicates_path(self) -> Path:
        return self.folder / "duplicates.json"

    @property
    def approximate_path(self) -> Path:
        """The approximate index of the training embeddings (`reviewer index --approximate`)."""
        return self.folder / "train.ivfpq.faiss"

    @property
    def approximate_settings_path(self) -> Path:
        """The settings the approximate index was built with, written once it is complete."""
        return self.folder / "train.ivfpq.json"

    def data_names(self) -> list[str]:
        """The names of every file of an index but its manifest, in a stable order."""
        names = [n for c in COLLECTIONS for n in (f"{c}_files.csv", f"{c}.npy", f"{c}_rows.jsonl")]
        return names + ["neighbours.json", "duplicates.json", self.approximate_path.name,
                        self.approximate_settings_path.name]

    def present_names(self) -> list[str]:
        return [n for n in self.data_names() if (self.folder / n).exists()]

    def read_manifest(self) -> dict | None:
        """The manifest (None: no index here, or one whose build has not written it yet);
        `IndexDamaged` when it is damaged, or missing beside the index's other files."""
        try:
            data = self.manifest_path.read_bytes()
        except FileNotFoundError:
            if self.present_names():
                raise IndexDamaged(self, self.manifest_path.name, "is missing (the index's other files are there)")
            return None
        manifest, problem = parse_manifest(data)
        if problem is not None:
            raise IndexDamaged(self, self.manifest_path.name, problem)
        return manifest

    def write_manifest(self, manifest: dict) -> None:
        """Written whole or not at all, with its own digest; a complete index's manifest also
        records every other file's size and digest (`"files"`, unless given)."""
        if manifest.get("complete") and "files" not in manifest:
            manifest = {**manifest, "files": {n: file_record(self.folder / n) for n in self.present_names()}}
        write_json(self.manifest_path, sealed(manifest))

    def read_files(self, collection: str) -> list[tuple[str, str]]:
        """[(path, wnid)] in row order."""
        with open(self.files_csv(collection), newline="", encoding="utf-8") as f:
            return [(r["path"], r["wnid"]) for r in csv.DictReader(f)]

    def write_files(self, collection: str, files: list[tuple[str, str]]) -> None:
        tmp = self.files_csv(collection).with_suffix(".tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["row", "path", "wnid"])
            writer.writerows((i, p, w) for i, (p, w) in enumerate(files))
        os.replace(tmp, self.files_csv(collection))

    def read_rows(self, collection: str) -> list[dict]:
        """The rows done so far; a torn last line (a kill while writing) is cut off the file,
        and so is every line from the first that is not a row (those rows are done again)."""
        path = self.rows_path(collection)
        if not path.exists():
            return []
        rows, good_bytes = [], 0
        with open(path, "rb") as f:
            for line in f:
                if not line.endswith(b"\n"):
                    break
                try:
                    row = json.loads(line)
                except ValueError:
                    break
                if not _is_row(row):
                    break
                rows.append(row)
                good_bytes += len(line)
        if good_bytes != path.stat().st_size:
            with open(path, "r+b") as f:
                f.truncate(good_bytes)
        return rows

    def append_rows(self, collection: str, rows: list[dict]) -> None:
        with open(self.rows_path(collection), "a", encoding="utf-8") as f:
            f.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
            f.flush()
            os.fsync(f.fileno())

    def open_embeddings(self, collection: str, *, rows: int | None = None, dim: int | None = None,
                        mode: str = "r") -> np.ndarray:
        """The collection's float16 [rows, dim] memmap; created (zeros) when `rows` is given and it is missing."""
        path = self.embeddings_path(collection)
        if not path.exists() and rows is not None:
            return np.lib.format.open_memmap(path, mode="w+", dtype=np.float16, shape=(rows, dim))
        return np.load(path, mmap_mode=mode)


def _is_row(row) -> bool:
    """A progress line: {"sha": hex, "dhash": int} of an embedded file, or {"error": reason}."""
    if not isinstance(row, dict):
        return False
    if "error" in row:
        return isinstance(row["error"], str) and bool(row["error"])
    return isinstance(row.get("sha"), str) and isinstance(row.get("dhash"), int)


def write_json(path: Path, data) -> None:
    """Written whole or not at all (a temporary file, synced, then a rename)."""
    atomic_write_text(path, json.dumps(data, indent=1, ensure_ascii=False))


def find_indexes(project_root: Path) -> list[IndexFiles]:
    """The complete indexes beside a project, the most recently built first; `IndexDamaged`
    when one's manifest is damaged (which index is newest cannot be told then)."""
    root = Path(project_root) / INDEX_FOLDER
    found = []
    for folder in sorted(root.iterdir()) if root.is_dir() else ():
        if not folder.is_dir():
            continue
        files = IndexFiles(folder)
        manifest = files.read_manifest()
        if manifest and manifest.get("complete"):
            found.append((str(manifest.get("built_at", "")), files))
    return [f for _, f in sorted(found, key=lambda x: x[0], reverse=True)]
