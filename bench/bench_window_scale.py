"""Issue 34, capability 6: the window on a 50,000-image project with 20 runs. Seconds from
starting `reviewer gui PROJECT` (offscreen) to the main window's first paint and to the review
page's first mistake shown (`QtReviewPage.mistake_shown`: its facts and image, or the
placeholder of a project without image files, on screen), for the queues a panelist opens:

    newest run     the run a first launch opens (the newest complete run)
    scope queue    the panel's scope as one list (run id 0, `reviewer.panel.scope.SCOPE_QUEUE`),
                   each item once, remembered as the last queue opened

    python bench/bench_window_scale.py                     # 50k x 20 runs, built once under OUT/projects
    python bench/bench_window_scale.py --size 5000 --runs 10 --repeat 5
    python bench/bench_window_scale.py --rebuild           # build the project again

The project is built as bench/bench_scale.py builds its cases (its inputs module: the real label
files, synthetic runs whose errors fall on a few confusable classes, three panelists voting on
run 1 with `vote --batch`), then the chair sets the panel's scope (--scope, default runs 1 and 3),
and kept, so a second invocation measures at once. Logits already made by bench_scale.py (under
bench/out/scale/inputs) are reused, never written there.

Each figure is the median of --repeat launches (min and max beside it), with the process's CPU
time to the first mistake (all its threads: the figure that travels between a busy and an idle
machine) and the 1-minute load average: on a shared 2-core machine the load moves the seconds. It prints and never asserts: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

# `reviewer gui PROJECT --panelist ann` printing one line at the main window's first paint and one
# when the first mistake is shown (then the process ends); times from the moment the launcher
# started the process (passed as an epoch time: the interpreter's own start-up counts too).
GUI_FIRST_MISTAKE = r"""
import os, sys, time
started = float(sys.argv.pop())
from PySide6.QtCore import QEvent, QObject, QTimer
import reviewer.ui.app as ui_app
from reviewer.cli import main

make = ui_app.create_app

def at():
    return time.time() - started

def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0

class Watch(QObject):
    painted = False
    def eventFilter(self, obj, event):
        if (not self.painted and event.type() == QEvent.Type.Paint and obj.isWidgetType()
                and obj.window().inherits("QMainWindow")):
            self.painted = True
            print(f"first_paint {at():.3f}", flush=True)
        return False

def shown(window, item):
    queue = window.bridge.state.queue
    print(f"first_mistake {at():.3f} run {window.bridge.state.run_id} queue {len(queue) if queue else 0} "
          f"peak_mb {peak_mb():.0f} cpu {time.process_time():.3f}", flush=True)
    os._exit(0)

def look(app, timer):
    for widget in app.topLevelWidgets():
        page = getattr(widget, "_page", None)
        if page is not None and hasattr(page, "mistake_shown"):
            page.mistake_shown.connect(lambda item, w=widget: shown(w, item))
            timer.stop()
            return

def create_app():
    app = make()
    app.installEventFilter(Watch(app))
    timer = QTimer(app, interval=2)
    timer.timeout.connect(lambda: look(app, timer))
    timer.start()
    QTimer.singleShot(120_000, lambda: (print("timeout", flush=True), os._exit(1)))
    return app

