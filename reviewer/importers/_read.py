"""Reading input files with errors that name the file and the problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewer.errors import InputError
from reviewer.vocabulary import load_classes


def read_json(path: str | Path) -> Any:
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "file not found", hint="check the path")
    try:
        with open(path, "rb") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise InputError(str(path), f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})",
                         hint="is the file complete? re-download or re-export it") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"cannot be read ({exc})") from exc


def class_of_wnid(wnid: Any, *, source: str, record: str) -> int:
    """Class index of an ImageNet-1k wnid, or an InputError naming the record."""
    if not isinstance(wnid, str):
        raise InputError(source, f"expected a wnid string, got {wnid!r}", record=record)
    try:
        return load_classes().index(wnid)
    except KeyError:
        raise InputError(source, f"{wnid!r} is not one of the 1000 ImageNet-1k classes", record=record) from None


def class_of_index(value: Any, *, source: str, record: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1000:
        raise InputError(source, f"class index must be an integer 0-999, got {value!r}", record=record)
    return value


def class_of_label(value: Any, *, source: str, record: str) -> int:
    """A label given as wnid ('n01440764') or class index (0-999, int or digits)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        return class_of_index(value, source=source, record=record)
    return class_of_wnid(value.strip() if isinstance(value, str) else value, source=source, record=record)
