"""Shared fixtures: the real published data in tests/data, temp projects."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# GUI tests run offscreen; set before anything imports Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parent.parent
# The real published files the tests read, inside the repository (tests/data/README.md says
# where each comes from, its license and how it was trimmed; scripts/build_test_data.py
# rebuilds it). Nothing outside the clone is needed.
TEST_DATA = REPO / "tests" / "data"
# The demo's 300 real images (resized), shipped with the app: tests that need many images use them.
DEMO_IMAGES = REPO / "assets" / "demo" / "images"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """tests/data: the published files the tests share, laid out as the folder they came from."""
    if not TEST_DATA.is_dir():
        pytest.fail(f"test data not found at {TEST_DATA}: it is part of the repository (git checkout it)")
    return TEST_DATA


@pytest.fixture(scope="session")
def templates():
    """Projects made once per test run, copied per test (tests/project_data.py)."""
    from project_data import TEMPLATES

    return TEMPLATES


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path_factory, monkeypatch):
    """Keep per-user state (recent projects, reviewer name) out of the real home."""
    base = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("REVIEWER_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(base / "config"))


# PostgreSQL: a server URL whose database is the maintenance one (CREATE DATABASE runs there).
POSTGRES_ADMIN_URL = os.environ.get("REVIEWER_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


def _postgres_admin():
    """A connection to the server's maintenance database, or a skip saying why there is none."""
    import psycopg  # the 'postgres' extra, installed with the test extras
    from sqlalchemy.engine import make_url

    admin_url = make_url(POSTGRES_ADMIN_URL)
    try:
        admin = psycopg.connect(admin_url.set(drivername="postgresql").render_as_string(hide_password=False),
                                autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL server answers at {admin_url.render_as_string()} "
                    f"({str(exc).strip().splitlines()[0]}); set REVIEWER_TEST_POSTGRES to a server URL")
    return admin, admin_url


def _postgres_database(template: str | None = None):
    """Yields the URL of a new, uniquely named database (a copy of `template` if given), dropped after."""
    import uuid

    admin, admin_url = _postgres_admin()
    name = f"reviewer_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
        try:
            yield admin_url.set(database=name).render_as_string(hide_password=False)
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_url():
    """URL of a fresh, uniquely named PostgreSQL database, dropped after the test.

    Skips (saying why) when no server answers at REVIEWER_TEST_POSTGRES
    (default 127.0.0.1:5432)."""
    yield from _postgres_database()


@pytest.fixture(scope="session")
def _postgres_schema():
    """The name of a database holding the newest schema and nothing else, made once per run."""
    from sqlalchemy.engine import make_url

    from db import migrate
    from db.engine import create_engine

    databases = _postgres_database()
    url = next(databases)
    engine = create_engine(url)
    migrate.upgrade(engine)
    engine.dispose()  # a database copied from may have no one connected
    yield make_url(url).database
    databases.close()


@pytest.fixture
def migrated_postgres_url(_postgres_schema):
    """As `postgres_url`, its database already at the newest schema (a copy of one migrated once:
    a project made on it is what one made on an empty database is, in a third of the time)."""
    yield from _postgres_database(_postgres_schema)


@pytest.fixture
def add_mistakes():
    """add_mistakes(project, [(predicted, novel), ...]) -> [Item]: one image per
    spec, found as a mistake by a run of a model (panel tests need no model run)."""
    return _add_mistakes


def _add_mistakes(project, specs: list[tuple[int, bool]], *, model: str = "demo-model") -> list:
    from sqlalchemy import func, select

    from db.engine import write_session
    from db.tables import Image, Mistake, Model, Run
    from reviewer.panel.votes import Item

    with write_session(project.engine) as session:
        first = session.execute(select(func.count(Image.id))).scalar_one() + 1
        images = [Image(file_name=f"ILSVRC2012_val_{first + i:08d}.JPEG", original_label=i % 1000)
                  for i in range(len(specs))]
        session.add_all(images)
        row = (session.execute(select(Model).where(Model.name == model)).scalar_one_or_none()
               or Model(name=model, source="hub"))
        session.add(row)
        session.flush()
        run = Run(model_id=row.id, status="complete", num_images=len(specs))
        session.add(run)
        session.flush()
        session.add_all([Mistake(run_id=run.id, image_id=image.id, predicted=predicted, probability=0.5,
                                 novel=novel, hierarchy_distance=3)
                         for image, (predicted, novel) in zip(images, specs)])
        return [Item(image.id, predicted) for image, (predicted, _) in zip(images, specs)]


@pytest.fixture(scope="session")
def tiny_state_dict():
    """The tiny model's randomly initialised weights (seed 0)."""
    import timm
    import torch
    from run_data import TINY_MODEL

    torch.manual_seed(0)
    return timm.create_model(TINY_MODEL, pretrained=False).state_dict()


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory, tiny_state_dict):
    """The tiny model's weights as a .safetensors checkpoint."""
    from safetensors.torch import save_file

    path = tmp_path_factory.mktemp("ckpt") / "tiny.safetensors"
    save_file({k: v.contiguous() for k, v in tiny_state_dict.items()}, str(path))
    return path


# (sample file, predicted class): every prediction is a mistake of the run.
SAMPLES = [
    ("n01440764_tench.JPEG", 1),  # goldfish
    ("n01443537_goldfish.JPEG", 0),  # tench
    ("n02099601_golden_retriever.JPEG", 208),  # Labrador retriever
    ("n02123045_tabby.JPEG", 282),  # tiger cat
    ("n02085620_Chihuahua.JPEG", 151 + 100),  # a far-off class
    ("n04285008_sports_car.JPEG", 511),  # convertible
    ("n02091032_Italian_greyhound.JPEG", 172),  # whippet; a 2400x1600 file
]


@pytest.fixture
def review_project(templates, tmp_path, shared_data):
    """A project of the sample images above (the third one's file then deleted),
    plus a labels-only image, and a complete run with one mistake per image:
    tmp_path/images and tmp_path/project (made once, copied per test)."""
    return templates.copy(_review_project, tmp_path)


def _review_project(folder: Path):
    from review_data import add_run
    from sqlalchemy import select

    from db.engine import read_session, write_session
    from db.tables import Image
    from reviewer.app.imports import init_project

    images = folder / "images"
    images.mkdir()
    for name, _ in SAMPLES:
        shutil.copy(TEST_DATA / "imagenet-samples" / name, images / name)
    project, _ = init_project(folder / "project", images=images)
    (images / SAMPLES[2][0]).unlink()  # a file that went missing after the import
    with write_session(project.engine) as session:
        session.add(Image(file_name="ILSVRC2012_val_00000001.JPEG", original_label=65))  # labels only
    with read_session(project.engine) as session:
        ids = dict(session.execute(select(Image.file_name, Image.id)).all())
    top1 = {ids[name]: predicted for name, predicted in SAMPLES}
    top1[ids["ILSVRC2012_val_00000001.JPEG"]] = 66
    project.run_id = add_run(project, "resnet50", top1, probs={ids[SAMPLES[0][0]]: 0.81})
    project.ids = ids
    return project
