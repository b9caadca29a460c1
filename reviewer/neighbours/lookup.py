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

Every file is checked against the manifest before it is read (`integrity`): a damaged
one opens as a `DamagedIndex`, whose facts carry the error in place of neighbours (the
window goes on without them and says which file and how to rebuild it), and whose
other reads raise it (`reviewer show`, the report, the alike-mistakes review by similarity).
"""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from reviewer.neighbours.integrity import IndexDamaged, neighbours_problem, npy_problem, record_problem
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
    problem: str | None = None  # a damaged index: which file, and the command that rebuilds it (also the line)

    @property
    def training_duplicates(self) -> tuple[Duplicate, ...]:
        return tuple(d for d in self.duplicates if d.collection == "train")

    def as_dict(self) -> dict:
        """`reviewer show --json`'s keys."""
        return {"index": self.index, "k": self.k, "computed": self.computed,
                "neighbours": [n.as_dict() for n in self.neighbours],
                "duplicates": [d.as_dict() for d in self.duplicates], "lines": list(self.lines)}


def _stat_stamp(paths) -> tuple:
    out = []
    for path in paths:
        try:
            st = os.stat(path)
            out.append((st.st_mtime_ns, st.st_size))
        except (FileNotFoundError, NotADirectoryError):
            out.append(None)
    return tuple(out)


class NeighbourIndex:
    """One complete index beside a project, its small files read once, each checked first."""

    def __init__(self, files: IndexFiles) -> None:
        self.files = files
        self._stamp = self._stamp_now()
        self.manifest = files.read_manifest() or {}
        self._check_recorded()
        self.model = str(self.manifest.get("model", files.folder.name))
        self.root = Path(str(self.manifest.get("images", "")))
        stored = self._json(files.neighbours_path)
        problem = neighbours_problem(stored, train_rows=None)  # the rows: against the listing, below
        if problem is not None:
            raise self._damaged(files.neighbours_path.name, problem)
        self.k = int(stored.get("k") or self.manifest.get("k") or 0)
        self._neighbours: dict[str, list] = stored["images"]
        self._duplicates: dict[str, list[dict]] = {}
        pairs = self._json(files.duplicates_path)
        if not isinstance(pairs, list) or not all(_is_pair(p) for p in pairs):
            raise self._damaged(files.duplicates_path.name, "is damaged: not a list of duplicates")
        for pair in pairs:
            self._duplicates.setdefault(pair["image"], []).append(pair)
        wanted = {row for near in self._neighbours.values() for row, _ in near}
        self._check(files.files_csv("train"))
        try:
            self._train = _training_rows(files, wanted)
        except (ValueError, KeyError, TypeError, csv.Error, UnicodeDecodeError) as exc:
            raise self._damaged(files.files_csv("train").name, f"is damaged: {exc}") from exc
        if len(self._train) != len(wanted):
            raise self._damaged(files.files_csv("train").name, "is damaged: it lacks training rows the neighbours name")

    @classmethod
    def open(cls, project_root: Path) -> "NeighbourIndex | DamagedIndex | None":
        """The most recently built complete index beside the project (a `DamagedIndex` when a
        file of it failed its check), or None."""
        for attempt in (1, 2):
            stamp = None
            try:
                indexes = find_indexes(project_root)
                if not indexes:
                    return None
                stamp = _stat_stamp((indexes[0].manifest_path,))
                return cls(indexes[0])
            except IndexDamaged as exc:
                # A build that started meanwhile rewrites the manifest before it touches any other
                # file: then the index is being rebuilt, not damaged, and is looked for again.
                if attempt == 1 and stamp is not None and _stat_stamp((indexes[0].manifest_path,)) != stamp:
                    continue
                return DamagedIndex(exc)
        return None

    def _stamp_now(self) -> tuple:
        return _stat_stamp((self.files.manifest_path, self.files.neighbours_path, self.files.duplicates_path))

    def stale(self) -> bool:
        """A build since this was read changed its files."""
        return self._stamp_now() != self._stamp

    def _damaged(self, name: str, problem: str) -> IndexDamaged:
        return IndexDamaged(self.files, name, problem, manifest=self.manifest)

    def _check_recorded(self) -> None:
        """The manifest records every file, and each has its size and, if written since, its digest
        (as a rule stat calls only)."""
        records = self.manifest.get("files")
        if not isinstance(records, dict) or "checksum" not in self.manifest:
            raise self._damaged(self.files.manifest_path.name, "records no sizes and checksums of the index's "
                                "files (an index built before they were checked)")
        self._records = records
        optional = (self.files.approximate_path.name, self.files.approximate_settings_path.name)
        for name in self.files.data_names():
            if name in optional and name not in records:
                continue
            if name not in records:
                raise self._damaged(name, "is not recorded in the manifest")
            problem = record_problem(self.files.folder / name, records[name], unless_unmodified=True)
            if problem is not None:
                raise self._damaged(name, problem)

    def _check(self, path: Path) -> None:
        """The file's size and digest are those the manifest recorded."""
        problem = record_problem(path, self._records.get(path.name))
        if problem is not None:
            raise self._damaged(path.name, problem)

    def _json(self, path: Path):
        self._check(path)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise self._damaged(path.name, f"is damaged: not JSON ({exc})") from exc

    def __contains__(self, file_name: str) -> bool:
        return file_name in self._neighbours or file_name in self._duplicates

    def image_vectors(self, file_names: set[str]) -> dict[str, np.ndarray]:
        """{file name: its embedding, float32} of the project's images asked for that the index
        embedded (a skipped file's zero row is left out): the alike-mistakes review's neighbourhoods."""
        self._check(self.files.files_csv("project"))
        self._check(self.files.embeddings_path("project"))
        try:
            listing = self.files.read_files("project")
        except (ValueError, KeyError, csv.Error, UnicodeDecodeError) as exc:
            raise self._damaged(self.files.files_csv("project").name, f"is damaged: {exc}") from exc
        problem = npy_problem(self.files.embeddings_path("project"), rows=len(listing), dim=None)
        if problem is not None:
            raise self._damaged(self.files.embeddings_path("project").name, problem)
        wanted = {}
        for row, (path, _) in enumerate(listing):
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


