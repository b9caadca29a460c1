"""The main window's runs: the toolbar's list of the project's runs, the run under
review, the run dialog, and a finished run offered rather than switched to.

A part of `QtMainWindow` (a mixin of it), kept apart because it is one
responsibility: which run the review page shows, and the runs started from the
window (`reviewer.app.runs` lists them; the run dialog runs `app.runs.run_model`).
"""

from __future__ import annotations

from reviewer.app.preferences import save_preferences
from reviewer.terms import RunStatus


class WindowRuns:
    """The runs of the open project as `QtMainWindow` lists, opens and starts them."""

    def _runs_listed(self, runs) -> None:
        """The runs as they are now: new ones appear in the list; the open run stays open
        (or the first run opens, when there was none to review)."""
        if self.bridge is None:
            return
        self.runs = runs
        current = self.bridge.state.run_id
        self._fill_runs()
        if current is None:
            self.open_run(self._default_run())
        else:
            self.run_combo.setCurrentIndex(self.run_combo.findData(current))

    def _fill_runs(self) -> None:
        self.run_combo.clear()
        for run_id, model, status, images in self.runs:
            suffix = "" if status == RunStatus.COMPLETE else f" ({status})"
            self.run_combo.addItem(f"#{run_id} {model} · {images} images{suffix}", run_id)

    def _default_run(self) -> int | None:
        from reviewer.app.runs import default_run

        return default_run(self.runs, self.prefs.last_run.get(str(self.project.root)))

    def open_run(self, run_id: int | None, *, refresh: bool = False) -> None:
        if run_id is None or self.bridge is None:
            return
        if run_id == self._offered_run:  # chosen in the toolbar's list: no longer an offer
            self._offered_run = None
            self.show_run_button.setVisible(False)
        self.run_combo.setCurrentIndex(self.run_combo.findData(run_id))
        self.prefs.last_run[str(self.project.root)] = run_id
        save_preferences(self.prefs)
        if self.reviewed is not None and self.stack.currentWidget() is self.reviewed:
            self.stack.setCurrentWidget(self.page)  # a run to review at last
        self.bridge.state.open_run(run_id, self.page.queue_panel.current_filter(), refresh=refresh)
        self.run_opened.emit(run_id)

    def reload_runs(self, select: int | None = None) -> None:
        if self.project is None:
            return
        from reviewer.app.runs import run_list

        self.runs = run_list(self.project)
        self._fill_runs()
        self.open_run(select if select is not None else self._default_run(), refresh=True)

    def open_run_dialog(self, *, model: str | None = None, autostart: bool = False):
        if self.project is None:
            self.show_message("Open a project first.", error=True)
            return None
        from reviewer.ui.dialogs.qt_run_dialog import QtRunDialog

        dialog = QtRunDialog(self.project, self, model=model)
        dialog.run_started.connect(self._run_started)
        dialog.run_stopped.connect(lambda _run_id: self._run_ended("The run was cancelled", "Start the same model "
                                                                   "again (Run model…) to resume where it stopped."))
        dialog.run_failed.connect(lambda reason: self._run_ended("The run failed", reason))
        dialog.run_finished.connect(self._run_finished)
        dialog.show()
        if autostart:
            dialog.start()
        return dialog

    def _run_finished(self, run_id: int) -> None:
        """A run is complete: with nothing under review it opens; else the run under review
        stays and the new one is offered in the status bar."""
        if self.bridge is None or self.project is None:
            return
        current = self.bridge.state.run_id
        if current is None or current == run_id:
            self.reload_runs(select=run_id)
            return
        from reviewer.app.runs import run_list

        self.runs = run_list(self.project)
        self._fill_runs()
        self.run_combo.setCurrentIndex(self.run_combo.findData(current))
        model = next((m for r, m, _, _ in self.runs if r == run_id), "")
        self._offered_run = run_id
        self.show_run_button.setText(f"Show run #{run_id}")
        self.show_run_button.setToolTip(f"Review the mistakes of the finished run #{run_id} {model} "
                                        "(also in the run list of the toolbar)")
        self.show_run_button.setVisible(True)
        self.show_message(f"Run #{run_id} {model} is complete; you are still reviewing run #{current}.")

    def _show_offered_run(self) -> None:
        run_id, self._offered_run = self._offered_run, None
        self.show_run_button.setVisible(False)
        if run_id is not None and any(r == run_id for r, *_ in self.runs):
            self.open_run(run_id)

    def _run_started(self, model: str) -> None:
        if self.bridge is not None and self.bridge.state.run_id is None:
            # Nothing to review yet: say that the first run is on its way, not "run a model".
            self.page.show_empty(f"Running {model}…", "Its mistakes appear here when the run is complete; "
                                 "the run dialog shows the progress.")

    def _run_ended(self, message: str, detail: str) -> None:
        if self.bridge is not None and self.bridge.state.run_id is None:
            self.page.show_empty(message, detail)
