"""Opening the demo from the window: make the project (worker thread), open it,
run the bundled model with the run dialog's progress bar if it has not run,
and land on the first mistake."""

from __future__ import annotations

import getpass
from typing import TYPE_CHECKING

from reviewer.app.demo import DEMO_MODEL, demo_status, prepare_demo_project

if TYPE_CHECKING:
    from reviewer.ui.qt_main_window import QtMainWindow


def _prepare() -> tuple[str, bool]:
    project = prepare_demo_project()
    try:
        return str(project.root), demo_status(project).run_id is not None
    finally:
        project.close()


def start_demo(window: "QtMainWindow") -> None:
    """Open the demo in `window` (a remembered or the system user name as panelist)."""
    if not (window.start.reviewer_name() or window.prefs.reviewer_name):
        window.start.set_name(_system_user())
    window.show_message("Preparing the demo project…")

    def prepared(result: tuple[str, bool]) -> None:
        root, has_run = result
        if not has_run:
            window.project_opened.connect(_run_model_once(window))
        window.open_project(root)

    window.worker.submit(_prepare, on_done=prepared,
                          on_error=lambda e: window.show_message(f"The demo could not be prepared: {e}", error=True))


def _run_model_once(window: "QtMainWindow"):
    def run_model() -> None:
        window.project_opened.disconnect(run_model)
        dialog = window.open_run_dialog(model=DEMO_MODEL, autostart=True)
        if dialog is not None:
            dialog.setWindowTitle("Running the bundled EfficientNet-Lite0 over the demo images")
            dialog.run_finished.connect(lambda _run_id: _back_to_window(window, dialog))
    return run_model


def _back_to_window(window: "QtMainWindow", dialog) -> None:
    """Close the run dialog and give the keys back to the review page, so the
    first mistake can be voted on at once (the dialog had the focus)."""
    dialog.close()
    window.activateWindow()
    window.page.setFocus()


def _system_user() -> str:
    try:
        return getpass.getuser() or "panelist"
    except Exception:  # no user name in the environment (some containers)
        return "panelist"