ui_app.create_app = create_app
sys.exit(main(["gui", *sys.argv[1:]]))
"""


def environment(out: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(REVIEWER_CONFIG_DIR=str(out / "config"), REVIEWER_DATA_DIR=str(out / "data"),
               QT_QPA_PLATFORM="offscreen", PYTHONUNBUFFERED="1")
    return env


def reviewer(env: dict[str, str], *argv: str) -> str:
    """One `reviewer` command as a user runs it; its output, or the reason it failed."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "reviewer", *argv], env=env, cwd=REPO, capture_output=True,
                          text=True)
    if done.returncode:
        raise SystemExit(f"reviewer {' '.join(argv[:2])} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    print(f"   {argv[0]:<14} {time.perf_counter() - started:6.1f} s", flush=True)
    return done.stdout


def logits_path(runs, spec, indices, out: Path, shared: Path) -> Path:
    """The run's logits: bench_scale.py's file if it made it already, else made under `out`."""
    import _scale_inputs as inputs

    made = shared / "inputs" / f"n{len(indices)}" / f"run{spec.number:02d}_seed{spec.seed}_v{inputs.GENERATOR_VERSION}.npz"
    return made if made.exists() else runs.logits_file(out, spec, indices)


def build(project: Path, args, env: dict[str, str]) -> None:
    """The project as bench_scale.py builds a case, plus the chair's scope."""
    import _scale_inputs as inputs

    print(f"building {project} ({args.size:,} images x {args.runs} runs)", flush=True)
    if project.exists():
        shutil.rmtree(project)
    data = inputs.data_folder()
    truth = inputs.read_truth(data)
    table = inputs.confusers(args.out)
    runs = inputs.Runs(truth, table, args.seed)
    indices = inputs.subset_indices(args.size)
    specs = [inputs.RunSpec(number, args.seed) for number in range(1, args.runs + 1)]
    files = inputs.label_files(args.out, args.size, data, truth)
    reviewer(env, "init", str(project), "--labels", str(files["original"]), str(files["multilabel"]))
    reviewer(env, "import-labels", str(project), str(files["real"]))
    for spec in specs:
        path = logits_path(runs, spec, indices, args.out, args.shared)
        reviewer(env, "import-logits", str(project), str(path), "--model", spec.model)
    reviewer(env, "panelist", str(project), "ann", "--chair")
    for name in ("bob", "cy"):
        reviewer(env, "panelist", str(project), name)
    votes, _ = inputs.vote_files(args.out, args.size, runs, specs[0], indices)
    for name, path in votes.items():
        reviewer(env, "vote", str(project), "--panelist", name, "--batch", str(path))
    if args.scope:
        reviewer(env, "panel-scope", str(project), "--chair", "ann", "--runs", *args.scope.split(","))
    (project / "bench-built.json").write_text(json.dumps({"size": args.size, "runs": args.runs, "seed": args.seed,
                                                          "scope": args.scope}))


def remember(out: Path, project: Path, run_id: int | None) -> None:
    """The preferences of a panelist who last had `run_id` open (None: a first launch)."""
    path = out / "config" / "preferences.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    prefs = json.loads(path.read_text()) if path.exists() else {}
    root = str(project.resolve())
    prefs["panelist_name"] = "ann"
    prefs["recent_projects"] = [root]
    prefs["last_run"] = {} if run_id is None else {root: run_id}
    path.write_text(json.dumps(prefs))


def launch(project: Path, env: dict[str, str]) -> dict[str, float | str]:
    """One `reviewer gui` process: its figures, from its own lines."""
    load = os.getloadavg()[0]  # before the launch: what else the machine is doing
    started = time.time()
    done = subprocess.run([sys.executable, "-c", GUI_FIRST_MISTAKE, str(project), "--panelist", "ann",
                           repr(started)], env=env, cwd=REPO, capture_output=True, text=True, timeout=180)
    figures: dict[str, float | str] = {"load": load}
    for line in done.stdout.splitlines():
        words = line.split()
        if words and words[0] in ("first_paint", "first_mistake"):
            figures[words[0]] = float(words[1])
            if words[0] == "first_mistake":
                figures["queue"] = words[5]
                figures["peak_mb"] = float(words[7])
                figures["cpu"] = float(words[9])
        elif words and words[0] == "timeout":
            figures["note"] = "timeout"
    if "first_mistake" not in figures:
        figures["note"] = (done.stdout + done.stderr)[-600:]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--scope", default="1,3", help="the runs the chair puts in the panel's scope ('' : every run)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=BENCH / "out" / "window")
    parser.add_argument("--shared", type=Path, default=BENCH / "out" / "scale",
                        help="bench_scale.py's OUT, whose logits are reused when present")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args()

    env = environment(args.out)
    project = args.out / "projects" / f"n{args.size}_r{args.runs}"
    built = project / "bench-built.json"
    wanted = {"size": args.size, "runs": args.runs, "seed": args.seed, "scope": args.scope}
    if args.rebuild or not built.exists() or json.loads(built.read_text()) != wanted:
        build(project, args, env)
    if args.build_only:
        return 0
    print(f"\n{project}: {args.size:,} images x {args.runs} runs, scope runs {args.scope or 'every run'}")
    print(f"{'queue opened':<14} {'first paint':>12} {'first mistake':>14} {'min':>6} {'max':>6} {'cpu':>6} "
          f"{'queue rows':>10} {'peak MB':>8} {'load':>5}")
    for name, run_id in (("newest run", None), ("scope queue", 0)):
        remember(args.out, project, run_id)
        results = [launch(project, env) for _ in range(args.repeat)]
        good = [r for r in results if "first_mistake" in r]
        if not good:
            print(f"{name:<14} failed: {results[0].get('note', '')}")
            continue
        firsts = [float(r["first_mistake"]) for r in good]
        print(f"{name:<14} {statistics.median(float(r['first_paint']) for r in good):11.2f}s "
              f"{statistics.median(firsts):13.2f}s {min(firsts):5.2f}s {max(firsts):5.2f}s "
              f"{statistics.median(float(r['cpu']) for r in good):5.2f}s "
              f"{good[0]['queue']:>10} {statistics.median(float(r['peak_mb']) for r in good):8.0f} "
              f"{statistics.median(float(r['load']) for r in good):5.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
