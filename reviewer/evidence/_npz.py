"""Reading NumPy files from outside without trusting them.

Never unpickles: `np.load(..., allow_pickle=False)` for small members, and the
large rater tensor read from its header and raw bytes one rater at a time (it
is 377 MB as float64 in memory; streamed, an import holds one rater's slice).
An array of Python objects, a header that lies about its size, or a member
that is not an array is refused with an `InputError` naming the file.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Iterator

import numpy as np
import numpy.lib.format as npformat

from reviewer.errors import InputError

# No published rater file comes near these; a header beyond them is not one.
MAX_ELEMENTS = 2_000_000_000


def _pickle_refused(source: str, member: str) -> InputError:
    return InputError(source, f"its '{member}' array holds Python objects (a pickle); such arrays are never "
                              "loaded, as unpickling a file can run code", hint="is it the right file?")


def load_array(path: str | Path, member: str | None = None) -> np.ndarray:
    """An .npy file, or one member of an .npz, loaded with allow_pickle=False."""
    source = str(path)
    try:
        loaded = np.load(path, allow_pickle=False)
        if member is None:
            if not isinstance(loaded, np.ndarray):
                raise InputError(source, "is an .npz archive where an .npy array was expected")
            return loaded
        with loaded:
            return loaded[member]
    except InputError:
        raise
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "pickled" in str(exc):
            raise _pickle_refused(source, member or "array") from None
        raise InputError(source, f"is not a readable NumPy file ({exc})", hint="is the file complete?") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise InputError(source, f"is not a readable NumPy file ({exc})", hint="is the file complete?") from None


def npz_members(path: str | Path) -> list[str]:
    """The array names in an .npz archive (its members without '.npy')."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(str(path), f"is not a readable .npz archive ({exc})",
                         hint="is the file complete? re-download it") from None
    return [n[:-4] if n.endswith(".npy") else n for n in names]


def iter_rows(path: str | Path, member: str) -> tuple[tuple[int, ...], Iterator[np.ndarray]]:
    """The shape of a 3-d member of an .npz and an iterator over its first axis
    (one `shape[1:]` array at a time), read from the raw bytes without unpickling."""
    source = str(path)
    archive = zipfile.ZipFile(path)
    try:
        info = archive.getinfo(f"{member}.npy")
        fh = archive.open(info)
        version = npformat.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = npformat.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = npformat.read_array_header_2_0(fh)
        else:
            raise InputError(source, f"its '{member}' array has NumPy format version {version}, "
                                     "not 1.0 or 2.0", hint="save it again with numpy.savez")
    except InputError:
        archive.close()
        raise
    except (KeyError, ValueError, OSError, zipfile.BadZipFile) as exc:
        archive.close()
        raise InputError(source, f"its '{member}' array cannot be read ({exc})",
                         hint="is the file complete? re-download it") from None
    if dtype.hasobject:
        archive.close()
        raise _pickle_refused(source, member)
    if len(shape) != 3 or dtype.kind not in "biuf":
        archive.close()
        raise InputError(source, f"its '{member}' array has shape {shape} and type {dtype}; expected a numeric "
                                 "raters x questions x 3 array")
    count = int(np.prod(shape, dtype=np.int64))
    if count > MAX_ELEMENTS or info.file_size < count * dtype.itemsize:
        archive.close()
        raise InputError(source, f"its '{member}' array claims {shape} but the archive holds "
                                 f"{info.file_size:,} bytes for it", hint="is the file complete? re-download it")

    def rows() -> Iterator[np.ndarray]:
        try:
            step = int(np.prod(shape[1:])) * dtype.itemsize
            if fortran:  # column-major: the first axis is not contiguous; read it whole (never pickled)
                whole = np.frombuffer(fh.read(count * dtype.itemsize), dtype=dtype)
                yield from whole.reshape(shape, order="F")
                return
            for _ in range(shape[0]):
                chunk = fh.read(step)
                if len(chunk) != step:
                    raise InputError(source, f"its '{member}' array ends early", hint="is the file complete?")
                yield np.frombuffer(chunk, dtype=dtype).reshape(shape[1:])
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise InputError(source, f"its '{member}' array cannot be read ({exc})",
                             hint="is the file complete? re-download it") from None
        finally:
            fh.close()
            archive.close()

    return tuple(shape), rows()
