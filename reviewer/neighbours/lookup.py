"""What the index says about one project image: its K nearest training images, its
duplicates, and the evidence lines the review page and `reviewer show` print
("8 of 10 nearest training images labelled cassette player"; "exact duplicate of
n02085620_1234.JPEG, labelled Chihuahua in training").

`NeighbourIndex.open` reads an index's small files once (neighbours.json,
duplicates.json, and of the training listing only the rows they name, so 1.28 M
training paths are never held in memory); `facts(file_name)` is then a dictionary
look-up, cheap enough for the review window's worker to ask for every mistake it
prefetches. `stale()` says whether a newer build replaced the files (a few stat
calls), so a window follows a `reviewer index` run in another process.
"""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from reviewer.neighbours.store import IndexFiles, find_indexes

KIND_WORDS = {"exact": "exact duplicate", "perceptual": "near duplicate (perceptual hash)",
              "embedding": "near duplicate (embedding)"}
KIND_ORDER = {"exact": 0, "perceptual": 1, "embedding": 2}
WHERE = {"train": "in training", "project": "in this project"}


def _class_name(wnid: str) -> str | None:
    from reviewer.classes.vocabulary import load_classes

    classes = load_classes()
    try:
        return classes.names[classes.index(wnid)]
    except KeyError:
        return None


@dataclass(frozen=True)
class TrainingNeighbour:
    """One of the K nearest training images of a project image, best first."""

    rank: int
    path: str
    file_name: str
    wnid: str  # its training label ("" when its folder names none)
    name: str | None  # the class name of the wnid
    similarity: float  # cosine similarity of the embeddings
    duplicate: str | None = None  # "exact" / "perceptual" / "embedding" when it is also a duplicate

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "duplicate"}


@dataclass(frozen=True)
class Duplicate:
    """Another image with the same pixels (exact) or nearly the same (perceptual, embedding)."""

    kind: str
    collection: str  # "train" or "project"
    path: str
    file_name: str
    wnid: str
    name: str | None
    similarity: float | None = None  # embedding duplicates
    distance: int | None = None  # perceptual duplicates: dHash bits apart

    def as_dict(self) -> dict:
        out = {"kind": self.kind, "collection": self.collection, "path": self.path, "file_name": self.file_name,
               "wnid": self.wnid, "name": self.name}
        out.update({k: v for k, v in (("distance", self.distance), ("similarity", self.similarity)) if v is not None})
        return out


@dataclass(frozen=True)
class NeighbourFacts:
    """What the index says about one image (`computed` False: the image is in no complete
    run's mistakes when the index was built, so its neighbours were not stored)."""

    index: str  # the model whose embeddings the index holds
    k: int
    computed: bool
    neighbours: tuple[TrainingNeighbour, ...]
    duplicates: tuple[Duplicate, ...]
    lines: tuple[str, ...]

    @property
    def training_duplicates(self) -> tuple[Duplicate, ...]:
        return tuple(d for d in self.duplicates if d.collection == "train")

    def as_dict(self) -> dict:
        """`reviewer show --json`'s keys."""
        return {"index": self.index, "k": self.k, "computed": self.computed,
                "neighbours": [n.as_dict() for n in self.neighbours],
                "duplicates": [d.as_dict() for d in self.duplicates], "lines": list(self.lines)}


