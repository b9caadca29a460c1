"""Start-up of the `reviewer` command: seconds from starting the process to its first line
of output (stdout or stderr), and for `gui` to the window's first paint (offscreen).

    python bench/bench_startup.py            # a project of the demo's images, made in a temp folder
    python bench/bench_startup.py --repeat 9 --project PROJECT

Issue 24's target: each at most 1 s on an idle machine. Every figure is the median of
--repeat runs; the minimum and maximum show how much load moved them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs `reviewer gui PROJECT` and prints one line at the main window's first paint, then quits.
GUI_FIRST_PAINT = """
import os, sys
from PySide6.QtCore import QEvent, QObject, QTimer
import reviewer.ui.app as ui_app
from reviewer.cli import main

make = ui_app.create_app

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and obj.isWidgetType() and obj.window().inherits("QMainWindow"):
            print("first paint", flush=True)
            os._exit(0)
        return False

def create_app():
    app = make()
    app.installEventFilter(FirstPaint(app))
    QTimer.singleShot(60_000, lambda: os._exit(1))
    return app

ui_app.create_app = create_app
sys.exit(main(["gui", *sys.argv[1:]]))
"""


def first_line_seconds(argv: list[str], env: dict[str, str], *, marker: str = "") -> tuple[float, str]:
    """Seconds from the start of the process to its first line of output (the first holding
    `marker`: Qt's own warnings come before the first paint), and that line."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    line = process.stdout.readline()
    while line and marker.encode() not in line:
        line = process.stdout.readline()
    seconds = time.perf_counter() - start
    process.kill()
    process.wait()
    process.stdout.close()
    return seconds, line.decode(errors="replace").strip()


def make_project(folder: Path, env: dict[str, str]) -> Path:
    """A project of the demo's 300 images with a 32-image run of the bundled Lite0."""
    project = folder / "bench-project"
    reviewer = [sys.executable, "-m", "reviewer"]
    subprocess.run([*reviewer, "init", str(project), "--images", str(ROOT / "assets/demo/images")],
                   env=env, check=True, capture_output=True)
    subprocess.run([*reviewer, "predict", str(project), "--model", "tf_efficientnet_lite0", "--limit", "32"],
                   env=env, check=True, capture_output=True)
    return project


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--project", type=Path, help="an existing project (default: one made in a temp folder)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", REVIEWER_DATA_DIR=f"{tmp}/data",
                   REVIEWER_CONFIG_DIR=f"{tmp}/config", PYTHONDONTWRITEBYTECODE="1")
        project = str(args.project or make_project(Path(tmp), env))
        reviewer = [sys.executable, "-m", "reviewer"]
        cases = {
            "reviewer --help": [*reviewer, "--help"],
            "reviewer report PROJECT": [*reviewer, "report", project],
            "reviewer predict WRONG_PATH --model ...": [*reviewer, "predict", f"{tmp}/nosuch", "--model",
                                                        "tf_efficientnet_lite0"],
            "reviewer predict PROJECT --model WRONG_NAME": [*reviewer, "predict", project, "--model", "nosuchnet"],
            "reviewer show PROJECT --image WRONG_NAME": [*reviewer, "show", project, "--image", "nosuch.JPEG",
                                                         "--predicted", "1"],
            "reviewer leaderboard PROJECT": [*reviewer, "leaderboard", project],
            "reviewer gui PROJECT (first paint)": [sys.executable, "-c", GUI_FIRST_PAINT, project],
        }
        print(f"{'command':46} {'median':>7} {'min':>6} {'max':>6}  first line")
        for name, argv in cases.items():
            marker = "first paint" if "first paint" in name else ""
            runs = [first_line_seconds(argv, env, marker=marker) for _ in range(args.repeat)]
            times = [seconds for seconds, _ in runs]
            print(f"{name:46} {statistics.median(times):6.2f}s {min(times):5.2f}s {max(times):5.2f}s  "
                  f"{runs[0][1][:60]}")


if __name__ == "__main__":
    main()
