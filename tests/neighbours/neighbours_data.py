"""A planted case with known answers: real demo images as a project and a "training folder"
holding exact copies (one as a lossless PNG: other bytes, the same pixels), a crop, a
resize and a re-encode of some of them, filed under other classes, beside unrelated
images and a broken file."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from run_data import make_project, sample_files

from db.engine import write_session


@dataclass
class Planted:
    project_root: Path
    train: Path
    val: list[Path]  # the project's images (val[6] is an exact copy of val[5], inside the project)
    exact: dict[str, str]  # validation file name -> training path (relative) of its exact copy
    crop: tuple[str, str]
    resize: tuple[str, str]
    reencode: tuple[str, str]
    unrelated: list[str]


def _put(train: Path, wnid: str, name: str) -> Path:
    folder = train / wnid
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def build_planted(root: Path) -> Planted:
    files = sample_files(300)
    val = files[0:300:40][:6]  # six classes far apart
    others = [f for f in files if f not in val]
    project_images = root / "val"
    project_images.mkdir(parents=True)
    val = [Path(shutil.copy(f, project_images / f.name)) for f in val]
    twin = project_images / ("copy_" + val[5].name)
    shutil.copy(val[5], twin)
    val.append(twin)
    train = root / "train"
    wnid = lambda f: f.name.split("_")[0]  # noqa: E731
    exact = {}
    # val[0]: the same file under the class of val[1]; val[1]: the same pixels as a PNG under val[0]'s class.
    target = _put(train, wnid(val[1]), "n_exact_copy_0.JPEG")
    shutil.copy(val[0], target)
    exact[val[0].name] = target.relative_to(train).as_posix()
    target = _put(train, wnid(val[0]), "n_exact_copy_1.png")
    Image.open(val[1]).convert("RGB").save(target)
    exact[val[1].name] = target.relative_to(train).as_posix()
    image = Image.open(val[2]).convert("RGB")
    w, h = image.size
    target = _put(train, wnid(others[0]), "n_crop_2.JPEG")
    image.crop((w // 10, h // 10, w - w // 10, h - h // 10)).save(target, quality=95)
    crop = (val[2].name, target.relative_to(train).as_posix())
    image = Image.open(val[3]).convert("RGB")
    target = _put(train, wnid(val[3]), "n_resize_3.JPEG")
    image.resize((image.width * 3 // 4, image.height * 3 // 4), Image.BICUBIC).save(target, quality=95)
    resize = (val[3].name, target.relative_to(train).as_posix())
    target = _put(train, wnid(val[4]), "n_reencode_4.JPEG")
    Image.open(val[4]).convert("RGB").save(target, quality=70)
    reencode = (val[4].name, target.relative_to(train).as_posix())
    unrelated = []
    for f in others[5:300:12]:
        target = _put(train, wnid(f), f.name)
        shutil.copy(f, target)
        unrelated.append(target.relative_to(train).as_posix())
    _put(train, "n01440764", "broken.JPEG").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    project = make_project(root / "project", val)
    add_complete_run(project)
    return Planted(root / "project", train, val, exact, crop, resize, reencode, unrelated)


def add_complete_run(project) -> None:
    """A complete run in which every image of the project is a mistake (predicted class 0)."""
    from sqlalchemy import select

    from db.tables import Image, Mistake, Model, Run

    with write_session(project.engine) as session:
        model = Model(name="planted-model", source="hub")
        session.add(model)
        session.flush()
        run = Run(model_id=model.id, status="complete")
        session.add(run)
        session.flush()
        for image in session.execute(select(Image)).scalars():
            session.add(Mistake(run_id=run.id, image_id=image.id, predicted=0, probability=0.5))
