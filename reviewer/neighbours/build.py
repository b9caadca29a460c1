"""`reviewer index`: embed a training folder and the project's images, find duplicates,
precompute the K nearest training images of every mistake of every complete run.

Resumable: each collection is embedded in chunks; a chunk's embeddings are flushed to
the memory-mapped .npy before its rows are appended to the progress file
(`store.IndexFiles.read_rows`), so a killed build starts again after the last chunk
written, with the same result. The decoding is `reviewer predict`'s (models.pipeline:
timm's eval transform of the model's own data config, bad files skipped with reasons).

Search: exact by default, as the paper's (`search.knn`); with `approximate` (settings of
`approximate.ApproximateSettings`), an IVF-PQ index of the training embeddings is built
(kept as train.ivfpq.faiss, reused while the embeddings and settings stay the same) and
the neighbours come from it, re-scored exactly. Changing the search recomputes them.

Checked: what an earlier build left is checked before it is used (`repair.repair_index`),
and a damaged file computed again; the complete index's manifest records every file's
size and digest for the readers to check (`integrity`).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from reviewer.errors import InputError, UserError
from reviewer.neighbours.store import IndexFiles, write_json

DEFAULT_MODEL = "tf_efficientnet_lite0"
DEFAULT_K = 10
CHUNK = 256  # images embedded between two progress writes
IMAGE_SUFFIXES = (".jpeg", ".jpg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".gif")
WNID = re.compile(r"n\d{8}")
Progress = Callable[[str], None]


@dataclass
class IndexSummary:
    folder: Path
    counts: dict[str, int] = field(default_factory=dict)  # rows per collection
    skipped: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # collection -> [(path, reason)]
    neighbours_computed: int = 0  # project images whose neighbours this build computed
    duplicates: dict[str, int] = field(default_factory=dict)  # kind -> pairs
    repaired: list[tuple[str, str]] = field(default_factory=list)  # (file, what was wrong): computed again
    search: str = "exact"  # how the neighbours were found, in words
    seconds: float = 0.0


def wnid_of(path: Path) -> str:
    """The training label of a file: its folder's wnid (ImageNet train layout), else its name's prefix."""
    for text in (path.parent.name, path.name.split("_")[0]):
        if WNID.fullmatch(text):
            return text
    return ""


def list_training_images(folder: Path) -> list[tuple[str, str]]:
    """[(path relative to `folder`, wnid)] of every image file under it, in a stable order."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"no such folder: {folder}")
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
    if not files:
        raise UserError(f"no image files under {folder}")
    return [(p.relative_to(folder).as_posix(), wnid_of(p)) for p in files]


def list_project_images(project) -> list[tuple[str, str]]:
    """[(absolute path or "", wnid of the original label)] of the project's images, by id."""
    from sqlalchemy import select

    from db.tables import Image
    from reviewer.classes.vocabulary import load_classes

    wnids = load_classes().wnids
    with project.read() as session:
        rows = session.execute(select(Image).order_by(Image.id)).scalars().all()
        return [(str(project.image_file(r) or ""), wnids[r.original_label] if r.original_label is not None else "")
                for r in rows]


def project_file_names(project) -> list[str]:
    from sqlalchemy import select

    from db.tables import Image

    with project.read() as session:
        return list(session.execute(select(Image.file_name).order_by(Image.id)).scalars())


def _listing_sha(files: list[tuple[str, str]]) -> str:
    return hashlib.sha256("\n".join(f"{p}\t{w}" for p, w in files).encode()).hexdigest()


