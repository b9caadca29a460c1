"""What a build keeps of the files an earlier build left, checked first (issue 36): a build
never computes from a damaged file.

- A file the last complete build recorded (`integrity`: its size and digest in the
  manifest) is kept only if it still matches; the embeddings and progress files of a
  collection go together, so a damage to either computes that collection again.
- A file no complete build recorded (a build stopped before its end, or an index built
  before the files were recorded) is checked by its structure: an embeddings file is a
  float16 [rows, dim] array with all its bytes, the progress file is cut at its first
  line that is not a row, neighbours.json names training rows that exist.
- A damaged manifest vouches for nothing: every file is computed again.
- The training files' rows renumbered (files added or removed), or their embeddings
  computed again: the neighbours (training rows) and the approximate index go too.

What was damaged is returned with what was wrong, for the command to say.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable

from reviewer.errors import UserError
from reviewer.neighbours.integrity import IndexDamaged, neighbours_problem, npy_problem, record_problem
from reviewer.neighbours.store import COLLECTIONS, IndexFiles

SAME_INDEX = ("weights_sha256", "data_config", "images", "dim")  # what must not change for files to be reused


@dataclass
class Repair:
    kept: dict[str, dict] = field(default_factory=dict)  # records of the files verified, unchanged by the build
    damaged: list[tuple[str, str]] = field(default_factory=list)  # (file name, what was wrong with it)


def repair_index(files: IndexFiles, manifest: dict, *, listed: dict[str, int], approximate: bool,
                 progress: Callable[[str], None] | None = None) -> Repair:
    """Check what an earlier build left in `files.folder` against the new build's `manifest`
    (listings, model; `listed`: the files of each collection), delete what cannot be used, and
    mark the index as being built (its manifest incomplete, recording the files kept)."""
    say = progress or (lambda line: None)
    out = Repair()

    def damaged(name: str, problem: str) -> None:
        out.damaged.append((name, problem))
        say(f"{files.folder / name} {problem}: computed again")

    try:
        old = files.read_manifest()
    except IndexDamaged as exc:
        damaged(exc.name, exc.problem)
        say("the index's other files cannot be vouched for without it: every file is computed again")
        _delete(files, files.data_names())
        files.write_manifest({**manifest, "complete": False})
        return out
    if old is None:
        files.write_manifest({**manifest, "complete": False})
        return out
    if not all(old.get(key) == manifest[key] for key in SAME_INDEX):
        raise UserError(f"{files.folder} holds an index of other images or another model "
                        f"({old.get('model')} over {old.get('images')}); delete it to build a new one")
    listings = old.get("listings") if isinstance(old.get("listings"), dict) else {}
    # From here on readers see a build under way, not an index whose files are being deleted; the
    # listings the files on disk were made of, until they are checked (a kill meanwhile: checked again).
    files.write_manifest({**manifest, "complete": False, "listings": listings})
    records = dict(old["files"]) if isinstance(old.get("files"), dict) and "checksum" in old else {}

    def drop(names) -> None:  # deleted on purpose: no longer expected
        _delete(files, names)
        for name in names:
            records.pop(name, None)

    neighbours_recorded = "neighbours.json" in records
    for collection in COLLECTIONS:
        embeddings, rows = files.embeddings_path(collection).name, files.rows_path(collection).name
        rows_count = listed[collection]
        again = False
        if listings.get(collection) != manifest["listings"][collection]:  # files added or removed
            again = True
        elif embeddings in records and rows in records:
            for name in (embeddings, rows):
                problem = record_problem(files.folder / name, records[name])
                if problem is not None and not again:
                    damaged(name, problem)
                    again = True
            if not again:
                out.kept.update({name: records[name] for name in (embeddings, rows)})
        else:
            problem = _collection_problem(files, collection, rows=rows_count, dim=manifest["dim"])
            if problem is not None:
                damaged(*problem)
                again = True
        if again:
            drop([embeddings, rows])
            if collection == "train":  # the rows renumbered or computed again: what was computed from them goes
                drop([files.approximate_path.name, files.approximate_settings_path.name])
                if listings.get(collection) != manifest["listings"][collection] or not neighbours_recorded:
                    drop([files.neighbours_path.name])
    _check_neighbours(files, records, train_rows=listed["train"], damaged=damaged)
    _check_approximate(files, records, approximate=approximate, damaged=damaged)
    for name in (*(files.files_csv(c).name for c in COLLECTIONS), files.duplicates_path.name):
        if name in records:  # written again by every build: said, and deleted now
            problem = record_problem(files.folder / name, records[name])
            if problem is not None:
                damaged(name, problem)
                _delete(files, [name])
    files.write_manifest({**manifest, "complete": False, "files": out.kept})
    return out


def _collection_problem(files: IndexFiles, collection: str, *, rows: int, dim: int) -> tuple[str, str] | None:
    """(file, what is wrong) with a collection's embeddings and progress files by their structure."""
    embeddings, progress = files.embeddings_path(collection), files.rows_path(collection)
    if not embeddings.exists() and not progress.exists():
        return None
    done = files.read_rows(collection)  # cut at its first line that is not a row
    if len(done) > rows:
        return progress.name, f"is damaged: {len(done)} rows done of {rows} files"
    if not embeddings.exists():
        return (embeddings.name, "is missing") if done else None
    problem = npy_problem(embeddings, rows=rows, dim=dim)
    return None if problem is None else (embeddings.name, problem)


def _check_neighbours(files: IndexFiles, records: dict, *, train_rows: int, damaged) -> None:
    path = files.neighbours_path
    if path.name in records:
        problem = record_problem(path, records[path.name])
    elif path.exists():
        try:
            problem = neighbours_problem(json.loads(path.read_text(encoding="utf-8")), train_rows=train_rows)
        except (ValueError, UnicodeDecodeError) as exc:
            problem = f"is damaged: not JSON ({exc})"
    else:
        return
    if problem is not None:
        damaged(path.name, problem)
        _delete(files, [path.name])


def _check_approximate(files: IndexFiles, records: dict, *, approximate: bool, damaged) -> None:
    """The approximate index and its settings, together: kept as recorded, else (files no complete
    build vouched for) only for a build that uses them, which loads and checks them (build._search)."""
    names = [files.approximate_path.name, files.approximate_settings_path.name]
    for name in names:
        if name in records:
            problem = record_problem(files.folder / name, records[name])
            if problem is not None:
                damaged(name, problem)
        elif (files.folder / name).exists():
            problem = None if approximate else "is not recorded"
        else:
            continue
        if problem is not None:
            _delete(files, names)
            return


def _delete(files: IndexFiles, names) -> None:
    for name in names:
        (files.folder / name).unlink(missing_ok=True)
