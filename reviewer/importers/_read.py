"""Reading input files with errors that name the file, the record and the problem."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Iterator

from reviewer.classes.vocabulary import load_classes
from reviewer.errors import InputError
from reviewer.wording import counted

WNID_HINT = "labels are ImageNet-1k wnids, e.g. n01440764 for tench"
INDEX_HINT = "class indices are 0-999 in sorted-wnid order, as in timm"


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    # json.load keeps the last of two equal keys without a word; in a label or
    # review file that silently drops a record, so it is an error here.
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return data


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes; an InputError when it is missing, a folder or empty."""
    path = Path(path)
    if path.is_dir():
        raise InputError(str(path), "is a folder, not a file", hint="pass the label or review file itself")
    if not path.exists():
        raise InputError(str(path), "file not found", hint="check the path")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(str(path), f"cannot be read ({exc.strerror})", hint="check its permissions") from exc
    if not raw.strip():
        raise InputError(str(path), "is empty", hint="is the file complete? re-download or re-export it")
    for magic, kind, hint in _BINARY_KINDS:
        if raw.startswith(magic):  # not text at all: "save it as UTF-8" would send the user astray
            raise InputError(str(path), f"is {kind}, not a label, review or evidence file", hint=hint)
    return raw


_IMAGE_HINT = ("image files go in a folder given to 'reviewer init PROJECT --images FOLDER' or 'reviewer "
               "import-images PROJECT FOLDER'; --labels and the import commands take label, review and "
               "evidence files: JSON, CSV or text")
_ARCHIVE_HINT = "unpack it and import the file inside"
# What a binary file given for a text one most likely is, by its first bytes.
_BINARY_KINDS = (
    (b"\xff\xd8\xff", "a JPEG image", _IMAGE_HINT),
    (b"\x89PNG\r\n\x1a\n", "a PNG image", _IMAGE_HINT),
    (b"GIF8", "a GIF image", _IMAGE_HINT),
    (b"RIFF", "a RIFF file (a WebP image?)", _IMAGE_HINT),
    (b"PK\x03\x04", "a ZIP archive", _ARCHIVE_HINT),
    (b"\x1f\x8b", "a gzip archive", _ARCHIVE_HINT),
    (b"BZh", "a bzip2 archive", _ARCHIVE_HINT),
    (b"\xfd7zXZ\x00", "an xz archive", _ARCHIVE_HINT),
    (b"\x93NUMPY", "a NumPy array", "a model's logits or probabilities import with 'reviewer import-logits'"),
    (b"%PDF", "a PDF document", "give the data file the document describes"),
    (b"SQLite format 3\x00", "an SQLite database", "open a project folder with 'reviewer gui FOLDER'; "
                                                   "to import labels, give the label file"),
)


def decode_text(path: str | Path, raw: bytes) -> str:
    """UTF-8 text (a byte-order mark is allowed); errors give the line of the bad byte."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError(str(path), f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at line {line})",
                         hint="save it as UTF-8 and import it again") from None


def read_json(path: str | Path) -> Any:
    """Parse a JSON file (UTF-8, UTF-16 or UTF-32 as JSON allows); keys must be unique."""
    raw = read_bytes(path)
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(raw) > 3 and b"\x00" in raw[:4]):
        try:  # UTF-16/32 (RFC 4627 allows them); json.loads detects which
            return json.loads(raw, object_pairs_hook=_unique_keys)
        except (UnicodeDecodeError, json.JSONDecodeError):
            pass  # not text in a UTF encoding after all: reported below
        except _DuplicateKey as exc:
            raise _duplicate(path, exc.key) from None
        except RecursionError:
            raise _too_deep(path) from None
        except ValueError:
            raise _too_long(path) from None
    text = decode_text(path, raw)
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise _too_deep(path) from None
    except json.JSONDecodeError as exc:
        if not text[:exc.pos].strip():  # fails at its first character: another kind of file
            start = text.strip().splitlines()[0][:40]
            raise InputError(str(path), f"is not a JSON file (it begins {start!r})",
                             hint="is it the right file?") from None
        # json's message may end in "at" itself ("Unterminated string starting at").
        raise InputError(str(path), f"not valid JSON ({exc.msg.removesuffix(' at')} at line {exc.lineno}, "
                                    f"column {exc.colno})",
                         hint="is the file complete? re-download or re-export it") from None
    except _DuplicateKey as exc:
        raise _duplicate(path, exc.key) from None
    except ValueError:  # a number with more digits than Python converts (int_max_str_digits)
        raise _too_long(path) from None


def _too_deep(path: str | Path) -> InputError:
    return InputError(str(path), "is nested too deeply to be a label file (arrays or objects within each other "
                                 "thousands of levels deep)", hint="is it the right file?")


def _too_long(path: str | Path) -> InputError:
    return InputError(str(path), "holds a number of thousands of digits: no class index or count is that long",
                      hint="is it the right file?")


def _duplicate(path: str | Path, key: str) -> InputError:
    return InputError(str(path), f"{key!r} appears twice in one JSON object", record=key,
                      hint="keep one of the two entries and import the file again")


def shown(value: Any, limit: int = 60) -> str:
    """A JSON value as the user wrote it, cut short."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def class_of_wnid(wnid: Any, *, source: str, record: str) -> int:
    """Class index of an ImageNet-1k wnid, or an InputError naming the record."""
    if not isinstance(wnid, str):
        raise InputError(source, f"expected a wnid string, got {shown(wnid)}", record=record, hint=WNID_HINT)
    try:
        return load_classes().index(wnid)
    except KeyError:
        raise InputError(source, f"{wnid!r} is not one of the 1000 ImageNet-1k classes", record=record,
                         hint=WNID_HINT) from None


