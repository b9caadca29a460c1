"""The export of the open project: File > Export… asks for a folder, writes the project's
reviewed labels there off the UI thread, and shows what was written.

A part of the main window that owns the export's state: whether one is running (the File menu's
Export… is greyed out meanwhile: `running_changed`) and the last summary shown (`summary`). It
takes the `ProjectHolder` (the project exported), the window's worker (the export runs there)
and a message sink (the status bar) in its constructor; the window wires `running_changed`,
`exported` and `failed` in its `_connect_signals`. The act is `reviewer.app.export.export_project`
(what `reviewer export` runs), and the summary is the one that command prints
(`reviewer.app.export.export_summary`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox

from reviewer.errors import UserError

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from reviewer.ui.project_holder import ProjectHolder
    from reviewer.ui.workers import Worker


class ProjectExport(QObject):
    """The holder's project exported into a folder the panelist picks, its summary shown."""

    running_changed = Signal(bool)  # an export started (True) or ended (False)
    exported = Signal(str)  # the export folder written
    failed = Signal(str)  # the reason, also given to the message sink

    def __init__(self, holder: ProjectHolder, worker: Worker, message: Callable[..., None], *,
                 dialog_parent: QWidget) -> None:
        super().__init__(holder)
        self._holder, self._worker, self._message = holder, worker, message
        self._dialog_parent = dialog_parent
        self.running = False
        self.summary: QMessageBox | None = None  # the last summary box shown

    def export_project(self) -> None:
        """Ask for a folder and export the project's reviewed labels there, off the UI thread."""
        project = self._holder.project
        if project is None:
            self._message("Open a project first.", error=True)
            return
        if self.running:
            return  # the File menu's Export… is greyed out meanwhile; a key may still reach here
        # Starting beside the project (the working directory of whoever launched the app is
        # rarely where an export belongs).
        folder = QFileDialog.getExistingDirectory(self._dialog_parent, "Export the reviewed labels into",
                                                  str(project.root))
        if not folder:
            return
        from reviewer.app.export import export_project

        self._set_running(True)
        self._message(f"Exporting into {folder}…")
        self._worker.submit(export_project, project, folder, on_done=self._exported, on_error=self._failed)

    def _set_running(self, running: bool) -> None:
        self.running = running
        self.running_changed.emit(running)

    def _exported(self, done) -> None:
        from reviewer.app.export import export_summary

        result = done.value
        self._set_running(False)
        # What `reviewer export` prints (one function builds both): the decisions and what was left out in the
        # status bar, every line in the box, where it can be read.
        summary = export_summary(result)
        self._message(summary.headline)
        count = len(summary.files)
        box = QMessageBox(QMessageBox.Icon.Information, "Export written",
                          f"Exported {count} file{'' if count == 1 else 's'} to {result.path}",
                          QMessageBox.StandardButton.Ok, self._dialog_parent)
        box.setInformativeText("\n".join(summary.lines))
        box.setDetailedText("\n".join(summary.files))
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setObjectName("export_summary")
        box.setWindowModality(Qt.WindowModality.NonModal)  # the review goes on beside it
        if self.summary is not None:
            self.summary.close()
        self.summary = box
        box.show()
        self.exported.emit(str(result.path))

    def _failed(self, error: BaseException) -> None:
        self._set_running(False)
        reason = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
        self._message(f"Export failed (no export folder was made): {reason}", error=True)
        self.failed.emit(reason)