def build_index(project, *, images: Path, model: str = DEFAULT_MODEL, checkpoint: Path | None = None,
                k: int | None = None, device: str | None = "cpu", batch_size: int = 16, chunk: int = CHUNK,
                progress: Progress | None = None, stop_after_chunks: int | None = None,
                approximate=None) -> IndexSummary:
    """Build (or resume) the index of `images` beside `project`; see the module's docstring.
    `k`: None, the paper's 10 (fewer on a smaller training set); more than the training
    images is refused. `stop_after_chunks` stops after that many chunks embedded (tests of the resume);
    `approximate`: an `approximate.ApproximateSettings` (None: exact search)."""
    from reviewer.neighbours.duplicates import DUPLICATE_SETTINGS, find_duplicates
    from reviewer.neighbours.precompute import precompute_neighbours, read_neighbours
    from reviewer.neighbours.repair import repair_index

    say = progress or (lambda line: None)
    started = time.perf_counter()
    images = Path(images).resolve()
    files = IndexFiles.of(project.root, model)
    train = list_training_images(images)
    if k is None:  # the default: the paper's 10, or every training image of a smaller set
        k = min(DEFAULT_K, len(train))
    elif k > len(train):  # refused before anything is computed: K rows and similarities per mistake
        raise InputError(f"--k {k}", f"is more than the {len(train)} training images under {images}",
                         hint=f"K is at most {len(train)}")
    loaded, embedder = _load_embedder(model, checkpoint=checkpoint, device=device)
    files.folder.mkdir(parents=True, exist_ok=True)
    collections = {"train": train, "project": list_project_images(project)}
    manifest = {
        "model": model, "checkpoint": str(checkpoint) if checkpoint else None,
        "weights_sha256": loaded.weights_sha256, "source": loaded.source,
        "features": "forward_head(forward_features(x), pre_logits=True), L2-normalised",
        "dim": embedder.dim, "data_config": {k_: (list(v) if isinstance(v, tuple) else v)
                                             for k_, v in loaded.data_config.items()},
        "images": str(images), "k": k, "dtype": "float16",
        "listings": {name: _listing_sha(listing) for name, listing in collections.items()},
        **DUPLICATE_SETTINGS,
    }
    repair = repair_index(files, manifest, listed={name: len(listing) for name, listing in collections.items()},
                          approximate=approximate is not None, progress=say)
    kept = repair.kept
    summary = IndexSummary(folder=files.folder, repaired=repair.damaged)
    chunks_left = [stop_after_chunks]
    for name, listing in collections.items():
        files.write_files(name, listing)
        root = images if name == "train" else None
        done = _embed_collection(files, name, listing, root, embedder, loaded.data_config, batch_size, chunk,
                                 say, chunks_left)
        if not done:
            return summary
        rows = files.read_rows(name)
        summary.counts[name] = len(rows)
        summary.skipped[name] = [(listing[i][0], r["error"]) for i, r in enumerate(rows) if r.get("error")]
    search = _search(files, approximate, say)
    summary.search = search.describe()
    files.write_manifest({**manifest, "complete": False, "search": search.record, "files": kept})
    summary.neighbours_computed = precompute_neighbours(project, files, k=k, progress=say, search=search)
    say("duplicates: equal pixels, perceptual hashes, embedding similarity")
    pairs = find_duplicates(files, images_root=images, file_names=project_file_names(project),
                            neighbours=read_neighbours(files))
    write_json(files.duplicates_path, pairs)
    for pair in pairs:
        summary.duplicates[pair["kind"]] = summary.duplicates.get(pair["kind"], 0) + 1
    summary.seconds = time.perf_counter() - started
    files.write_manifest({**manifest, "complete": True, "search": search.record,
                          "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                          "counts": summary.counts,
                          "skipped": {n: [{"path": p, "reason": r} for p, r in s] for n, s in summary.skipped.items()}})
    return summary


def _load_embedder(model: str, *, checkpoint: Path | None, device: str | None):
    """The model and its embedder; a model, checkpoint or device that cannot be used is a
    clear error (the option and what is wrong), never a traceback."""
    from models.embedding import Embedder
    from models.errors import ModelInputError
    from models.sources import load_model

    _check_device_ordinal(device)
    try:
        loaded = load_model(model, checkpoint=checkpoint, device=device)
    except ModelInputError as exc:
        raise InputError(exc.source, exc.problem, hint=exc.hint) from exc
    try:
        return loaded, Embedder(loaded)
    except RuntimeError as exc:  # torch: the model cannot run on the device (memory, driver)
        raise InputError(f"--device {device}", f"the model {model} cannot run there ({exc})") from exc


def _check_device_ordinal(device: str | None) -> None:
    """`cuda:N` names a GPU this machine has (torch accepts any N until the model moves)."""
    text = (device or "").strip().lower()
    if not text.startswith("cuda:"):
        return
    import torch

    try:
        ordinal = int(text[len("cuda:"):])
    except ValueError:
        return  # models.sources.resolve_device says what is wrong with it
    if not torch.cuda.is_available():
        return  # resolve_device: no CUDA on this machine
    count = torch.cuda.device_count()
    if not 0 <= ordinal < count:
        raise InputError(f"--device {device}", f"this machine has {count} CUDA device{'s' if count != 1 else ''}"
                         + (f" (cuda:0 to cuda:{count - 1})" if count > 1 else " (cuda:0)" if count else ""),
                         hint="use --device cuda for the first, or --device cpu")


