"""The runs of the open project as the window offers them: the toolbar's selector of the
panel's scope and the project's runs, the queue chosen for review, the run dialog, and a
finished run offered rather than switched to.

A part of the main window that owns which queue is chosen (one run's mistakes, or the panel's
whole scope as one list: run id `reviewer.panel.scope.SCOPE_QUEUE`) and the scope's counts. It
follows the `ProjectHolder` itself: its runs, and its change records naming runs, labels or the
panel. What the scope takes in and leaves out is read off the UI thread
(`reviewer.app.scope.panel_scope`, `reviewer.app.panel_status.panel_status`) once the first
mistake is on screen, and again on such a change. The window shows what it says: `queue_chosen`
(the review page opens that queue), `scope_read`, `run_offered`, `nothing_to_review`, `message`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from reviewer.app.preferences import Preferences, save_preferences
from reviewer.terms import RunStatus

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from reviewer.ui.project_holder import ProjectHolder
    from reviewer.ui.qt_run_selector import QtRunSelector
    from reviewer.ui.workers import Worker


def read_scope(project):
    """On the window's worker: (the panel's scope with each run's counts, the panel's status:
    the items with history that no longer count)."""
    from reviewer.app.panel_status import panel_status
    from reviewer.app.scope import panel_scope

    return panel_scope(project), panel_status(project)


class ProjectRuns(QObject):
    """The runs of the holder's project: listed in `selector`, one opened, new ones started."""

    queue_chosen = Signal(int, bool)  # a run's id (or SCOPE_QUEUE) to review; refresh: read it again
    scope_read = Signal()  # `scope_view` and `scope_status` are read
    run_offered = Signal(int, str, int)  # a finished run, its model, the run still under review
    nothing_to_review = Signal(str, str)  # no run under review yet: what the page says (title, detail)
    message = Signal(str, bool)  # text, is an error

    def __init__(self, holder: ProjectHolder, worker: Worker, selector: QtRunSelector, prefs: Preferences, *,
                 dialog_parent: QWidget) -> None:
        super().__init__(holder)
        self._holder, self._worker, self._selector, self._prefs = holder, worker, selector, prefs
        self._dialog_parent = dialog_parent
        # The panel's scope (reviewer.app.scope.ScopeView) and status (app.panel_status), once read.
        self.scope_view = self.scope_status = None
        self._reading = self._stale = False
        self._waits_for_first_mistake = False
        selector.run_chosen.connect(self.open_run)
        holder.opened.connect(self._project_opened)
        holder.runs_changed.connect(self._fill)
        holder.changed.connect(self._project_changed)

    @property
    def _current(self) -> int | None:
        """The run under review (None: none yet)."""
        return self._holder.bridge.state.run_id

    def _project_opened(self) -> None:
        self.scope_view = self.scope_status = None
        self._waits_for_first_mistake = True  # read once the first mistake is on screen
        self._fill()

    def _fill(self) -> None:
        self._selector.set_runs(self._holder.runs, self.scope_view)

    def default_run(self) -> int | None:
        """The queue a project opens on: the panel's scope if the panelist had it open last
        (and a run is complete), else `reviewer.app.runs.default_run`."""
        from reviewer.app.runs import default_run
        from reviewer.panel.scope import SCOPE_QUEUE

        runs = self._holder.runs
        remembered = self._prefs.last_run.get(str(self._holder.project.root))
        if remembered == SCOPE_QUEUE and any(status == RunStatus.COMPLETE for _, _, status, _ in runs):
            return SCOPE_QUEUE
        return default_run(runs, remembered)

    def _project_changed(self, changes) -> None:
        """A change record (this window's act or anyone's): the runs, or the scope's counts."""
        if self._holder.project is None:
            return
        if changes.runs:
            from reviewer.app.runs import run_list

            self._worker.submit(run_list, self._holder.project, on_done=self._runs_listed)  # the scope is read after
        elif changes.panel or changes.labels:
            self.read_scope()  # the scope, or what the labels make a mistake, changed

    def _runs_listed(self, runs) -> None:
        """The runs as they are now: new ones appear in the list; the open run stays open
        (or the first run opens, when there was none to review)."""
        if self._holder.bridge is None:
            return
        current = self._current
        self._holder.set_runs(runs)
        if current is None:
            self.open_run(self.default_run())
        else:
            self._selector.select(current)
        self.read_scope()  # each run's counts, and what the scope takes in, may have changed

    # -- the panel's scope --------------------------------------------------------------
    def read_scope(self) -> None:
        """Read the scope's counts off the UI thread (one read at a time; one more if asked meanwhile)."""
        project = self._holder.project
        if project is None:
            return
        if self._reading:
            self._stale = True
            return
        self._reading, self._stale = True, False
        self._worker.submit(read_scope, project, on_done=lambda facts, p=project: self._scope_read(p, facts),
                            on_error=lambda e, p=project: self._scope_failed(p, e))

    def _scope_read(self, project, facts) -> None:
        self._reading = False
        if project is self._holder.project:
            self.scope_view, self.scope_status = facts
            self._fill()
            self.scope_read.emit()
        if self._stale:
            self.read_scope()

    def _scope_failed(self, project, error: BaseException) -> None:
        self._reading = False
        if project is self._holder.project:
            self.message.emit(f"The panel's scope could not be read: {error}", True)
        if self._stale:
            self.read_scope()

    def first_mistake_shown(self, _item=None) -> None:
        """The scope is read once the project's first mistake is on screen: not before, where it
        would share the interpreter and the database with the queue's own read."""
        if self._waits_for_first_mistake:
            self._waits_for_first_mistake = False
            self.read_scope()
            # The database's integrity check, which a write makes first, runs now rather than at the
            # panelist's first vote (the project opened with reads only: reviewer.app.panel.join_panel).
            project = self._holder.project
            self._worker.submit(project.check_integrity, on_error=lambda e, p=project: self._check_failed(p, e))

    def _check_failed(self, project, error: BaseException) -> None:
        if project is self._holder.project:
            self.message.emit(str(error), True)

    # -- the queue under review ---------------------------------------------------------
    def open_run(self, run_id: int | None, *, refresh: bool = False) -> None:
        if run_id is None or self._holder.bridge is None:
            return
        self._selector.select(run_id)
        self._prefs.last_run[str(self._holder.project.root)] = run_id
        save_preferences(self._prefs)
        self.queue_chosen.emit(run_id, refresh)

    def open_offered_run(self, run_id: int) -> None:
        """The finished run offered in the status strip, taken up (if it is still listed)."""
        if any(r == run_id for r, *_ in self._holder.runs):
            self.open_run(run_id)

    def reload_runs(self, select: int | None = None) -> None:
        if self._holder.project is None:
            return
        from reviewer.app.runs import run_list

        self._holder.set_runs(run_list(self._holder.project))
        self.open_run(select if select is not None else self.default_run(), refresh=True)
        self.read_scope()

    # -- the run dialog -------------------------------------------------------------------
    def open_run_dialog(self, *, model: str | None = None, autostart: bool = False):
        if self._holder.project is None:
            self.message.emit("Open a project first.", True)
            return None
        from reviewer.ui.dialogs.qt_run_dialog import QtRunDialog

        dialog = QtRunDialog(self._holder.project, self._dialog_parent, model=model)
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
        stays and the new one is offered (`run_offered`)."""
        if self._holder.bridge is None or self._holder.project is None:
            return
        current = self._current
        if current is None or current == run_id:
            self.reload_runs(select=run_id)
            return
        from reviewer.app.runs import run_list

        self._holder.set_runs(run_list(self._holder.project))
        self._selector.select(current)
        self.read_scope()
        self.run_offered.emit(run_id, self._selector.model_name(run_id), current)

    def _run_started(self, model: str) -> None:
        if self._holder.bridge is not None and self._current is None:
            # Nothing to review yet: say that the first run is on its way, not "run a model".
            self.nothing_to_review.emit(f"Running {model}…", "Its mistakes appear here when the run is complete; "
                                        "the run dialog shows the progress.")

    def _run_ended(self, message: str, detail: str) -> None:
        if self._holder.bridge is not None and self._current is None:
            self.nothing_to_review.emit(message, detail)
