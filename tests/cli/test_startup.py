"""Every command answers at once (issue 24): the heavy libraries (torch, timm, matplotlib,
scipy, Qt) load only inside the code that needs them, so `--help`, a wrong path, name or
option is answered before any of them. Behaviour, not timing: each case runs in a fresh
interpreter and reads which modules it loaded (bench/bench_startup.py gives the seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from reviewer.cli import main

HEAVY = ("torch", "timm", "matplotlib", "scipy", "PySide6")

# Runs the command in-process, then prints which of the heavy modules it loaded.
PROBE = """
import json, sys
import reviewer.cli
{setup}
try:
    code = reviewer.cli.main({argv!r})
except SystemExit as exc:
    code = exc.code
print(json.dumps([code, sorted({{m.split(".")[0] for m in sys.modules}} & {heavy!r})]))
"""


def loaded_after(argv: list[str] | None, *, setup: str = "") -> tuple[int, list[str]]:
    """(exit status, heavy modules loaded) of `reviewer ARGV` in a fresh interpreter;
    argv None: only the parser is built."""
    if argv is None:
        setup, argv = "reviewer.cli.build_parser()", ["--version"]
    code = PROBE.format(setup=setup, argv=argv, heavy=set(HEAVY) | {"sqlalchemy", "pandas"})
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    status, modules = json.loads(result.stdout.strip().splitlines()[-1])
    return status, modules


def test_building_the_parser_and_help_load_no_library():
    assert loaded_after(None)[1] == []
    assert loaded_after(["--help"]) == (0, [])


@pytest.mark.parametrize("argv", [
    ["predict", "NOWHERE", "--model", "tf_efficientnet_lite0"],
    ["import-logits", "NOWHERE", "logits.npy", "--model", "m"],
    ["report", "NOWHERE"],
    ["leaderboard", "NOWHERE"],
    ["split", "NOWHERE", "--runs", "a", "b"],
    ["gui", "NOWHERE"],
])
def test_a_wrong_project_path_is_answered_before_any_library_loads(argv, tmp_path):
    argv = [str(tmp_path / "nowhere") if a == "NOWHERE" else a for a in argv]
    status, modules = loaded_after(argv)
    assert status == 2
    assert [m for m in modules if m in HEAVY] == [], f"{argv[0]} on a wrong path loaded {modules}"


def test_a_wrong_option_is_answered_before_any_library_loads():
    status, modules = loaded_after(["predict", "p", "--model", "m", "--precision", "fp8"])
    assert status == 2 and [m for m in modules if m in HEAVY] == []


def test_the_text_report_loads_neither_plotting_nor_scipy_nor_torch(tmp_path, shared_data):
    project = tmp_path / "proj"
    assert main(["init", str(project), "--labels", str(shared_data / "formats" / "tfds_v3_sample.json")]) == 0
    status, modules = loaded_after(["report", str(project)])
    assert status == 0
    assert [m for m in modules if m in HEAVY] == [], modules


def test_predict_piped_prints_lines_of_progress_not_silence(capsys):
    """`reviewer predict ... | tee log`: tqdm draws nothing off a terminal; a line at every
    tenth of the run instead (the last one included), never one per batch."""
    from reviewer.cli.cmd_predict import _ProgressBar

    bar = _ProgressBar(terminal=False)
    for done in range(0, 1001, 10):
        bar(SimpleNamespace(run_id=3, done=done, total=1000, skipped=0, done_now=done, elapsed=done / 100,
                            images_per_second=100.0, seconds_left=(1000 - done) / 100))
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "run #3: 1000 images"
    assert "run #3: 100 of 1000 images, 100.0 images/s, 9 s left" in lines
    assert lines[-1] == "run #3: 1000 of 1000 images, 100.0 images/s"
    assert 10 <= len(lines) <= 12


def test_predict_says_it_started_before_torch_loads(tmp_path, shared_data):
    project = tmp_path / "proj"
    assert main(["init", str(project), "--labels", str(shared_data / "formats" / "tfds_v3_sample.json")]) == 0
    setup = "import reviewer.runs; sys.modules['reviewer.runs.compute'] = None  # as if torch took ages"
    result = subprocess.run([sys.executable, "-c", PROBE.format(setup=setup, heavy=set(HEAVY), argv=[
        "predict", str(project), "--model", "tf_efficientnet_lite0"])], capture_output=True, text=True, timeout=120)
    assert result.stderr.startswith("loading torch, timm and tf_efficientnet_lite0 ..."), result.stderr


# `reviewer gui [PROJECT]` to the window's first paint: which modules are loaded then. The
# project opens on a worker thread, held here until the paint, so the answer is the main
# thread's alone and does not depend on which thread wins on a busy machine.
GUI_PROBE = """
import json, os, sys, threading
from PySide6.QtCore import QEvent, QObject
import reviewer.ui.app as ui_app
import reviewer.ui.project_holder as project_holder
from reviewer.cli import main

painted = threading.Event()
open_project = project_holder._open
project_holder._open = lambda *args: painted.wait(60) and open_project(*args)
make = ui_app.create_app

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and obj.isWidgetType() and obj.window().inherits("QMainWindow"):
            print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r}
                                    or m == "reviewer.ui.review.qt_review_page")), flush=True)
            os._exit(0)
        return False

def create_app():
    app = make()
    app.installEventFilter(FirstPaint(app))
    return app

ui_app.create_app = create_app
sys.exit(main({argv!r}))
"""


@pytest.mark.gui
@pytest.mark.parametrize("with_project", [False, True], ids=["start screen", "opening a project"])
def test_the_windows_first_paint_loads_no_database_no_review_page_and_no_library(with_project, tmp_path,
                                                                                   shared_data):
    """The window paints before SQLAlchemy, numpy, pandas and the review page load (about
    half a second of imports on this machine, issue 24): they load once a project opens."""
    argv = ["gui"]
    if with_project:
        project = tmp_path / "proj"
        assert main(["init", str(project), "--labels", str(shared_data / "formats" / "tfds_v3_sample.json")]) == 0
        argv.append(str(project))
    heavy = set(HEAVY) - {"PySide6"} | {"sqlalchemy", "sqlmodel", "alembic", "db", "pandas", "numpy",
                                          "krippendorff", "PIL"}
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-c", GUI_PROBE.format(heavy=heavy, argv=argv)], capture_output=True,
                            text=True, timeout=120, env=env)
    lines = [line for line in result.stdout.splitlines() if line.startswith("[")]
    assert lines, f"the window never painted: {result.stdout}{result.stderr}"
    assert json.loads(lines[-1]) == []
