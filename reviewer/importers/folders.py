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
from reviewer.importers._read import class_of_label, class_of_wnid, decode_text, image_name, read_bytes
from reviewer.terms import VALIDATION_IMAGES

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
                entry.original_label = _class_of_path_wnid(wnid, root=root, rel=rel)
    if not plan.images:
        raise InputError(str(root), "holds no images (.JPEG, .jpg, .png, .webp, .bmp)")
    return plan




def _parse_validation_wnids(source: str, lines: list[tuple[int, str]], plan: ImportPlan) -> ImportPlan:
    """One wnid per line, line i the label of ILSVRC2012_val_{i:08d}.JPEG."""
    if len(lines) != VALIDATION_IMAGES:
        raise InputError(source, f"lists {len(lines)} wnids; a list of bare wnids gives the validation images "
                                 f"in file order and has one line for each of the {VALIDATION_IMAGES:,}",
                         hint="use the complete imagenet2012_validation_labels.txt, or lines 'file_name label'")
    for index, (number, line) in enumerate(lines):
        name = f"ILSVRC2012_val_{index + 1:08d}.JPEG"
        plan.image(name).original_label = class_of_wnid(line.strip(), source=source, record=f"line {number}")
    return plan


def _class_of_path_wnid(wnid: str, *, root: Path, rel: str) -> int:
    try:
        return class_of_wnid(wnid, source=str(root), record=rel)
    except InputError as exc:
        raise InputError(exc.source, f"{exc.problem} (taken from the image's path)", record=rel,
                         hint="rename or move it: labels come from a wnid folder or a '<wnid>_' file-name "
                              "prefix of ImageNet-1k") from None


def parse_label_file(path: str | Path) -> ImportPlan:
    """Original labels of validation images from a text or CSV file.

    Accepted: `LOC_val_solution.csv` (ImageId,PredictionString: first wnid),
    lines `file_name label` / `file_name,label` where label is a wnid or a
    class index (0-999, sorted-wnid order), or the 50,000 wnids of the
    validation images in file order, one per line (TFDS's
    `imagenet2012_validation_labels.txt`, which the reference notebook
    reads). `#` starts a comment. Records are named by their line in the file.
    """
    source = str(path)
    text = decode_text(path, read_bytes(path))
    plan = ImportPlan(kind="label_file", source_path=source)
    lines = [(number, ln) for number, ln in enumerate(text.splitlines(), start=1)
             if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise InputError(source, "holds no labels (only blank or comment lines)",
                         hint="expected lines 'file_name label' or LOC_val_solution.csv")
    if len(lines[0][1].split()) == 1 and "," not in lines[0][1] and WNID.match(lines[0][1].strip()):
        return _parse_validation_wnids(source, lines, plan)
    comma = "," in lines[0][1]
    seen: dict[str, int] = {}
    for index, (number, line) in enumerate(lines):
        row = next(csv.reader([line])) if comma else line.split()
        if index == 0 and row and row[0].strip().lower() in {"imageid", "file_name", "filename", "image"}:
            continue  # header
        record = f"line {number}"
        if len(row) < 2 or not row[1].strip():
            raise InputError(source, f"expected 'file_name label', got {line.strip()!r}", record=record,
                             hint="each line names an image and its label (a wnid or a class index 0-999)")
        name = image_name(row[0], source=source, record=record)
        if not Path(name).suffix:
            name += ".JPEG"  # LOC_val_solution.csv names images without extension
        if name in seen:
            raise InputError(source, f"{name} is listed twice (lines {seen[name]} and {number})", record=record,
                             hint="an image has one original label; keep one of the two lines")
        seen[name] = number
        label = row[1].strip().split()[0]
        plan.image(name).original_label = class_of_label(label, source=source, record=record)
    return plan