class NeighbourIndex:
    """One complete index beside a project, its small files read once."""

    def __init__(self, files: IndexFiles) -> None:
        self.files = files
        self._stamp = self._stamp_now()
        self.manifest = files.read_manifest() or {}
        self.model = self.manifest.get("model", files.folder.name)
        self.root = Path(self.manifest.get("images", ""))
        stored = _read_json(files.neighbours_path, {"k": None, "images": {}})
        self.k = int(stored.get("k") or self.manifest.get("k") or 0)
        self._neighbours: dict[str, list] = stored.get("images", {})
        self._duplicates: dict[str, list[dict]] = {}
        for pair in _read_json(files.duplicates_path, []):
            self._duplicates.setdefault(pair["image"], []).append(pair)
        wanted = {row for near in self._neighbours.values() for row, _ in near}
        self._train = _training_rows(files, wanted)

    @classmethod
    def open(cls, project_root: Path) -> "NeighbourIndex | None":
        """The most recently built complete index beside the project, or None."""
        indexes = find_indexes(project_root)
        return cls(indexes[0]) if indexes else None

    def _stamp_now(self) -> tuple:
        out = []
        for path in (self.files.manifest_path, self.files.neighbours_path, self.files.duplicates_path):
            try:
                st = os.stat(path)
                out.append((st.st_mtime_ns, st.st_size))
            except FileNotFoundError:
                out.append(None)
        return tuple(out)

    def stale(self) -> bool:
        """A build since this was read changed its files."""
        return self._stamp_now() != self._stamp

    def __contains__(self, file_name: str) -> bool:
        return file_name in self._neighbours or file_name in self._duplicates

    def image_vectors(self, file_names: set[str]) -> dict[str, np.ndarray]:
        """{file name: its embedding, float32} of the project's images asked for that the index
        embedded (a skipped file's zero row is left out): the grouped review's neighbourhoods."""
        wanted = {}
        for row, (path, _) in enumerate(self.files.read_files("project")):
            name = Path(path).name if path else ""
            if name in file_names:
                wanted[name] = row
        if not wanted:
            return {}
        embeddings = self.files.open_embeddings("project")
        rows = sorted(wanted.values())
        vectors = np.asarray(embeddings[rows], dtype=np.float32)
        by_row = dict(zip(rows, vectors))
        return {name: by_row[row] for name, row in wanted.items() if np.any(by_row[row])}

    def all_duplicates(self) -> dict[str, tuple[Duplicate, ...]]:
        """{project file name: its duplicates} for every image that has one (the leakage report)."""
        return {name: tuple(_duplicate(p) for p in pairs) for name, pairs in self._duplicates.items()}

    def facts(self, file_name: str, *, predicted: int | None = None) -> NeighbourFacts:
        """The image's neighbours, duplicates and evidence lines (`predicted`: the shown
        prediction, named in the line when the neighbours' most common label differs)."""
        duplicates = tuple(sorted((_duplicate(p) for p in self._duplicates.get(file_name, ())),
                                  key=lambda d: (KIND_ORDER[d.kind], d.collection != "train")))
        # A neighbour that is also a duplicate of the image is marked as one.
        dup_of_path = {}
        for d in duplicates:
            if d.collection == "train":
                dup_of_path.setdefault(d.path, d.kind)
        stored = self._neighbours.get(file_name)
        neighbours = []
        for rank, (row, similarity) in enumerate(stored or (), start=1):
            relative, wnid = self._train.get(row, ("", ""))
            path = str(self.root / relative)
            neighbours.append(TrainingNeighbour(rank=rank, path=path, file_name=Path(relative).name, wnid=wnid,
                                                name=_class_name(wnid), similarity=similarity,
                                                duplicate=dup_of_path.get(path)))
        return NeighbourFacts(index=self.model, k=self.k, computed=stored is not None,
                              neighbours=tuple(neighbours), duplicates=duplicates,
                              lines=tuple(evidence_lines(neighbours, duplicates, predicted=predicted)))


def _read_json(path: Path, default):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default


def _training_rows(files: IndexFiles, wanted: set[int]) -> dict[int, tuple[str, str]]:
    """{row: (path relative to the training folder, wnid)} of the rows asked for, read in one
    pass over the listing without keeping the others."""
    out: dict[int, tuple[str, str]] = {}
    if not wanted:
        return out
    with open(files.files_csv("train"), newline="", encoding="utf-8") as f:
        for record in csv.DictReader(f):
            row = int(record["row"])
            if row in wanted:
                out[row] = (record["path"], record["wnid"])
    return out


def _duplicate(pair: dict) -> Duplicate:
    other = pair["other"]
    return Duplicate(kind=pair["kind"], collection=other["collection"], path=other["path"],
                     file_name=other["file_name"], wnid=other["wnid"], name=_class_name(other["wnid"]),
                     similarity=pair.get("similarity"), distance=pair.get("distance"))


def read_neighbour_evidence(project_root: Path, file_name: str, *, predicted: int | None = None) -> dict:
    """{"index": model or None, "neighbours": [...], "duplicates": [...], "lines": [...]} for one image,
    from the most recently built complete index beside the project (empty when there is none)."""
    index = NeighbourIndex.open(project_root)
    if index is None:
        return {"index": None, "neighbours": [], "duplicates": [], "lines": []}
    return index.facts(file_name, predicted=predicted).as_dict()


def evidence_lines(neighbours, duplicates, *, predicted: int | None = None) -> list[str]:
    """The evidence lines for an image's neighbours and duplicates (sorted: exact first,
    training before this project)."""
    lines = []
    if neighbours:
        counts = Counter(n.name or n.wnid or "no label" for n in neighbours)
        top, count = counts.most_common(1)[0]
        line = f"{count} of {len(neighbours)} nearest training images labelled {top}"
        if predicted is not None:
            from reviewer.classes.vocabulary import load_classes

            name = load_classes().names[predicted]
            if name != top:
                line += f"; {counts.get(name, 0)} labelled {name} (the prediction)"
        lines.append(line)
    for d in duplicates:
        label = d.name or d.wnid or "no label"
        measure = (f" (similarity {d.similarity:.3f})" if d.similarity is not None
                   else f" ({d.distance} bits apart)" if d.distance is not None else "")
        lines.append(f"{KIND_WORDS[d.kind]} of {d.file_name}, labelled {label} {WHERE[d.collection]}" + measure)
    return lines
