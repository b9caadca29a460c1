"""The bundled demo: built offline from the shipped images, the bundled
EfficientNet-Lite0 run over them, reused on the second launch."""

from __future__ import annotations

import json
import shutil

import pytest

import reviewer.app.demo
from reviewer.app import panel as acts
from reviewer.app.demo import demo_root, demo_status, prepare_demo_project, run_demo_model
from reviewer.cli import main
from reviewer.items import Item
from reviewer.paths import asset

# Four images the bundled model gets wrong and two it gets right (assets/demo/manifest.json).
FEW = ["n01494475_hammerhead.JPEG", "n01534433_junco.JPEG", "n01608432_kite.JPEG", "n01616318_vulture.JPEG",
       "n01443537_goldfish.JPEG", "n01560419_bulbul.JPEG"]


def test_shipped_demo_assets_are_small_and_hold_the_model_mistakes():
    images = sorted(asset("demo", "images").glob("*.JPEG"))
    manifest = json.loads(asset("demo", "manifest.json").read_text())
    assert 250 <= len(images) <= 400
    assert sum(p.stat().st_size for p in images) < 15e6
    assert {e["file"] for e in manifest["images"]} == {p.name for p in images}
    wrong = [e for e in manifest["images"] if e["label"] != e["lite0_top1"]]
    assert len(wrong) == manifest["mistakes"] > 100  # every mistake of the 1000 samples is shipped


@pytest.fixture
def few_demo_images(tmp_path, monkeypatch):
    folder = tmp_path / "demo_images"
    folder.mkdir()
    for name in FEW:
        shutil.copy(asset("demo", "images", name), folder / name)
    monkeypatch.setattr(reviewer.app.demo, "demo_images", lambda: folder)
    return folder


def test_demo_project_is_built_once_and_reused(few_demo_images):
    project = prepare_demo_project()
    assert project.root == demo_root() and project.image_count() == 6
    ann = acts.add_panelist(project, "ann").value.id
    acts.vote(project, panelist_id=ann, item=Item(1, 3), verdict="wrong")
    project.close()
    again = prepare_demo_project()  # a second launch keeps what was recorded
    assert again.image_count() == 6
    assert acts.add_panelist(again, "ann").value.id == ann
    again.set_setting(reviewer.app.demo.READY_SETTING, "0")  # as if the first launch had died half-way
    again.close()
    rebuilt = prepare_demo_project()
    assert rebuilt.image_count() == 6 and rebuilt.setting(reviewer.app.demo.READY_SETTING) == "1"


@pytest.mark.slow
def test_demo_runs_the_bundled_model_offline(few_demo_images, capsys):
    project = prepare_demo_project()
    result = run_demo_model(project).value
    assert result.status == "complete" and result.predicted == 6
    status = demo_status(project)
    assert status.run_id == result.run_id and status.mistakes == 4
    assert "4 mistakes" in status.describe()
    # The CLI reuses the project and the run, and says where it stands.
    assert main(["demo", "--no-gui"]) == 0
    out = capsys.readouterr().out
    assert f"run #{result.run_id} of tf_efficientnet_lite0: 4 mistakes (4 novel)" in out
    assert f"reviewer gui {demo_root()}" in out


def test_gui_without_a_display_says_what_to_do(monkeypatch, capsys):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert main(["demo"]) == 2
    assert "reviewer demo --no-gui" in capsys.readouterr().err


def test_demo_says_in_the_terminal_at_once_what_its_first_launch_does(monkeypatch, capsys):
    """`reviewer demo` was silent for 48 s while its first launch copied the images and ran
    the model in the window: the terminal now says so before the window loads."""
    opened = []
    monkeypatch.setattr("reviewer.cli.cmd_gui._run_window", lambda **kw: opened.append(kw) or 0)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert main(["demo"]) == 0
    err = capsys.readouterr().err
    assert opened and err.startswith(f"opening the demo project {demo_root()} in the review window; this first "
                                     "launch copies its images there and runs tf_efficientnet_lite0")


@pytest.mark.slow
def test_demo_no_gui_piped_prints_lines_of_progress(few_demo_images, capsys):
    """Piped (as here: capsys is no terminal), the run's progress comes as lines, after a line
    saying torch and timm load first, not as one line redrawn with carriage returns."""
    assert main(["demo", "--no-gui"]) == 0
    err = capsys.readouterr().err
    assert "running tf_efficientnet_lite0 over the 6 images (loading torch and timm first) ..." in err
    assert "\r" not in err and "run #1: 6 of 6 images" in err
