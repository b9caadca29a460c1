"""A small real project for the window tests: sample images on disk, one
image whose file is missing, one with labels only, and a run with mistakes."""

from __future__ import annotations

import shutil

import pytest
from review_data import add_run
from sqlalchemy import select

from db.engine import read_session, write_session
from db.tables import Image
from reviewer.app.imports import init_project

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
def review_project(tmp_path, shared_data):
    """A project of the sample images above (the third one's file then deleted),
    plus a labels-only image, and a complete run with one mistake per image."""
    images = tmp_path / "images"
    images.mkdir()
    for name, _ in SAMPLES:
        shutil.copy(shared_data / "imagenet-samples" / name, images / name)
    project, _ = init_project(tmp_path / "project", images=images)
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


@pytest.fixture
def open_window(qtbot, review_project):
    """open_window(**preferences) -> the main window opened on the review
    project as panelist "ann", shown at 1280x800, its first mistake on screen."""
    from reviewer.app import panel as acts
    from reviewer.app.preferences import Preferences
    from reviewer.ui.app import create_app
    from reviewer.ui.qt_main_window import QtMainWindow

    create_app()
    windows = []

    def make(**prefs):
        name = prefs.pop("reviewer_name", "ann")
        # The panelist is on the panel (a new name would be asked before joining: reviewer.panel.membership).
        acts.join_panel(review_project, name, join=True)
        window = QtMainWindow(preferences=Preferences(reviewer_name=name, **prefs))
        qtbot.addWidget(window)
        window.resize(1280, 800)
        window.show()
        window.activateWindow()
        qtbot.waitExposed(window)
        with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
            window.open_project(str(review_project.root))
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()


# Four images the bundled model gets wrong and two it gets right (assets/demo/manifest.json).
FEW_DEMO_IMAGES = ["n01494475_hammerhead.JPEG", "n01534433_junco.JPEG", "n01608432_kite.JPEG",
                   "n01616318_vulture.JPEG", "n01443537_goldfish.JPEG", "n01560419_bulbul.JPEG"]


@pytest.fixture
def few_demo_images(tmp_path, monkeypatch):
    """The demo made of six of its shipped images (a run of the real model takes seconds)."""
    import reviewer.app.demo
    from reviewer.paths import asset

    folder = tmp_path / "demo_images"
    folder.mkdir()
    for name in FEW_DEMO_IMAGES:
        shutil.copy(asset("demo", "images", name), folder / name)
    monkeypatch.setattr(reviewer.app.demo, "demo_images", lambda: folder)
    return folder


def pytest_collection_modifyitems(items):
    """Every test here drives Qt: `-m "not gui"` leaves them all out."""
    for item in items:
        if "tests/ui/" in item.nodeid.replace("\\", "/") or item.nodeid.startswith("ui/"):
            item.add_marker(pytest.mark.gui)
