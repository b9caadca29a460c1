"""Image folders, in the three layouts ImageNet copies come in:

- flat files named `<wnid>_*.JPEG` (e.g. n01440764_tench.JPEG): label from the name;
- one folder per wnid (`n01440764/ILSVRC2012_val_00000293.JPEG`): label from the folder;
- validation file names (`ILSVRC2012_val_00000001.JPEG`) with labels from a
  label file (see `parse_label_file`) or from other imports (the 20k list).
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers._plan import ImportPlan
from reviewer.importers._read import class_of_label, class_of_wnid

IMAGE_SUFFIXES = {".jpeg", ".jpg", ".png", ".webp", ".bmp"}
WNID = re.compile(r"^n\d{8}$")
WNID_PREFIX = re.compile(r"^(n\d{8})_")


def scan(directory: str | Path) -> ImportPlan:
    """Find the images below `directory`; paths are stored relative to it."""
    root = Path(directory)
    if not root.is_dir():
        raise InputError(str(root), "not a folder", hint="pass the folder that holds the images")
    plan = ImportPlan(kind="folder", source_path=str(root.resolve()))
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        folder = Path(dirpath)
        folder_wnid = folder.name if folder != root and WNID.match(folder.name) else None
        for name in sorted(filenames):
            if Path(name).suffix.lower() not in IMAGE_SUFFIXES:
                continue
            rel = (folder / name).relative_to(root).as_posix()
            if name in plan.images:
                raise InputError(str(root), f"two images are named {name} ({plan.images[name].path} and {rel})",
                                 hint="file names identify images in a project; rename one")
            entry = plan.image(name)
            entry.path = rel
            wnid = folder_wnid or (m.group(1) if (m := WNID_PREFIX.match(name)) else None)
            if wnid:
                entry.original_label = class_of_wnid(wnid, source=str(folder / name), record="wnid in path")
    if not plan.images:
        raise InputError(str(root), "holds no images (.JPEG, .jpg, .png, .webp, .bmp)")
    return plan


def parse_label_file(path: str | Path) -> ImportPlan:
    """Original labels of validation images from a text or CSV file.

    Accepted: `LOC_val_solution.csv` (ImageId,PredictionString: first wnid),
    or lines `file_name label` / `file_name,label` where label is a wnid or
    a class index (0-999, sorted-wnid order). `#` starts a comment.
    """
    source = str(path)
    path = Path(path)
    if not path.is_file():
        raise InputError(source, "file not found")
    plan = ImportPlan(kind="label_file", source_path=source)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(source, f"cannot be read as text ({exc})") from exc
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise InputError(source, "holds no labels")
    dialect_comma = "," in lines[0]
    rows = csv.reader(lines) if dialect_comma else (ln.split() for ln in lines)
    for number, row in enumerate(rows, start=1):
        if number == 1 and row and row[0].strip().lower() in {"imageid", "file_name", "filename", "image"}:
            continue  # header
        if len(row) < 2:
            raise InputError(source, f"expected 'file_name label', got {' '.join(row)!r}", record=f"line {number}")
        name = row[0].strip()
        if not Path(name).suffix:
            name += ".JPEG"  # LOC_val_solution.csv names images without extension
        label = row[1].strip().split()[0] if row[1].strip() else ""
        plan.image(name).original_label = class_of_label(label, source=source, record=f"line {number}")
    return plan
