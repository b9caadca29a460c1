"""A versioned export folder, written atomically, with its manifest.

    OUT_DIR/export-0003/
      multilabel_annotations.json  the TFDS-layout labels after review (initial_annots,
                                   problematic_images, imagenet_m)
      original_labels.json         original labels, ImageNetV2 annotated-list layout
      labels.csv / labels.parquet  one row per image
      mistakes/<model>_mistakes.json  each model's reviewed mistakes (imagenet-mistakes format)
      splits/<slice>.json          each zoom-hard split (the mistakes no zoomed crop corrects), its rule
      suggestions/run-<id>.json    each complete run's mistakes without a panel decision, with the
                                   categoriser's suggestion marked as such (never the panel's)
      manifest.json                app version, time, models and runs, review counts, the
                                   split and its rule, sha256 of every input and output

Everything is written into a hidden temporary folder beside the target and
renamed into place at the end, so a crash leaves no half-written export (at
most a hidden `.export-*.partial` folder, removed by a later export once it is
an hour old). A folder that cannot be written (read-only, full disk, a file in
the way) is an ExportError naming it, with nothing left behind. Data files are deterministic:
exporting the same labels again gives byte-identical files; only the
manifest's time differs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from sqlmodel import Session

from reviewer._files import atomic_write_bytes, sha256_file
from reviewer.errors import UserError
from reviewer.evaluation.slices import slice_names
from reviewer.export import manifest as manifest_mod
from reviewer.export.labels import annotation_file, label_table, original_labels
from reviewer.export.mistakes import model_mistakes, models_with_reviews
from reviewer.export.suggestions import suggestion_files
from reviewer.export.zoom_hard import zoom_hard_files
from reviewer.labels.labelset import load_labelset
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.panel.final import decisions_table
from reviewer.project import Project
from reviewer.review.reviewed_mistakes import image_table, reviewed_mistakes

FORMATS = ("json", "csv", "parquet")
ANNOTATIONS = "multilabel_annotations.json"
ORIGINAL_LABELS = "original_labels.json"
MANIFEST = "manifest.json"
DEFAULT_SPLIT = "imagenet_m"
FOLDER = re.compile(r"^export-(\d{4,})$")
PARTIAL_PREFIX, PARTIAL_SUFFIX = ".export-", ".partial"
# A partial folder untouched this long belongs to an export that died (a real
# one writes its files within seconds), so the next export may remove it.
STALE_PARTIAL_SECONDS = 3600


class ExportError(UserError):
    """An export that cannot be written as asked."""


@dataclass(frozen=True)
class ExportResult:
    path: Path
    manifest: dict

    def data_files(self) -> list[Path]:
        """The exported files other than the manifest, sorted."""
        return sorted(p for p in self.path.rglob("*") if p.is_file() and p.name != MANIFEST)


def parse_formats(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """'json,csv' -> ('json', 'csv'); an ExportError naming the bad format."""
    items = [f.strip().lower() for f in (text.split(",") if isinstance(text, str) else text) if f.strip()]
    bad = [f for f in items if f not in FORMATS]
    if bad or not items:
        raise ExportError(f"unknown export format {', '.join(bad) or '(none)'}; choose from {', '.join(FORMATS)}")
    if "parquet" in items:
        try:
            import pyarrow  # noqa: F401  (pandas writes Parquet through it)
        except ImportError:
            raise ExportError("Parquet needs the pyarrow package, which is not installed: "
                              "'pip install pyarrow', or export --format json,csv") from None
    return tuple(dict.fromkeys(items))


def model_file_name(model: str, *, distinct: bool = False) -> str:
    """A safe file name for a model's mistakes file (hub names hold '/' and ':').
    `distinct`: followed by a short digest of the whole name, so that names the
    safe spelling makes alike ('team/model', 'team:model') stay two files."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._")
    if distinct or not safe:
        safe = f"{safe or 'model'}-{hashlib.sha256(model.encode('utf-8')).hexdigest()[:8]}"
    return safe + "_mistakes.json"


def model_file_names(models: list[str]) -> dict[str, str]:
    """{model: its mistakes file name}, distinct for distinct models, also on a file system
    that ignores case. A name kept as it is stays plain; one the safe spelling changed
    ('/', ':', spaces) or one that meets another when case is ignored gets a digest."""
    plain = {model: model_file_name(model) for model in models}
    seen: dict[str, int] = {}
    for name in plain.values():
        seen[name.lower()] = seen.get(name.lower(), 0) + 1
    return {model: name if name == f"{model}_mistakes.json" and seen[name.lower()] == 1
            else model_file_name(model, distinct=True) for model, name in plain.items()}


def _json_bytes(data: object, *, compact: bool = False) -> bytes:
    """Sorted keys, so the same data gives the same bytes. Data files are compact:
    json's C encoder only runs without indentation (5x faster on 50,000 images),
    and the published files are single-line too; the manifest is indented."""
    if compact:
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    else:
        text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def next_version(out_dir: Path) -> int:
    versions = [int(m.group(1)) for p in out_dir.iterdir() if (m := FOLDER.match(p.name))] if out_dir.is_dir() else []
    return max(versions, default=0) + 1


