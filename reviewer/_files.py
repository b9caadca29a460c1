"""Small file helpers: atomic writes and content hashes."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path


def _umask() -> int:
    """The process's umask, read without changing it where the system allows (Linux:
    /proc; elsewhere set and restored at once)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode(path: Path) -> int:
    """The permissions a file written at `path` gets: those of the file it replaces, else
    what open() would give a new file (0666 less the umask: 0644 as a rule). A temporary
    file is 0600, and renaming it into place kept that: a project.json another user of
    a shared folder could not read."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write `data` so that `path` holds either its old content or all of the new
    (with the permissions of `new_file_mode`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = new_file_mode(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()
