"""An index that checks its own files (issue 36).

A complete index's manifest.json records the size, modification time and SHA-256 digest
of every other file of the index (`"files"`), and a digest of its own content
(`"checksum"`), so a damaged file is found and named, never read as if it were sound:

- the window, `reviewer show` and `reviewer report` (`lookup.NeighbourIndex`) check the
  manifest's own digest, the digest of each file they read (neighbours.json,
  duplicates.json, train_files.csv when the index opens; project_files.csv and project.npy
  when the alike-mistakes review asks for embeddings), and of every other file its size and, if
  it was written since the build recorded it (another modification time), its digest.
  So train.npy (3.3 GB for ImageNet), which they never read, costs a stat call while it is
  as the build left it. A digest is computed once per process for a file's (size, times,
  inode) (`file_digest`), so a window that re-opens an unchanged index reads nothing again;
- `reviewer index` checks every recorded file's digest, whatever its times, before it uses
  any (`repair.repair_index`), and the files of a build that was stopped (recorded by no
  complete build yet) by their structure; a damaged file is deleted and computed again.

`IndexDamaged` is the one error a damaged file gives: the file, what is wrong with it, and
the command that rebuilds the index.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from reviewer.errors import UserError

if TYPE_CHECKING:
    from reviewer.neighbours.store import IndexFiles

DIGEST = "sha256"  # OpenSSL's, on the CPU's SHA instructions: 2.5x hashlib's BLAKE2b on the 2-core dev machine
BLOCK = 1 << 20
_MEMO_SIZE = 256
_memo: OrderedDict[tuple, str] = OrderedDict()
_memo_lock = threading.Lock()  # the window's two reader threads may check files at once


class IndexDamaged(UserError):
    """A file of an index beside the project is damaged or missing: which, what is wrong, and
    the command that rebuilds the index (it repairs every damaged file)."""

    def __init__(self, files: "IndexFiles", name: str, problem: str, *, manifest: dict | None = None) -> None:
        self.files, self.name, self.problem = files, name, problem
        self.path = files.folder / name
        self.command = rebuild_command(files, manifest)
        super().__init__(f"the index file {self.path} {problem}; rebuild the index, which repairs it: {self.command}")


def rebuild_command(files: "IndexFiles", manifest: dict | None = None) -> str:
    """The `reviewer index` command that rebuilds this index, from what its manifest says
    (placeholders where the manifest is unreadable)."""
    m = manifest if isinstance(manifest, dict) else {}

    def text(key: str) -> str | None:
        value = m.get(key)
        return value if isinstance(value, str) and value else None

    parts = ["reviewer", "index", str(files.folder.parent.parent), "--images", text("images") or "TRAIN_DIR",
             "--model", text("model") or files.folder.name]
    if text("checkpoint"):
        parts += ["--checkpoint", text("checkpoint")]
    k = m.get("k")
    if isinstance(k, int) and k != 10:
        parts += ["--k", str(k)]
    search = m.get("search")
    if isinstance(search, dict) and search.get("kind") == "ivfpq":
        parts.append("--approximate")
        if isinstance(search.get("nprobe"), int) and search["nprobe"] not in (32, search.get("nlist")):  # defaults
            parts += ["--nprobe", str(search["nprobe"])]
    return shlex.join(parts)


def file_digest(path: Path) -> str:
    """The file's SHA-256 (hex), computed once per process for its (size, modification and
    change times, inode): any write changes the change time, so a damaged file is read again."""
    st = os.stat(path)
    key = (str(path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    with _memo_lock:
        found = _memo.get(key)
    if found is not None:
        return found
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(BLOCK):
            digest.update(block)
    found = digest.hexdigest()
    with _memo_lock:
        _memo[key] = found
        while len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    return found


def file_record(path: Path) -> dict:
    """What the manifest records of a file: {"size": bytes, "mtime_ns": its modification time,
    "sha256": hex}."""
    st = os.stat(path)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, DIGEST: file_digest(path)}


def record_problem(path: Path, record: object, *, unless_unmodified: bool = False) -> str | None:
    """What is wrong with the file against its record (None: nothing): its size, then its
    digest; `unless_unmodified`: not the digest of a file whose modification time is the one
    recorded (no write since the build: a reader's check of the large files it does not read)."""
    if not isinstance(record, dict) or not isinstance(record.get("size"), int):
        return "has no usable record in the manifest"
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "is missing"
    if st.st_size != record["size"]:
        return (f"is damaged: {st.st_size:,} bytes where the manifest recorded {record['size']:,}"
                + (" (emptied)" if st.st_size == 0 else " (truncated)" if st.st_size < record["size"] else ""))
    if unless_unmodified and st.st_mtime_ns == record.get("mtime_ns"):
        return None
    if file_digest(path) != record.get(DIGEST):
        return "is damaged: its content differs from what the build recorded (its checksum does not match)"
    return None


def manifest_digest(manifest: dict) -> str:
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sealed(manifest: dict) -> dict:
    """The manifest with the digest of its own content (`"checksum"`)."""
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    return {**body, "checksum": {DIGEST: manifest_digest(body)}}


def parse_manifest(data: bytes) -> tuple[dict | None, str | None]:
    """(the manifest, None) or (None, what is wrong with it). A manifest without a checksum
    (written before the index checked its files) is returned as it is."""
    if not data.strip():
        return None, "is empty"
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"is damaged: not JSON ({exc})"
    if not isinstance(manifest, dict):
        return None, f"is damaged: a JSON {type(manifest).__name__}, not the manifest's object"
    checksum = manifest.get("checksum")
    if checksum is not None and (not isinstance(checksum, dict) or checksum.get(DIGEST) != manifest_digest(manifest)):
        return None, "is damaged: its content differs from what the build wrote (its checksum does not match)"
    return manifest, None


def npy_problem(path: Path, *, rows: int | None, dim: int | None) -> str | None:
    """What is wrong with an embeddings file's structure (None: a float16 [rows, dim] array whose
    bytes are all there); `rows`/`dim` None: any."""
    try:
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                np.lib.format.read_array_header_2_0
            shape, fortran, dtype = read_header(f)
            offset = f.tell()
    except FileNotFoundError:
        return "is missing"
    except (ValueError, OSError, SyntaxError, EOFError) as exc:
        return f"is damaged: not a NumPy array file ({exc})"
    if dtype != np.float16 or fortran or len(shape) != 2:
        return f"is damaged: a {dtype} array of shape {shape}, not float16 [rows, dim]"
    if (rows is not None and shape[0] != rows) or (dim is not None and shape[1] != dim):
        return f"is damaged: shape {shape}, not ({rows}, {dim})"
    expected = offset + shape[0] * shape[1] * 2
    size = os.stat(path).st_size
    if size != expected:
        return f"is damaged: {size:,} bytes where its shape {shape} needs {expected:,}" + (
            " (truncated)" if size < expected else "")
    return None


def neighbours_problem(stored: object, *, train_rows: int | None) -> str | None:
    """What is wrong with neighbours.json's content (None: {"k", "images": {name: [[row, similarity]]}}
    with rows of the training set (below `train_rows`, when given) and similarities of unit vectors)."""
    if not isinstance(stored, dict) or not isinstance(stored.get("images"), dict):
        return f"is damaged: a JSON {type(stored).__name__} without its images"
    if not isinstance(stored.get("k"), (int, type(None))):
        return f"is damaged: K is {stored.get('k')!r}"
    for name, near in stored["images"].items():
        if not isinstance(near, list):
            return f"is damaged: the neighbours of {name} are not a list"
        for pair in near:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], int)
                    and 0 <= pair[0] < (train_rows if train_rows is not None else 2 ** 62)
                    and isinstance(pair[1], (int, float))
                    and -1.01 <= pair[1] <= 1.01):
                return f"is damaged: the neighbours of {name} hold {pair!r}"
    return None