def _embed_collection(files: IndexFiles, name: str, listing: list[tuple[str, str]], root: Path | None,
                      embedder, data_config: dict, batch_size: int, chunk: int, say: Progress,
                      chunks_left: list) -> bool:
    """Embed the rows not yet done; False when stopped early (`stop_after_chunks`)."""
    from models.pipeline import PipelineConfig, create_batch_loader
    from reviewer.neighbours.hashing import image_hashes

    total = len(listing)
    embeddings = files.open_embeddings(name, rows=total, dim=embedder.dim, mode="r+")
    done = len(files.read_rows(name))
    if done >= total:
        say(f"{name}: {total} images embedded already")
        return True
    if done:
        say(f"{name}: resuming after {done} of {total} images")
    paths = [str(root / p) if root is not None else (p or None) for p, _ in listing]
    config = PipelineConfig(batch_size=batch_size, decoder="threads")
    streams = _EmbeddingStreams(embedder)
    started, skipped = time.perf_counter(), 0
    with ThreadPoolExecutor(2, thread_name_prefix="hash") as hashers:
        for start in range(done, total, chunk):
            if chunks_left[0] is not None:
                if chunks_left[0] <= 0:
                    return False
                chunks_left[0] -= 1
            part = paths[start:start + chunk]
            hashed = hashers.map(lambda p: image_hashes(p) if p else {"error": "the project has no file for this image"},
                                 part)
            vectors = np.zeros((len(part), embedder.dim), dtype=np.float16)
            errors: dict[int, str] = {}
            with streams.stream() as forward:  # as predict: one batch per core at once on a CPU
                loader = create_batch_loader(part, data_config, config)
                for batch, features in forward.map((b, b.pixels) for b in loader):
                    errors.update(batch.failures)
                    if features is not None:
                        vectors[batch.positions] = features
            rows = []
            for i, hashes in enumerate(hashed):
                if i in errors or "error" in hashes:
                    vectors[i] = 0
                    rows.append({"error": errors.get(i) or hashes["error"]})
                else:
                    rows.append(hashes)
            skipped += sum("error" in r for r in rows)
            embeddings[start:start + len(part)] = vectors
            embeddings.flush()
            files.append_rows(name, rows)
            end = start + len(part)
            rate = (end - done) / max(time.perf_counter() - started, 1e-9)
            say(f"{name}: {end}/{total} images ({rate:.1f} images/s"
                + (f", {skipped} skipped" if skipped else "") + ")")
    return True


class _EmbeddingStreams:
    """The embedder as models.inference.ForwardStreams takes a classifier: batches at once,
    each on a thread with its share of torch's threads (default_streams: one per core on a CPU)."""

    def __init__(self, embedder):
        from models.inference import default_streams

        self.predict = embedder.embed
        self.streams = default_streams(embedder.device)

    def stream(self):
        from models.inference import ForwardStreams

        return ForwardStreams(self)


class _Search:
    """How the neighbours are found: `record` (stored with them and in the manifest) and
    `__call__(queries, k) -> (rows, similarities)` over the valid training rows."""

    def __init__(self, files: IndexFiles, settings=None, index=None) -> None:
        self.files, self.settings, self.index = files, settings, index
        self.record = {"kind": "exact"} if settings is None else {"kind": "ivfpq", **settings.as_dict()}

    def describe(self) -> str:
        return "exact (every training image compared)" if self.settings is None else self.settings.describe()

    def __call__(self, queries: np.ndarray, k: int):
        from reviewer.neighbours.approximate import search_ivfpq
        from reviewer.neighbours.search import knn

        train = self.files.open_embeddings("train")
        if self.index is None:
            return knn(queries, train, k, valid=valid_rows(self.files, "train"))
        return search_ivfpq(self.index, train, queries, k, settings=self.settings)


def _search(files: IndexFiles, approximate, say: Progress) -> _Search:
    """Exact search, or the approximate index, built unless the one on disk has these settings."""
    if approximate is None:
        return _Search(files)
    from reviewer.neighbours.approximate import build_ivfpq, load_index, save_index

    train = files.open_embeddings("train")
    valid = valid_rows(files, "train")
    if not valid.any():
        raise UserError("the approximate index needs usable training images: every one was skipped")
    settings = approximate.resolved(*train.shape, usable=int(valid.sum()))
    try:
        old = json.loads(files.approximate_settings_path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError, UnicodeDecodeError):
        old = None
    if old == settings.as_dict() and files.approximate_path.exists():
        try:  # checked against the manifest when it recorded it (repair), else here by what it holds
            index = load_index(files.approximate_path)
            if index.ntotal == int(valid.sum()) and index.d == train.shape[1]:
                say(f"approximate index: {settings.describe()} (built already)")
                return _Search(files, settings, index)
        except RuntimeError:  # faiss: not an index file, or a damaged one
            pass
        say(f"{files.approximate_path} is damaged: built again")
    files.approximate_settings_path.unlink(missing_ok=True)
    index, settings = build_ivfpq(train, settings, valid=valid, progress=say)
    save_index(index, files.approximate_path)
    write_json(files.approximate_settings_path, settings.as_dict())  # after the index: it vouches for it
    say(f"approximate index: {settings.describe()}")
    return _Search(files, settings, index)


def valid_rows(files: IndexFiles, name: str) -> np.ndarray:
    return np.array([not r.get("error") for r in files.read_rows(name)], dtype=bool)
