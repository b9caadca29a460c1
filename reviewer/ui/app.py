"""Starting the window: the QApplication, its look, and what to open first."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication

from reviewer.ui.theme import apply_theme


def create_app() -> QApplication:
    """The application object (made once), themed."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("ImageNet mistake reviewer")
        app.setOrganizationName("imagenet-mistake-reviewer")
    if not app.property("reviewer_themed"):
        apply_theme(app)
        app.setProperty("reviewer_themed", True)
    return app


def run_gui(*, project: str | None = None, demo: bool = False, reviewer: str | None = None) -> int:
    """Show the main window (on a project, on the demo, or at the start screen)
    and run the event loop until it is closed."""
    from reviewer.ui.qt_main_window import QtMainWindow

    app = create_app()
    window = QtMainWindow()
    if reviewer:
        window.start.set_name(reviewer)
    window.show()
    if demo:
        window.open_demo()
    elif project:
        window.open_project(project)
    return app.exec()
