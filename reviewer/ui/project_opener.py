"""From the start screen to an open project: the panelist's name, a new name asked before it
joins the panel, a new project, the demo, and why a project did not open.

A part of the main window that owns the way in: it takes the start screen and the
`ProjectHolder`, asks the holder to open a project, and follows its `open_failed` and `opened`
itself (the name and the project remembered in the preferences). The window shows what it
says: `start_wanted` (the start screen), `message`, and `demo_needs_run` (the demo opened
without a run: the bundled model runs over it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QObject, Signal

from reviewer.app.preferences import Preferences, save_preferences
from reviewer.errors import UserError
from reviewer.panel.identity import default_name
from reviewer.redact import scrub

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from reviewer.ui.dialogs.qt_start_screen import QtStartScreen
    from reviewer.ui.project_holder import ProjectHolder
    from reviewer.ui.workers import Worker


def _prepare_demo():
    """The demo project made if need be (`reviewer.app.demo.prepare_demo`), on the worker."""
    from reviewer.app.demo import prepare_demo

    return prepare_demo()


class ProjectOpener(QObject):
    """Opens projects into the holder from the start screen's name and choices."""

    start_wanted = Signal()  # the start screen is to be shown (a name is needed, a project did not open)
    message = Signal(str, bool)  # text, is an error
    demo_needs_run = Signal()  # the demo opened without a run: the bundled model is to run over it

    def __init__(self, start: QtStartScreen, holder: ProjectHolder, worker: Worker, prefs: Preferences, *,
                 confirm_join: Callable[[str], bool], dialog_parent: QWidget) -> None:
        super().__init__(holder)
        self._start, self._holder, self._worker, self._prefs = start, holder, worker, prefs
        self._confirm_join = confirm_join
        self._dialog_parent = dialog_parent
        self.one_off_panelist: str | None = None  # `reviewer gui --panelist NAME`: used, not remembered
        self._demo_run_asked = False
        start.open_project.connect(self.open_project)
        start.new_project.connect(self.new_project)
        start.open_demo.connect(self.open_demo)
        holder.open_failed.connect(self._open_failed)
        holder.opened.connect(self._opened)

    def panelist_name(self) -> str | None:
        """The name typed on the start screen, else the remembered one; None (and the start
        screen asks for it) when there is neither."""
        name = self._start.panelist_name() or self._prefs.panelist_name
        if not name:
            self.start_wanted.emit()
            self.message.emit("Enter your name first: every vote is recorded under it.", True)
            self._start.name.setFocus()
            return None
        return name

    def open_project(self, root: str, *, join: bool = False) -> None:
        name = self.panelist_name()
        if name is None:
            # Offer the asked-for project first, so Enter opens it once the name is typed.
            self._start.set_recent([root] + [p for p in self._prefs.existing_recent() if p != root])
            return
        self.message.emit(f"Opening {root}…", False)
        self._holder.open(root, name, join=join)

    def _open_failed(self, error: BaseException, root: str) -> None:
        from reviewer.panel.membership import NotOnPanel

        if isinstance(error, NotOnPanel) and error.can_join:
            if self._confirm_join(str(error)):
                self.open_project(root, join=True)
                return
            error = NotOnPanel(f"{error.name} did not join the panel: type your name as the panel knows it",
                               name=error.name, can_join=False)
        self.start_wanted.emit()
        text = scrub(str(error) if isinstance(error, UserError) else f"Cannot open: {error}")
        self.message.emit(text, True)
        self._start.show_error(text)  # whole, where a one-line status bar cuts it off

    def _opened(self) -> None:
        """The name and the project are remembered (a one-off --panelist is not)."""
        self._start.show_error("")
        panelist, project = self._holder.panelist, self._holder.project
        if panelist.name != self.one_off_panelist:
            self._prefs.panelist_name = panelist.name
        self._prefs.add_recent(project.root)
        save_preferences(self._prefs)

    def new_project(self) -> None:
        if self.panelist_name() is None:
            return
        from reviewer.ui.dialogs.qt_new_project_dialog import QtNewProjectDialog

        dialog = QtNewProjectDialog(self._dialog_parent)
        if dialog.exec() and dialog.created_root:
            self.open_project(dialog.created_root)

    def open_demo(self) -> None:
        """The bundled demo, made on first use (a worker); a first-time panelist reviews under
        the system user name. Opened without a run, `demo_needs_run` once it is shown."""
        if not (self._start.panelist_name() or self._prefs.panelist_name):
            self._start.set_name(default_name() or "panelist")
        self.message.emit("Preparing the demo project…", False)
        self._worker.submit(_prepare_demo, on_done=self._demo_prepared,
                            on_error=lambda e: self.message.emit(f"The demo could not be prepared: {e}", True))

    def _demo_prepared(self, prepared) -> None:
        root, has_run = prepared
        self._demo_run_asked = not has_run
        self.open_project(str(root))

    def project_shown(self) -> None:
        """The window shows the open project (its "no run" page, for the demo without a run)."""
        if self._demo_run_asked:
            self._demo_run_asked = False
            self.demo_needs_run.emit()
