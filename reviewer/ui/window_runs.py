"""The main window's runs: the toolbar's selector of the panel's scope and the project's
runs, the queue under review, the run dialog, and a finished run offered rather than
switched to.

A part of `QtMainWindow` (a mixin of it), kept apart because it is one
responsibility: which queue the review page shows (one run's mistakes, or the panel's
whole scope as one list: run id `reviewer.panel.scope.SCOPE_QUEUE`), and the runs started
from the window (`reviewer.app.runs` lists them; the run dialog runs `app.runs.run_model`).
What the scope takes in and what it leaves out is read off the UI thread
(`reviewer.app.scope.panel_scope`, `reviewer.app.panel_status.panel_status`) once the first
mistake is on screen, and again when a change record names runs, labels or the panel;
the selector's entries and the review page's lines about the scope follow. Its state
is `runs`, `scope_view`, `scope_status` and the offered run.
"""

from __future__ import annotations

from reviewer.app.preferences import save_preferences
from reviewer.terms import RunStatus


def read_scope(project):
    """On the window's worker: (the panel's scope with each run's counts, the panel's status:
    the items with history that no longer count)."""
    from reviewer.app.panel_status import panel_status
    from reviewer.app.scope import panel_scope

    return panel_scope(project), panel_status(project)


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
            self.run_combo.select(current)
        self.read_scope()  # each run's counts, and what the scope takes in, may have changed

    def _fill_runs(self) -> None:
        self.run_combo.set_runs(self.runs, self.scope_view)

    def _default_run(self) -> int | None:
        """The queue a project opens on: the panel's scope if the panelist had it open last
        (and a run is complete), else `reviewer.app.runs.default_run`."""
        from reviewer.app.runs import default_run
        from reviewer.panel.scope import SCOPE_QUEUE

        remembered = self.prefs.last_run.get(str(self.project.root))
        if remembered == SCOPE_QUEUE and any(status == RunStatus.COMPLETE for _, _, status, _ in self.runs):
            return SCOPE_QUEUE
        return default_run(self.runs, remembered)

    # -- the panel's scope --------------------------------------------------------------
    def read_scope(self) -> None:
        """Read the scope's counts off the UI thread (one read at a time; one more if asked meanwhile)."""
        if self.project is None:
            return
        if self._scope_reading:
            self._scope_stale = True
            return
        self._scope_reading, self._scope_stale = True, False
        project = self.project
        self.worker.submit(read_scope, project, on_done=lambda facts, p=project: self._scope_read(p, facts),
                           on_error=lambda e, p=project: self._scope_failed(p, e))

    def _scope_read(self, project, facts) -> None:
        self._scope_reading = False
        if project is self.project:
            self.scope_view, self.scope_status = facts
            self._fill_runs()
            self._show_scope()
            self.scope_read.emit()
        if self._scope_stale:
            self.read_scope()

    def _scope_failed(self, project, error: BaseException) -> None:
        self._scope_reading = False
        if project is self.project:
            self.show_message(f"The panel's scope could not be read: {error}", error=True)
        if self._scope_stale:
            self.read_scope()

    def _show_scope(self) -> None:
        """The review page's lines about the scope, for the queue it shows."""
        if self._page is not None and self.bridge is not None:
            self._page.set_scope(self.scope_view, self.scope_status)

    def _first_mistake_shown(self, _item) -> None:
        """The scope is read once the project's first mistake is on screen: not before, where it
        would share the interpreter and the database with the queue's own read."""
        if self._scope_waits:
            self._scope_waits = False
            self.read_scope()
            # The database's integrity check, which a write makes first, runs now rather than at the
            # panelist's first vote (the project opened with reads only: reviewer.app.panel.join_panel).
            project = self.project
            self.worker.submit(project.check_integrity, on_error=lambda e, p=project: self._check_failed(p, e))

    def _check_failed(self, project, error: BaseException) -> None:
        if project is self.project:
            self.show_message(str(error), error=True)

    def open_run(self, run_id: int | None, *, refresh: bool = False) -> None:
        if run_id is None or self.bridge is None:
            return
        self.status.run_opened(run_id)  # chosen in the toolbar's list: no longer an offer
        self.run_combo.select(run_id)
        self.prefs.last_run[str(self.project.root)] = run_id
        save_preferences(self.prefs)
        if self.reviewed is not None and self.stack.currentWidget() is self.reviewed:
            self.stack.setCurrentWidget(self.page)  # a run to review at last
        self.bridge.state.open_run(run_id, self.page.queue_panel.current_filter(), refresh=refresh)
        self._show_scope()
        self.run_opened.emit(run_id)

    def reload_runs(self, select: int | None = None) -> None:
        if self.project is None:
            return
        from reviewer.app.runs import run_list

        self.runs = run_list(self.project)
        self._fill_runs()
        self.open_run(select if select is not None else self._default_run(), refresh=True)
        self.read_scope()

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
        self.run_combo.select(current)
        self.read_scope()
        self.status.offer_run(run_id, model=self.run_combo.model_name(run_id), current=current)

    def _show_offered_run(self, run_id: int) -> None:
        if any(r == run_id for r, *_ in self.runs):
            self.open_run(run_id)

    def _run_started(self, model: str) -> None:
        if self.bridge is not None and self.bridge.state.run_id is None:
            # Nothing to review yet: say that the first run is on its way, not "run a model".
            self.page.show_empty(f"Running {model}…", "Its mistakes appear here when the run is complete; "
                                 "the run dialog shows the progress.")

    def _run_ended(self, message: str, detail: str) -> None:
        if self.bridge is not None and self.bridge.state.run_id is None:
            self.page.show_empty(message, detail)
