"""Object boxes of ImageNet's localisation annotations, read and checked against a
project's images: the patches PatchML is built from (`reviewer.importers.patchml`).

The file is the layout of Kaggle's `LOC_val_solution.csv` (and `LOC_train_solution.csv`):
a header `ImageId,PredictionString`, then one row per image whose second cell lists its
boxes as `wnid x_min y_min x_max y_max`, repeated, e.g.

    ImageId,PredictionString
    ILSVRC2012_val_00008726,n02119789 255 142 454 329 n02119789 44 21 322 295

`ImageId` names an image of the project by its file name, with or without the extension
(the Kaggle file leaves `.JPEG` out). Coordinates are whole pixels of that image file; a
box is the region `PIL.Image.crop((x_min, y_min, x_max, y_max))` cuts, so it needs
0 <= x_min < x_max <= width and 0 <= y_min < y_max <= height (ImageNet's boxes reach
x_max = width at the right edge). Every row is checked before anything is made; a bad
one is an `InputError` naming the file, the line and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers._read import class_of_wnid, open_csv, shown
from reviewer.wording import counted

HEADER = ["ImageId", "PredictionString"]
FIELDS = 5  # wnid x_min y_min x_max y_max
COORDINATE_HINT = ("coordinates are whole pixels of the image file: 0 <= x_min < x_max <= width and "
                   "0 <= y_min < y_max <= height; were the boxes drawn on another copy of the image (resized)?")
SKIP_HINT = ("add those images to the project first ('reviewer import-images PROJECT FOLDER'), or pass "
             "--skip-missing to build the set from the boxes of the images the project has")


@dataclass(frozen=True)
class Box:
    """One annotated object: a patch of PatchML's pool."""

    image: str  # the project image's file name
    wnid: str
    class_index: int
    x_min: int
    y_min: int
    x_max: int
    y_max: int
    line: int  # its row in the boxes file

    @property
    def width(self) -> int:
        return self.x_max - self.x_min

    @property
    def height(self) -> int:
        return self.y_max - self.y_min

    @property
    def crop(self) -> tuple[int, int, int, int]:
        return self.x_min, self.y_min, self.x_max, self.y_max


@dataclass(frozen=True)
class BoxPool:
    """The boxes of a file that PatchML may use, in the file's order, and what was left out."""

    path: str
    boxes: tuple[Box, ...]
    rows: int  # rows of the file
    skipped_images: tuple[str, ...] = ()  # ImageIds the project lacks (with --skip-missing)
    skipped_boxes: int = 0  # their boxes


def read_boxes(path: str | Path, *, images: dict[str, Path | None], sizes=None,
               skip_missing: bool = False) -> BoxPool:
    """The boxes of `path` for the project's `images` (file name -> its file, None when it
    has none), every row checked (module docstring). `sizes(path) -> (width, height)` reads
    an image's size (default: PIL, the header only). With `skip_missing`, rows naming images
    the project lacks are left out and counted instead of refused."""
    source = str(path)
    sizes = sizes or _image_size
    header, reader = open_csv(path)
    if header != HEADER:
        raise InputError(source, f"expected the header {','.join(HEADER)!r}, got {shown(','.join(header))}",
                         record="line 1", hint="a boxes file has the layout of ImageNet's LOC_val_solution.csv: "
                                               "ImageId,PredictionString with 'wnid x_min y_min x_max y_max' boxes")
    by_stem = _stems(images)
    boxes: list[Box] = []
    seen: dict[str, int] = {}
    skipped: list[str] = []
    skipped_boxes = rows = 0
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        rows += 1
        record = f"line {line}"
        if len(row) != len(HEADER):
            raise InputError(source, f"has {counted(len(row), 'field')} where the header has 2", record=record,
                             hint="each row is an ImageId and its boxes 'wnid x_min y_min x_max y_max ...', "
                                  "separated by spaces within the second field")
        image_id, listed = row[0].strip(), row[1].split()
        if not listed or len(listed) % FIELDS:
            raise InputError(source, f"the boxes of {image_id} are {counted(len(listed), 'word')}, not groups of "
                                     f"{FIELDS} ('wnid x_min y_min x_max y_max')", record=record,
                             hint="each box is a wnid and four whole-pixel coordinates")
        if image_id in seen:
            raise InputError(source, f"{image_id} is listed twice (lines {seen[image_id]} and {line})",
                             record=record, hint="an image has one row listing all its boxes; merge the two")
        seen[image_id] = line
        parsed = [_box_fields(listed[i:i + FIELDS], source=source, record=record, number=i // FIELDS + 1)
                  for i in range(0, len(listed), FIELDS)]
        name = image_id if image_id in images else by_stem.get(image_id)
        if name is None or images[name] is None:
            if skip_missing:
                skipped.append(image_id)
                skipped_boxes += len(parsed)
                continue
            why = ("has no image file in the project (imported from a label file)" if name is not None
                   else "is not an image of the project")
            raise InputError(source, f"{image_id} {why}", record=record, hint=SKIP_HINT)
        width, height = _size_of(images[name], sizes, source=source, record=record)
        for number, (wnid, x_min, y_min, x_max, y_max) in enumerate(parsed, start=1):
            if not (0 <= x_min < x_max <= width and 0 <= y_min < y_max <= height):
                raise InputError(source, f"box {number} of {image_id} ({wnid} {x_min} {y_min} {x_max} {y_max}) is "
                                         f"not inside the image ({width} x {height} pixels)", record=record,
                                 hint=COORDINATE_HINT)
            boxes.append(Box(name, wnid, class_of_wnid(wnid, source=source, record=record), x_min, y_min, x_max,
                             y_max, line))
    if not boxes:
        raise InputError(source, "holds no box of an image of the project"
                         + (f" ({counted(len(skipped), 'row')} name images it lacks)" if skipped else ""),
                         hint=SKIP_HINT if skipped else "is it the right file?")
    return BoxPool(source, tuple(boxes), rows, tuple(skipped), skipped_boxes)


def _box_fields(words: list[str], *, source: str, record: str, number: int) -> tuple[str, int, int, int, int]:
    wnid, *coordinates = words
    class_of_wnid(wnid, source=source, record=f"{record}, box {number}")  # an unknown wnid, named here
    values = []
    for name, text in zip(("x_min", "y_min", "x_max", "y_max"), coordinates):
        if not (text.isascii() and text.isdigit() and len(text) <= 6):
            raise InputError(source, f"box {number}: {name} must be a whole number of pixels, got {shown(text)}",
                             record=record, hint=COORDINATE_HINT)
        values.append(int(text))
    return (wnid, *values)


def _stems(images: dict[str, Path | None]) -> dict[str, str]:
    """Image names without their extension -> the name (Kaggle's ImageIds); a stem two
    images share is left out (then only the full name matches)."""
    out: dict[str, str | None] = {}
    for name in images:
        stem = Path(name).stem
        out[stem] = None if stem in out else name
    return {stem: name for stem, name in out.items() if name is not None}


def _size_of(path: Path, sizes, *, source: str, record: str) -> tuple[int, int]:
    try:
        return sizes(path)
    except OSError as exc:
        raise InputError(source, f"the image {path} cannot be read ({exc})", record=record,
                         hint="check that the project's image files are in place") from None


def _image_size(path: Path) -> tuple[int, int]:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            return image.size
    except UnidentifiedImageError as exc:
        raise OSError(f"not an image: {exc}") from None
