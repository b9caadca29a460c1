"""The bundled demo: a project of real ImageNet images and the bundled
EfficientNet-Lite0's mistakes on them, made on first use, offline.

The images ship in `assets/demo/images` (built by scripts/build_demo_assets.py:
every sample image the model gets wrong plus correct ones, ~300 in all, their
labels in their `<wnid>_<name>.JPEG` names). `prepare_demo_project` copies
them into the user data dir and imports them, its name and its "ready" mark in
the import's own unit of work; `run_demo_model` runs the model through the run
act, `reviewer.app.runs.run_model` (resumable, with progress and cancel). A
second launch finds both done and reuses them.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from sqlalchemy import func, select
from sqlmodel import Session

from db.tables import Image, Mistake, Model, Run
from reviewer.paths import asset, user_data
from reviewer.project import PROJECT_FILE, Project
from reviewer.terms import RunStatus

DEMO_MODEL = "tf_efficientnet_lite0"
READY_SETTING = "demo_ready"  # set once every image is imported: a half-made demo is made again


@dataclass(frozen=True)
class DemoStatus:
    root: Path
    images: int
    run_id: int | None  # the complete run of the demo model, if any
    mistakes: int | None
    novel: int | None

    def describe(self) -> str:
        head = f"demo project {self.root}: {self.images} images"
        if self.run_id is None:
            return f"{head}; {DEMO_MODEL} has not run yet"
        return (f"{head}; run #{self.run_id} of {DEMO_MODEL}: {self.mistakes} mistakes "
                f"({self.novel} novel)")


def demo_root() -> Path:
    return user_data() / "demo-project"


def demo_images() -> Path:
    return asset("demo", "images")


def prepare_demo_project(root: Path | None = None) -> Project:
    """The demo project, made from the shipped images when it is not there (or was
    left half-made by an interrupted first launch)."""
    from reviewer.app.imports import init_project

    root = Path(root) if root is not None else demo_root()
    if (root / PROJECT_FILE).exists():
        project = Project.open(root)
        if project.setting(READY_SETTING) == "1":
            return project
        project.close()
    if root.exists():
        shutil.rmtree(root)  # our own folder in the user data dir: an unfinished demo
    images = root / "images"
    images.mkdir(parents=True)
    for source in sorted(demo_images().glob("*.JPEG")):
        shutil.copyfile(source, images / source.name)
    project, _ = init_project(root, images=images, settings={"name": "ImageNet demo", READY_SETTING: "1"})
    return project


def prepare_demo(root: Path | None = None) -> tuple[Path, bool]:
    """The window's first step of "Open the demo" (on a worker): the demo project made
    when it is not there, closed again for the window to open; (its folder, whether the
    demo model has run over it)."""
    project = prepare_demo_project(root)
    try:
        return project.root, demo_status(project).run_id is not None
    finally:
        project.close()


def demo_run(*, session: Session) -> int | None:
    """The id of the latest complete run of the demo model, or None."""
    return session.execute(
        select(Run.id).join(Model, Model.id == Run.model_id)
        .where(Model.name == DEMO_MODEL, Run.status == RunStatus.COMPLETE).order_by(Run.id.desc()).limit(1)
    ).scalar_one_or_none()


def demo_status(project: Project) -> DemoStatus:
    with project.read() as session:
        run_id = demo_run(session=session)
        images = session.execute(select(func.count(Image.id))).scalar_one()
        mistakes = novel = None
        if run_id is not None:
            mistakes, novel = session.execute(
                select(func.count(Mistake.id), func.count(Mistake.id).filter(Mistake.novel))
                .where(Mistake.run_id == run_id)).one()
    return DemoStatus(root=project.root, images=images, run_id=run_id, mistakes=mistakes, novel=novel)


def run_demo_model(project: Project, *, progress: Callable | None = None, cancel: Callable[[], bool] | None = None):
    """Run the bundled EfficientNet-Lite0 over the demo images (resuming a
    cancelled run); returns the run act's `Done` (its value a RunResult)."""
    from reviewer.app.runs import run_model

    return run_model(project, DEMO_MODEL, progress=progress, cancel=cancel)
