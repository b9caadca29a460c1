"""ReaL labels (Beyer et al. 2020), as timm ships them: a JSON list of 50,000
class-index lists in validation-file order; [] marks an excluded image."""

from __future__ import annotations

from pathlib import Path

from reviewer.errors import InputError
from reviewer.importers._plan import ImportPlan
from reviewer.importers._read import class_of_index, read_json

VAL_IMAGES = 50_000


def looks_like(data: object) -> bool:
    return isinstance(data, list) and len(data) > 0 and all(isinstance(x, list) for x in data[:100])


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
        raise InputError(source, f"has {len(data)} rows; ReaL labels have one per validation image ({VAL_IMAGES})")
    plan = ImportPlan(kind="real", source_path=source)
    for i, classes in enumerate(data):
        name = f"ILSVRC2012_val_{i + 1:08d}.JPEG"
        if not isinstance(classes, list):
            raise InputError(source, f"expected a list of class indices, got {classes!r}", record=f"row {i}")
        if only is not None and name not in only:
            continue
        for cls in dict.fromkeys(classes):
            plan.real_labels.append((name, class_of_index(cls, source=source, record=f"row {i}")))
    plan.create_missing_images = only is None
    return plan