def _write_files(session: Session, folder: Path, formats: tuple[str, ...], split: str | None) -> dict:
    """Write the data files into `folder`; returns what the manifest says about them."""
    base = load_labelset(session=session)  # loaded once: both label views derive from it
    labels = reviewed_labelset(session=session, after_review=True, base=base)
    decisions = decisions_table(session=session)
    images = image_table(session=session)
    annotation = annotation_file(session=session, labels=labels, split=split, decisions=decisions, images=images)
    reviewed = reviewed_mistakes(session=session, decisions=decisions)
    notes: dict = {"models": {}}
    if "json" in formats:
        atomic_write_bytes(folder / ANNOTATIONS, _json_bytes(annotation, compact=True))
        atomic_write_bytes(folder / ORIGINAL_LABELS, _json_bytes(original_labels(images=images), compact=True))
        file_names = model_file_names(models_with_reviews(reviewed))
        for model, file_name in file_names.items():
            result = model_mistakes(model=model, reviewed=reviewed)
            name = f"mistakes/{file_name}"
            atomic_write_bytes(folder / name, result.to_json().encode("utf-8"))
            notes["models"][model] = {"file": name, "mistakes": len(result.records),
                                      "left_out_incomplete": len(result.incomplete),
                                      "left_out_second_prediction": len(result.duplicates)}
        splits, notes["zoom_hard_splits"] = zoom_hard_files(session=session)
        for name, data in splits.items():
            atomic_write_bytes(folder / name, _json_bytes(data))
        suggested, notes["suggestions"] = suggestion_files(
            session=session, labels=reviewed_labelset(session=session, after_review=False, base=base),
            decisions=decisions)
        for name, data in suggested.items():
            atomic_write_bytes(folder / name, _json_bytes(data, compact=True))
    if "csv" in formats or "parquet" in formats:
        table = label_table(labels=labels, annotation=annotation, images=images)
        if "csv" in formats:
            atomic_write_bytes(folder / "labels.csv", table.to_csv(index=False, lineterminator="\n").encode("utf-8"))
        if "parquet" in formats:
            table.to_parquet(folder / "labels.parquet", index=False)
    notes["counts"] = {"annotated_images": len(annotation["initial_annots"]),
                       "problematic_images": len(annotation["problematic_images"]),
                       "split_images": len(annotation["imagenet_m"])}
    return notes


def export_project(project: Project, out_dir: str | Path, *, session: Session, formats=("json", "csv"),
                   split: str | None = DEFAULT_SPLIT) -> ExportResult:
    """Export the project's labels after review into a new versioned folder under `out_dir`.

    `split`: the slice written as `imagenet_m` (none, or the default slice absent: an empty list).
    Everything is read through `session`: pass a read session, one snapshot of the database
    (`reviewer.app.export.export_project` is the act).
    """
    formats = parse_formats(formats)
    out_dir = Path(out_dir).expanduser().resolve()
    if out_dir.exists() and not out_dir.is_dir():
        raise ExportError(f"{out_dir} is a file; give a folder to export into")
    names = slice_names(session=session)
    if split and split != DEFAULT_SPLIT and split not in names:
        known = ", ".join(names) or "none"
        raise ExportError(f"the project has no slice named {split!r} to export as the split (slices: {known})")
    try:
        return _export_into(project, session, out_dir, formats, split)
    except OSError as exc:
        # Read-only folder, full disk, a file where a folder should be: say where and why.
        raise ExportError(f"could not write the export into {out_dir}: {exc.strerror or exc}"
                          + (f" ({exc.filename})" if exc.filename else "") + "; nothing was exported") from exc


def _export_into(project: Project, session: Session, out_dir: Path, formats: tuple[str, ...],
                 split: str | None) -> ExportResult:
    out_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_partials(out_dir)
    created = datetime.now(timezone.utc)
    tmp = Path(tempfile.mkdtemp(dir=out_dir, prefix=PARTIAL_PREFIX, suffix=PARTIAL_SUFFIX))
    try:
        notes = _write_files(session, tmp, formats, split)
        _make_readable(tmp)
        outputs = {p.relative_to(tmp).as_posix(): {"sha256": sha256_file(p), "bytes": p.stat().st_size}
                   for p in sorted(tmp.rglob("*")) if p.is_file()}
        while True:  # another export may take a version number meanwhile: then try the next
            version = next_version(out_dir)
            manifest = manifest_mod.build(project, session=session, created=created, version=version,
                                          formats=formats, split=split, notes=notes, outputs=outputs)
            atomic_write_bytes(tmp / MANIFEST, _json_bytes(manifest))
            (tmp / MANIFEST).chmod(0o644)
            _fsync_dir(tmp)
            target = out_dir / f"export-{version:04d}"
            if target.exists():  # rename() would replace an empty folder of that name
                continue
            try:
                os.rename(tmp, target)  # atomic; fails if the target exists (non-empty)
            except OSError:
                if target.exists():
                    continue
                raise
            _fsync_dir(out_dir)
            return ExportResult(target, manifest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def remove_stale_partials(out_dir: Path, *, max_age: float = STALE_PARTIAL_SECONDS) -> list[Path]:
    """Remove the hidden partial folders of exports that died (killed, power cut)
    more than `max_age` seconds ago; returns what was removed."""
    removed = []
    now = time.time()
    for path in out_dir.glob(f"{PARTIAL_PREFIX}*{PARTIAL_SUFFIX}"):
        try:
            newest = max([path.stat().st_mtime] + [p.stat().st_mtime for p in path.rglob("*")])
        except OSError:
            continue  # removed meanwhile by another export
        if path.is_dir() and now - newest > max_age:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _make_readable(folder: Path) -> None:
    """Temporary files and folders are private (0600/0700); an export is for sharing."""
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def _fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
