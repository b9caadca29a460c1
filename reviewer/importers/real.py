"""ReaL labels (Beyer et al. 2020), as timm ships them: a JSON list of 50,000
class-index lists in validation-file order; [] marks an excluded image."""

from __future__ import annotations

from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers._plan import ImportPlan
from reviewer.importers._read import class_of_index, read_json, shown

VAL_IMAGES = 50_000


def looks_like(data: object) -> bool:
    """A list of lists with class indices among its first rows (a single bad row is
    then reported by `parse`, not mistaken for another format)."""
    head = data[:100] if isinstance(data, list) else []
    if not head or not all(isinstance(x, list) for x in head):
        return False
    # Rows of class indices only (most of them: one bad row is `parse`'s to report); a list
    # of [wnid, wnid, count] rows (the paper's class confusions) is not ReaL.
    indices = sum(all(isinstance(c, int) and not isinstance(c, bool) for c in x) for x in head)
    return indices >= 0.9 * len(head)


def default_path() -> Path:
    """The ReaL labels file that timm ships (no download needed)."""
    import importlib.util

    spec = importlib.util.find_spec("timm")
    if spec is None or not spec.submodule_search_locations:
        raise InputError("timm", "timm is not installed, so its ReaL labels are not available")
    return Path(list(spec.submodule_search_locations)[0]) / "data" / "_info" / "imagenet_real_labels.json"


def parse(path: str | Path, data: object | None = None, *, only: set[str] | None = None) -> ImportPlan:
    """Parse ReaL labels; with `only`, keep just those image names (the project's)."""
    source = str(path)
    data = read_json(path) if data is None else data
    if not looks_like(data):
        raise InputError(source, "expected a list of class-index lists (ReaL labels)")
    if len(data) != VAL_IMAGES:
        raise InputError(source, f"has {len(data)} rows; ReaL labels have one per validation image ({VAL_IMAGES})",
                         hint="use the complete file, e.g. timm's data/_info/imagenet_real_labels.json")
    plan = ImportPlan(kind="real", source_path=source)
    in_project = 0
    for i, classes in enumerate(data):
        name = f"ILSVRC2012_val_{i + 1:08d}.JPEG"
        record = f"row {i} ({name})"
        if not isinstance(classes, list):
            raise InputError(source, f"expected a list of class indices, got {shown(classes)}", record=record,
                             hint="each row lists the ReaL classes of one image, [] for none")
        # Every row is checked, also those of images the project lacks: a bad file is refused whole.
        checked = [class_of_index(cls, source=source, record=record) for cls in classes]
        if only is None or name in only:
            in_project += 1
            plan.real_images.append(name)
            plan.real_labels.extend((name, cls) for cls in dict.fromkeys(checked))
    plan.create_missing_images = only is None
    if only is not None and in_project < VAL_IMAGES:
        plan.warnings.append(f"{in_project} of the {VAL_IMAGES} validation images are in the project; the "
                             "others were skipped (import this file again after adding them)")
    return plan
