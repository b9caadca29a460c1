"""Building blocks for tests of model runs: real sample image files in a project.

Importable from any test as `from run_data import ...` (pytest puts the folder of
tests/conftest.py on sys.path).
"""

from __future__ import annotations

from pathlib import Path

from project_data import new_project
from timm.data import ImageNetInfo

from db.engine import write_session
from db.tables import Image
from reviewer.project import Project

TINY_MODEL = "test_efficientnet"  # a 0.36 M parameter timm model (160 px, 1000 classes): plumbing only
WNID_INDEX = {wnid: i for i, wnid in enumerate(ImageNetInfo().label_names())}


DEMO_IMAGES = Path(__file__).resolve().parent.parent / "assets" / "demo" / "images"
DEMO_MANIFEST = DEMO_IMAGES.parent / "manifest.json"


def sample_files(count: int, *, step: int = 1) -> list[Path]:
    """Real images from the demo's 300 (one per class, resized, shipped in assets/demo)."""
    return sorted(DEMO_IMAGES.iterdir())[::step][:count]


def lite0_correct(files: list[Path]) -> int:
    """How many of these demo images the bundled Lite0 gets right, as recorded in the demo's
    manifest by scripts/build_demo_assets.py (its own loading of the weights and timm's transform)."""
    import json

    record = {i["file"]: i for i in json.loads(DEMO_MANIFEST.read_text())["images"]}
    return sum(record[f.name]["lite0_top1"] == record[f.name]["label"] for f in files)


def make_project(root: Path, files: list[Path]) -> Project:
    """A project whose images are the given files; labels from their wnid prefix."""
    project = new_project(root)
    with write_session(project.engine) as session:
        for path in files:
            wnid = path.name.split("_")[0]
            session.add(Image(file_name=path.name, path=str(path), original_label=WNID_INDEX.get(wnid)))
    return project
