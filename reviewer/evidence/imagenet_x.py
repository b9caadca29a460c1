"""ImageNet-X (Idrissi et al. 2023, "ImageNet-X: Understanding Model Mistakes with Factor of
Variation Annotations", ICLR 2023): for 48,868 of the 50,000 validation images, which of 16
factors make the image differ from the typical images of its class (pose, background,
pattern, colour, smaller, shape, partial view, subcategory, texture, larger, darker, object
blocking, person blocking, style, brighter, multiple objects) and a free-text justification.

The annotations are **CC BY-NC 4.0** (non-commercial; the `LICENSE` of the `imagenet-x`
package); every line that shows them says so.

Two files of one layout, JSON Lines, one object per image: `file_name`, `class` (the image's
ImageNet label, 0-999), the 16 factors as 0/1, `justification` and `one_word` (text, or
null). `imagenet_x_val_multi_factor.jsonl` marks every factor the annotator chose (kind
`imagenet_x`); `imagenet_x_val_top_factor.jsonl` only the main one (`imagenet_x_top`), so
the two are told apart by content: a file with some image of two or more factors is the
multi-factor file. Stored per image as `{"class", "factors", "justification", "one_word"}`
and `{"class", "top"}`; the evidence line folds the main factor into the factors' line.

The PyPI package `imagenet-x` (the optional extra `[imagenetx]`) carries both files;
`package_files()` finds them in the installed package without importing it.
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

from reviewer.errors import InputError, UserError
from reviewer.evidence.kinds import EvidenceKind, is_validation_image
from reviewer.evidence.lines import EvidenceLine, StoredSourceRow, name
from reviewer.evidence.parsed import ParsedSource

# The paper's 16 factors, in the order the files list them, with the words a line uses.
FACTORS = {
    "multiple_objects": "multiple objects", "background": "background", "color": "colour", "brighter": "brighter",
    "darker": "darker", "style": "style", "larger": "larger", "smaller": "smaller",
    "object_blocking": "object blocking", "person_blocking": "person blocking", "partial_view": "partial view",
    "pattern": "pattern", "pose": "pose", "shape": "shape", "subcategory": "subcategory", "texture": "texture",
}
TEXT_KEYS = ("justification", "one_word")
KEYS = frozenset({"file_name", "class", *FACTORS, *TEXT_KEYS})
LICENSE = "CC BY-NC 4.0"
KINDS = (EvidenceKind.IMAGENET_X, EvidenceKind.IMAGENET_X_TOP)

DISTRIBUTION = "imagenet-x"
PACKAGE_FILES = ("imagenet_x/annotations/imagenet_x_val_multi_factor.jsonl",
                 "imagenet_x/annotations/imagenet_x_val_top_factor.jsonl")
INSTALL_HINT = ("install it with pip install 'imagenet-mistake-reviewer[imagenetx]' (or pip install imagenet-x), "
                "or give its files imagenet_x_val_multi_factor.jsonl and imagenet_x_val_top_factor.jsonl")


def package_files() -> list[Path]:
    """The validation annotations in the installed `imagenet-x` package: the multi-factor and
    the top-factor file. UserError, saying how to install it, when it is not installed."""
    try:
        distribution = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise UserError(f"ImageNet-X is not installed: {INSTALL_HINT}") from None
    paths = [Path(str(distribution.locate_file(rel))) for rel in PACKAGE_FILES]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise UserError(f"the installed imagenet-x {distribution.version} lacks {', '.join(missing)}: "
                        f"{INSTALL_HINT}")
    return paths


def looks_like(head: bytes) -> bool:
    """The first line of the file is one ImageNet-X record (JSON Lines: an object per line)."""
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and {"file_name", "class", "justification"} <= set(record) and \
        len(set(FACTORS) & set(record)) >= 8


def parse(path: str | Path, sha256: str) -> ParsedSource:
    """Read and check the whole file; its kind (all factors or the main one) from its rows."""
    path = Path(path)
    source = str(path)
    rows: dict[str, tuple[int, list[str], dict]] = {}
    with open(path, encoding="utf-8-sig") as fh:
        for number, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            record = _record(source, number, text)
            file_name = record["file_name"]
            if file_name in rows:
                raise InputError(source, f"{file_name} is annotated twice", record=f"line {number}",
                                 hint="is the file complete and unedited?")
            rows[file_name] = (record["class"], [f for f in FACTORS if record[f] == 1],
                               {k: _text(record[k]) for k in TEXT_KEYS})
    if not rows:
        raise InputError(source, "holds no ImageNet-X record", hint="is the file complete?")
    top = all(len(factors) <= 1 for _, factors, _ in rows.values())
    if top:
        items = {n: {"class": cls, "top": factors[0] if factors else None} for n, (cls, factors, _) in rows.items()}
        figures = {"images": len(items), "with a main factor": sum(1 for p in items.values() if p["top"])}
    else:
        items = {n: {"class": cls, "factors": factors, **texts} for n, (cls, factors, texts) in rows.items()}
        figures = {"images": len(items), "factors marked": sum(len(p["factors"]) for p in items.values())}
    kind = EvidenceKind.IMAGENET_X_TOP if top else EvidenceKind.IMAGENET_X
    return ParsedSource(kind=kind, path=path, sha256=sha256, items=items, figures={**figures, "license": LICENSE})


def _record(source: str, number: int, text: str) -> dict:
    where = f"line {number}"
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise InputError(source, f"is not JSON ({exc.msg})", record=where,
                         hint="ImageNet-X files hold one JSON object per line") from None
    if not isinstance(record, dict):
        raise InputError(source, "is not a JSON object", record=where)
    missing = sorted(KEYS - set(record))
    if missing:
        raise InputError(source, f"lacks {', '.join(missing)}", record=where,
                         hint="an ImageNet-X record has file_name, class, the 16 factors, justification and one_word")
    file_name, cls = record["file_name"], record["class"]
    if not isinstance(file_name, str) or not is_validation_image(file_name):
        raise InputError(source, f"file_name {file_name!r} is not an ImageNet validation image", record=where)
    if not isinstance(cls, int) or isinstance(cls, bool) or not 0 <= cls < 1000:
        raise InputError(source, f"class {cls!r} is not a class index 0-999", record=where)
    bad = [f for f in FACTORS if record[f] not in (0, 1) or isinstance(record[f], bool)]
    if bad:
        raise InputError(source, f"factor {bad[0]} is {record[bad[0]]!r}, not 0 or 1", record=where)
    for key in TEXT_KEYS:
        if record[key] is not None and not isinstance(record[key], str):
            raise InputError(source, f"{key} is {record[key]!r}, not text or null", record=where)
    return record


def _text(value: str | None) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def factor_words(factors) -> list[str]:
    return [FACTORS[f] for f in factors]


def imagenet_x_line(source: StoredSourceRow, payload: dict | None, *, image: str, original: int | None,
                    top: dict | None = None) -> EvidenceLine:
    """The ImageNet-X line about one image: its factors (the main one first, when the top-factor
    file is imported too), the annotator's words, and the license. `source` is the multi-factor
    source, or the top-factor one when only that is imported (`payload` then its row)."""
    if source.kind is EvidenceKind.IMAGENET_X_TOP:
        top, payload = payload, None
    main = (top or {}).get("top")
    data = {"kind": source.kind.value, "file_name": source.file_name,
            "covered": payload is not None or top is not None, "verdict": None, "original_verdict": None,
            "license": LICENSE, "factors": list((payload or {}).get("factors") or ([main] if main else [])),
            "top_factor": main}
    if payload is not None:
        data["row"] = payload
    if not data["covered"]:
        text = (f"not among its {source.n_items:,} annotated images" if is_validation_image(image)
                else "not covered (not an ImageNet validation image)")
        return EvidenceLine(source=source.title, text=f"{source.title}: {text}", data=data)
    row = payload or top
    factors = data["factors"]
    if main in factors:
        factors = [main] + [f for f in factors if f != main]
    words = factor_words(factors)
    if main and words:
        words[0] += " (the main factor)"
    label = name(row["class"])
    said = (f"differs from typical {label} images in {', '.join(words)}" if words
            else f"no factor marked against typical {label} images")
    parts = [said]
    if payload is not None and (payload.get("justification") or payload.get("one_word")):
        quoted = "; ".join(f"“{payload[k]}”" for k in TEXT_KEYS if payload.get(k))
        parts.append(f"annotator: {quoted}")
    if original is not None and row["class"] != original:
        parts.append(f"annotated as {label}, not this project's original label {name(original)}")
    data["class_names"] = {str(row["class"]): label}
    text = "; ".join(parts) + f" (annotations {LICENSE})"
    return EvidenceLine(source=source.title, text=f"{source.title}: {text}", data=data)