class DamagedIndex:
    """Stands in for the newest index beside the project when one of its files failed its
    check: `facts` carry the error instead of neighbours (so the window goes on and says
    which file and how to rebuild it), every other read raises it."""

    def __init__(self, error: IndexDamaged) -> None:
        self.error = error
        self.files = error.files
        self.model = error.files.folder.name
        self.k = 0
        self._paths = (self.files.manifest_path, error.path)
        self._stamp = _stat_stamp(self._paths)

    @property
    def manifest(self) -> dict:
        raise self.error

    def stale(self) -> bool:
        """The manifest or the damaged file changed since (a rebuild, a deletion)."""
        return _stat_stamp(self._paths) != self._stamp

    def __contains__(self, file_name: str) -> bool:
        return False

    def facts(self, file_name: str, *, predicted: int | None = None) -> NeighbourFacts:
        """No neighbours, the error as the one line (the strip shows it where the duplicates go);
        `computed`: not "no mistake when the index was built", which is not known."""
        return NeighbourFacts(index=self.model, k=self.k, computed=True, neighbours=(), duplicates=(),
                              lines=(str(self.error),), problem=str(self.error))

    def all_duplicates(self) -> dict[str, tuple[Duplicate, ...]]:
        raise self.error

    def image_vectors(self, file_names: set[str]) -> dict[str, np.ndarray]:
        raise self.error


def _is_pair(pair) -> bool:
    other = pair.get("other") if isinstance(pair, dict) else None
    return (isinstance(pair.get("image") if isinstance(pair, dict) else None, str) and pair.get("kind") in KIND_ORDER
            and isinstance(other, dict) and other.get("collection") in WHERE
            and all(isinstance(other.get(k), str) for k in ("path", "file_name", "wnid")))


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
    if isinstance(index, DamagedIndex):
        raise index.error
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
