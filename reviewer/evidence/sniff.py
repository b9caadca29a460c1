"""Telling evidence files apart by their content, not their names, and reading them.

An .npz archive (a zip of arrays) is ReaL's rater answers; an .npy array
cleanlab's original labels; JSON is told by its structure (a list of 50,000
class-index lists, cleanlab's flagged records, cleanlab's index of paths,
the expert relabeling keyed by image, the class groups, the TFDS v3
annotations); CSV by its header. Each reader checks the whole file and raises
an `InputError` naming the file, the record and what to do.
"""

from __future__ import annotations

import csv
import time
from pathlib import Path
from typing import NoReturn

from reviewer._files import sha256_file
from reviewer.errors import InputError
from reviewer.evidence import cleanlab, flaws_csv, flaws_json, imagenet_x, labelsets, raters
from reviewer.evidence._npz import npz_members
from reviewer.evidence.kinds import EvidenceKind
from reviewer.evidence.parsed import ParsedSource
from reviewer.importers import annotated, real, tfds, tfds_csv
from reviewer.importers._read import read_bytes, read_json, shown

ZIP_MAGIC = b"PK\x03\x04"
NPY_MAGIC = b"\x93NUMPY"
EXPECTED = ("ReaL's real.json or rater answers (raters.npz, golden.npz, raters_golden.npz); cleanlab's "
            "imagenet_mturk.json (with its auxiliary imagenet_val_set_index_to_filepath.json and "
            "imagenet_val_set_original_labels.npy); Flaws of ImageNet's clean_validation.csv, label_errors.csv, "
            "finegrained.csv, expert_356_357_358_359.json or problem_groups_clusters.json; the TFDS v3 "
            "multi-label CSV or JSON; ImageNet-X's imagenet_x_val_multi_factor.jsonl or "
            "imagenet_x_val_top_factor.jsonl")


def read_evidence_files(paths: list[str | Path], *, stored: dict[str, tuple[int, str, int]] | None = None
                        ) -> list[ParsedSource]:
    """Read and check every file (nothing is written). Two files of one kind, or
    cleanlab's two auxiliary files disagreeing, are refused. `stored`: the SHA-256 of
    each file already imported -> (source id, kind, rows); such a file is not read again."""
    parsed: list[ParsedSource] = []
    aux: dict[EvidenceKind, tuple] = {}
    for path in paths:
        started = time.perf_counter()
        source, extra = _read_one(Path(path), stored or {})
        source.seconds = time.perf_counter() - started
        for other in parsed:
            if other.sha256 == source.sha256:
                raise InputError(str(path), f"is the same file as {other.path}", hint="give each file once")
            if other.kind == source.kind and (not source.kind.one_per_file_name or other.file_name == source.file_name):
                raise InputError(str(path), f"is a second {source.title} file beside {other.path}; a project "
                                            "keeps one source of each kind", hint="import one of the two")
        if extra is not None:
            aux[source.kind] = (source, extra)
        parsed.append(source)
    if EvidenceKind.CLEANLAB_INDEX in aux and EvidenceKind.CLEANLAB_LABELS in aux:
        cleanlab.check_together(aux[EvidenceKind.CLEANLAB_INDEX], aux[EvidenceKind.CLEANLAB_LABELS])
    return parsed


def _read_one(path: Path, stored: dict[str, tuple[int, str, int]]) -> tuple[ParsedSource, object]:
    raw_head = _head(path)
    sha = sha256_file(path)
    if sha in stored:  # the very file is imported already: checked then, nothing to read now
        source_id, kind, rows = stored[sha]
        return ParsedSource(kind=EvidenceKind(kind), path=path, sha256=sha, stored_id=source_id, stored_items=rows), None
    source = str(path)
    if raw_head.startswith(ZIP_MAGIC):
        members = npz_members(path)
        if set(members) & set(raters.MEMBERS):  # ReaL's layout, whole or not: its reader says what is missing
            return raters.parse(path, sha), None
        raise InputError(source, f"a zip archive of {shown(members[:6])}, not an evidence file",
                         hint=f"expected {EXPECTED}")
    if raw_head.startswith(NPY_MAGIC):
        return cleanlab.parse_labels(path, sha)
    stripped = raw_head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped[:1] == b"{" and imagenet_x.looks_like(stripped):  # JSON Lines: one record per line
        return imagenet_x.parse(path, sha), None
    if stripped[:1] in (b"[", b"{"):
        return _read_json(path, sha)
    if b"\x00" in raw_head or not _is_text(raw_head):
        raise InputError(source, f"is not a JSON, CSV or NumPy file (it begins {raw_head[:8]!r})",
                         hint=f"expected {EXPECTED}")
    return _read_csv(path, sha), None


def _head(path: Path) -> bytes:
    if path.is_dir() or not path.exists():
        read_bytes(path)  # raises, saying which
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise InputError(str(path), f"cannot be read ({exc.strerror})", hint="check its permissions") from None
    if not head.strip():
        raise InputError(str(path), "is empty", hint="is the file complete? re-download it")
    return head


def _is_text(head: bytes) -> bool:
    try:
        head.decode("utf-8")
        return True
    except UnicodeDecodeError as exc:
        return exc.start > len(head) - 4  # a character cut at the end of the sample


def _read_json(path: Path, sha: str) -> tuple[ParsedSource, object]:
    """The source, and for cleanlab's index the class of each position (checked against its labels file)."""
    source = str(path)
    data = read_json(path)
    if cleanlab.looks_like_index(data):
        return cleanlab.parse_index(path, data, sha)
    if real.looks_like(data):
        parsed = labelsets.parse_real(path, data, sha)
    elif cleanlab.looks_like_mturk(data):
        parsed = cleanlab.parse_mturk(path, data, sha)
    elif flaws_json.looks_like_groups(data):
        parsed = flaws_json.parse_groups(path, data, sha)
    elif flaws_json.looks_like_expert(data):
        parsed = flaws_json.parse_expert(path, data, sha)
    elif tfds.looks_like(data):
        parsed = labelsets.parse_tfds_json(path, data, sha)
    else:
        _refuse_json(source, data)
    return parsed, None


def _refuse_json(source: str, data: object) -> NoReturn:
    if annotated.looks_like(data):
        raise InputError(source, "this is ImageNetV2's annotated-image list, a label file, not evidence",
                         hint="import it with 'reviewer import-labels PROJECT FILE'")
    if isinstance(data, dict) and data and all(
            isinstance(v, dict) and "top_prediction" in v for v in list(data.values())[:10]):
        raise InputError(source, "this is a published model review, not evidence",
                         hint="import it with 'reviewer import-review PROJECT FILE --model NAME'")
    found = (f"an object with keys {shown(list(data)[:5])}" if isinstance(data, dict)
             else f"a list of {len(data)} items beginning {shown(data[:2])}" if isinstance(data, list)
             else f"the value {shown(data)}")
    raise InputError(source, f"unrecognised JSON evidence file: {found}", hint=f"expected {EXPECTED}")


def _read_csv(path: Path, sha: str) -> ParsedSource:
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
        first = fh.readline(65536)
    header = [c.strip() for c in next(csv.reader([first]), [])]
    if tfds_csv.looks_like(header):
        return labelsets.parse_tfds_csv(path, sha)
    kind = flaws_csv.kind_of_header(header)
    if kind is not None:
        return flaws_csv.parse(path, kind, sha)
    raise InputError(str(path), f"unrecognised evidence file: its first line is {shown(first.strip(), 80)}",
                     hint=f"expected {EXPECTED}")
