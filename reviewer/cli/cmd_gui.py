"""`reviewer gui [PROJECT]` and `reviewer demo`: the review window, and the bundled demo."""

from __future__ import annotations

import argparse
import sys

from reviewer.terms import RunStatus

# A one-off name: the window uses it and keeps the remembered one (the start screen's name box sets that).
PANELIST_HELP = ("your name on the panel for this session only (not remembered: the name you type on the start "
                 "screen is)")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("gui", help="open the review window (on a project, or at the start screen)")
    p.add_argument("project", nargs="?", help="project folder to open (default: the start screen)")
    p.add_argument("--panelist", "--reviewer", metavar="NAME", help=PANELIST_HELP)
    p.set_defaults(func=run_gui_command)

    p = subparsers.add_parser("demo", help="build the bundled demo (real images, EfficientNet-Lite0's mistakes) "
                                           "and open it")
    p.add_argument("--no-gui", action="store_true", help="build the project and run the model only, printing "
                                                         "where it stands (for CI and terminals)")
    p.add_argument("--panelist", "--reviewer", metavar="NAME", help=PANELIST_HELP)
    p.set_defaults(func=run_demo_command)


def run_gui_command(args: argparse.Namespace) -> int:
    if args.project:
        from reviewer.project import check_project_folder

        # A clear error here, not in the window, for a wrong path (as main checks it too); the
        # window opens the database itself, in the background, after its first paint.
        check_project_folder(args.project)
    return _run_window(project=args.project, demo=False, panelist=args.panelist)


def run_demo_command(args: argparse.Namespace) -> int:
    from reviewer.app.demo import DEMO_MODEL, demo_root

    # A first launch copies the images and runs the model (a minute or so): the terminal says
    # so at once, rather than nothing until the window or the first line of progress.
    first = not (demo_root() / "project.json").exists()
    if not args.no_gui and not _no_display():
        print(f"opening the demo project {demo_root()} in the review window"
              + (f"; this first launch copies its images there and runs {DEMO_MODEL} over them (about a minute "
                 f"on a CPU, progress in the window)" if first else ""), file=sys.stderr, flush=True)
    if not args.no_gui:
        return _run_window(project=None, demo=True, panelist=args.panelist)
    from reviewer.app.demo import demo_status, prepare_demo_project, run_demo_model

    if first:
        print(f"making the demo project {demo_root()} from the bundled images ...", file=sys.stderr, flush=True)
    project = prepare_demo_project()
    status = demo_status(project)
    print(status.describe().split(";")[0])
    if status.run_id is None:
        print(f"running {DEMO_MODEL} over the {status.images} images (loading torch and timm first) ...",
              file=sys.stderr, flush=True)
        if sys.stderr.isatty():
            progress = _TerminalProgress()
        else:  # piped or logged: lines, not one line redrawn with carriage returns
            from reviewer.cli.cmd_predict import _ProgressBar

            progress = _ProgressBar(terminal=False)
        result = run_demo_model(project, progress=progress).value
        if sys.stderr.isatty():
            print(file=sys.stderr)
        if result.status != RunStatus.COMPLETE:
            print(f"the run stopped ({result.status}); run 'reviewer demo --no-gui' again to resume")
            return 1
        status = demo_status(project)
    print(status.describe())
    print(f"review it: reviewer gui {status.root}")
    return 0


class _TerminalProgress:
    """One line of progress on stderr: done/total, images/s, time left."""

    def __call__(self, progress) -> None:
        left = progress.seconds_left
        eta = f"{left:.0f} s left" if left is not None else "…"
        width = 30
        filled = int(width * progress.done / max(1, progress.total))
        print(f"\r  [{'#' * filled}{'.' * (width - filled)}] {progress.done}/{progress.total} images, "
              f"{progress.images_per_second:.1f} images/s, {eta}   ", end="", file=sys.stderr, flush=True)


def _run_window(*, project: str | None, demo: bool, panelist: str | None) -> int:
    if _no_display():
        print("error: no display to open the window on (DISPLAY / WAYLAND_DISPLAY unset); "
              "'reviewer demo --no-gui' builds the demo without one, or set QT_QPA_PLATFORM=offscreen",
              file=sys.stderr)
        return 2
    try:
        from reviewer.ui.app import run_gui
    except ImportError as exc:  # PySide6 missing or without its system libraries
        print(f"error: the review window needs PySide6 and a display ({exc}); "
              "'reviewer demo --no-gui' builds the demo without it", file=sys.stderr)
        return 2
    return run_gui(project=project, demo=demo, panelist=panelist)


def _no_display() -> bool:
    """Linux without X11 or Wayland (Qt would abort the process instead of raising)."""
    import os

    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
