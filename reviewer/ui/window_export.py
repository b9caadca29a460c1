"""The main window's export: File > Export… asks for a folder, writes the project's
reviewed labels there off the UI thread, and shows what was written.

A part of `QtMainWindow` (a mixin of it), kept apart because it is one
responsibility: the export act (`reviewer.app.export.export_project`, what
`reviewer export` runs) as the window starts it and reports it. It uses the
window's `project`, `worker`, `export_action`, `show_message` and its `exported`
and `export_failed` signals; its state is `export_summary` (the last summary shown).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from reviewer.errors import UserError


class WindowExport:
    """The export of `QtMainWindow`: the folder asked for, the export run, its summary."""

    def export_project(self) -> None:
        """Ask for a folder and export the project's reviewed labels there, off the UI thread."""
        if self.project is None:
            self.show_message("Open a project first.", error=True)
            return
        # Starting beside the project (the working directory of whoever launched the app is
        # rarely where an export belongs).
        folder = QFileDialog.getExistingDirectory(self, "Export the reviewed labels into", str(self.project.root))
        if not folder:
            return
        from reviewer.app.export import export_project

        self.export_action.setEnabled(False)
        self.show_message(f"Exporting into {folder}…")
        self.worker.submit(export_project, self.project, folder, on_done=self._exported,
                           on_error=self._export_failed)

    def _exported(self, done) -> None:
        from reviewer.app.export import export_summary

        result = done.value
        self.export_action.setEnabled(True)
        # What `reviewer export` prints (one function builds both): the decisions and what was left out in the
        # status bar, every line in the box, where it can be read.
        summary = export_summary(result)
        self.show_message(summary.headline)
        count = len(summary.files)
        box = QMessageBox(QMessageBox.Icon.Information, "Export written",
                          f"Exported {count} file{'' if count == 1 else 's'} to {result.path}",
                          QMessageBox.StandardButton.Ok, self)
        box.setInformativeText("\n".join(summary.lines))
        box.setDetailedText("\n".join(summary.files))
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setObjectName("export_summary")
        box.setWindowModality(Qt.WindowModality.NonModal)  # the review goes on beside it
        if self.export_summary is not None:
            self.export_summary.close()
        self.export_summary = box
        box.show()
        self.exported.emit(str(result.path))

    def _export_failed(self, error: BaseException) -> None:
        self.export_action.setEnabled(True)
        reason = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
        self.show_message(f"Export failed (no export folder was made): {reason}", error=True)
        self.export_failed.emit(reason)
