"""Figures kept between reports, each under its name and the key of what it read.

As FiftyOne keeps an evaluation's results under its key, a report keeps what it
computed in the project folder (PROJECT/cache/figures/): one file per name ("report",
"run-3", ...), holding the key it was computed under and the figure. A figure is
served only when the key it is asked for is the one it was kept under; the key is a
digest of everything the figure reads (`reviewer.analysis.inputs`: aggregates of the
tables, the project's settings, the probability files' size and time), of this
code (every source file's size and time, `code_fingerprint`) and of the libraries
that compute it. Anything else (a file cut short, another version's, another
project's, one written by another user, or none) is a miss: the figure is
computed again and kept, never served stale and never a crash.

Figures are pickled, and a pickle runs code as it loads, so every file is signed
(HMAC-SHA256) with a secret kept in the user's own data folder (`reviewer.paths`,
made on first use, readable by the user only) and is unpickled only once its
signature checks: a file someone else put in a shared project folder is a miss,
not code run in the reader's name. Each user keeps their files in a folder of
their own (named after their secret), so two users of one folder do not undo each
other's figures. Writing is best effort: a read-only project folder keeps nothing
and the report is computed as before.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import pickle
import secrets
from importlib import metadata
from pathlib import Path
from typing import Callable, TypeVar

from reviewer._files import atomic_write_bytes
from reviewer.paths import ASSETS_DIR, REPO_ROOT, user_data

T = TypeVar("T")
FOLDER = Path("cache") / "figures"
MAGIC = b"reviewer figures 1\n"
SECRET_FILE = "figure-cache.key"
CODE_PACKAGES = ("reviewer", "models", "db")
SOURCE_FILES = (".py", ".json", ".csv", ".txt")
LIBRARIES = ("numpy", "pandas", "scipy", "statsmodels", "krippendorff", "sqlalchemy")
_MISSING = object()


def digest(inputs) -> str:
    """The SHA-256 of `inputs` as canonical JSON (dict keys sorted; dates and paths as text)."""
    text = json.dumps(inputs, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def code_fingerprint() -> str:
    """This code and the libraries that compute the figures: every source file of the
    app's packages and its shipped tables by path, size and modification time, and the
    libraries' versions.
    A changed metric's definition is a new key, whatever the version number says."""
    files = []
    for package in (*(REPO_ROOT / p for p in CODE_PACKAGES), ASSETS_DIR):  # assets: WordNet, collapsed mappings
        for folder, _, names in os.walk(package):
            for name in names:
                if name.endswith(SOURCE_FILES):
                    stat = os.stat(os.path.join(folder, name))
                    files.append((os.path.relpath(os.path.join(folder, name), REPO_ROOT), stat.st_size,
                                  stat.st_mtime_ns))
    versions = {}
    for library in LIBRARIES:
        try:
            versions[library] = metadata.version(library)
        except metadata.PackageNotFoundError:
            versions[library] = None
    return digest({"files": sorted(files), "libraries": versions})


def _secret() -> bytes | None:
    """The user's signing secret, made on first use (None when it cannot be kept)."""
    try:
        path = user_data() / SECRET_FILE
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    except OSError:
        pass
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made by another process just now
        try:
            data = path.read_bytes()
        except OSError:
            return None
        return data if len(data) >= 32 else None
    except OSError:
        return None
    data = secrets.token_bytes(32)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return data


class FigureCache:
    """The figures kept in one project folder (module docstring). `get(name, inputs,
    compute)` returns the kept figure when `inputs` are those it was computed from,
    else computes it, keeps it and returns it."""

    def __init__(self, project_root: str | Path, *, code: str | None = None):
        self.secret = _secret()
        user = hashlib.sha256(self.secret).hexdigest()[:16] if self.secret else "unsigned"
        self.folder = Path(project_root) / FOLDER / user
        self.code = code_fingerprint() if code is None else code
        self.hits: list[str] = []  # names served from the cache, in order (for tests and benchmarks)
        self.misses: list[str] = []

    def key(self, inputs) -> str:
        return digest({"code": self.code, "inputs": inputs})

    def path(self, name: str) -> Path:
        return self.folder / f"{name}.pickle"

    def load(self, name: str, key: str):
        """The figure kept under `name` with `key`, or `_MISSING`."""
        if self.secret is None:
            return _MISSING
        try:
            data = self.path(name).read_bytes()
        except OSError:
            return _MISSING
        head = len(MAGIC) + hashlib.sha256().digest_size
        if len(data) <= head or not data.startswith(MAGIC):
            return _MISSING
        signature, payload = data[len(MAGIC):head], data[head:]
        if not hmac.compare_digest(signature, hmac.new(self.secret, payload, hashlib.sha256).digest()):
            return _MISSING
        try:
            kept_name, kept_key, value = pickle.loads(payload)
        except Exception:  # signed by us but unreadable now (a library changed its pickles): recompute
            return _MISSING
        return value if (kept_name, kept_key) == (name, key) else _MISSING

    def save(self, name: str, key: str, value) -> None:
        """Keep `value` under `name` and `key`; a folder that cannot be written keeps nothing."""
        if self.secret is None:
            return
        try:
            payload = pickle.dumps((name, key, value), protocol=pickle.HIGHEST_PROTOCOL)
            signature = hmac.new(self.secret, payload, hashlib.sha256).digest()
            atomic_write_bytes(self.path(name), MAGIC + signature + payload)
        except Exception:  # best effort: a figure that cannot be kept is computed again next time
            pass

    def get(self, name: str, inputs, compute: Callable[[], T]) -> T:
        key = self.key(inputs)
        value = self.load(name, key)
        if value is not _MISSING:
            self.hits.append(name)
            return value
        self.misses.append(name)
        value = compute()
        self.save(name, key, value)
        return value

    def forget(self, keep: Callable[[str], bool]) -> None:
        """Remove the kept figures whose name `keep` refuses (a removed run's)."""
        try:
            files = list(self.folder.glob("*.pickle"))
        except OSError:
            return
        for file in files:
            if not keep(file.stem):
                try:
                    file.unlink()
                except OSError:
                    pass