def class_of_index(value: Any, *, source: str, record: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1000:
        raise InputError(source, f"class index must be an integer 0-999, got {shown(value)}",
                         record=record, hint=INDEX_HINT)
    return value


def class_of_label(value: Any, *, source: str, record: str) -> int:
    """A label given as wnid ('n01440764') or class index (0-999, int or digits)."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        if len(value.strip()) > 4:  # never converted: a 20-million-digit "class" must not stall or crash
            raise InputError(source, f"class index must be an integer 0-999, got {shown(value)}", record=record,
                             hint=INDEX_HINT)
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        return class_of_index(value, source=source, record=record)
    return class_of_wnid(value.strip() if isinstance(value, str) else value, source=source, record=record)


def image_name(value: Any, *, source: str, record: str) -> str:
    """An image's file name as a label file gives it: a plain name, never a path.

    Names identify images and are joined to folders on export, so a name with
    a folder part (`../x`, `a/b.JPEG`) or a control character is refused.
    """
    if not isinstance(value, str):
        raise InputError(source, f"expected an image file name, got {shown(value)}", record=record)
    name = value.strip()
    bad = (not name or len(name) > 255 or name in (".", "..") or "/" in name or "\\" in name
           or any(ord(ch) < 32 for ch in name))
    if bad:
        raise InputError(source, f"{shown(value)} is not an image file name", record=record,
                         hint="images are named by their file name alone, e.g. ILSVRC2012_val_00000001.JPEG")
    return name


def class_index_text(text: str, *, source: str, record: str, column: str) -> int:
    """A class index written in a CSV cell (digits only, 0-999)."""
    if not (text.isascii() and text.isdigit() and len(text) <= 4):
        raise InputError(source, f"'{column}' must be a class index 0-999, got {shown(text)}", record=record)
    return class_of_index(int(text), source=source, record=record)


def class_index_list(text: str, *, source: str, record: str, column: str) -> list[int]:
    """Class indices separated by commas in a CSV cell ("" = none), in the cell's order."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not (part.isascii() and part.isdigit() and len(part) <= 4):
            raise InputError(source, f"'{column}' must list class indices 0-999 separated by commas, got "
                                     f"{shown(text)}", record=record)
        out.append(class_of_index(int(part), source=source, record=record))
    return out


def open_csv(path: str | Path) -> tuple[list[str], Iterator[list[str]]]:
    """A CSV file's header (stripped) and a reader over its other rows (any encoding `decode_text` reads)."""
    reader = csv.reader(io.StringIO(decode_text(path, read_bytes(path)), newline=""))
    return [c.strip() for c in next(reader, [])], reader


def image_rows(reader, header: list[str], *, source: str, id_column: str = "id"
               ) -> Iterator[tuple[str, str, dict[str, str]]]:
    """(image name, record, cells by column, stripped) for each non-blank row of a CSV with one
    row per image: a row of the wrong length, a name that is not a file name, or an image listed
    twice is refused with its line."""
    first_line: dict[str, int] = {}
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        record = f"line {line}"
        if len(row) != len(header):
            raise InputError(source, f"has {counted(len(row), 'field')} where the header has {len(header)}", record=record,
                             hint="is the file complete? a label list must be quoted (\"1, 2\")")
        cells = {name: row[i].strip() for i, name in enumerate(header)}
        name = image_name(cells[id_column], source=source, record=record)
        if name in first_line:
            raise InputError(source, f"{name} is listed twice (lines {first_line[name]} and {line})",
                             record=record, hint="an image has one row; keep one of the two")
        first_line[name] = line
        yield name, record, cells
