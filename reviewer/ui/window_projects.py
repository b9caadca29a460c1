"""The main window's projects: the start screen, opening a project (a new one, the demo,
a recent one) on a worker, what the window shows once it is open, and closing it.

A part of `QtMainWindow` (a mixin of it), kept apart because it is one
responsibility: which project the window holds, from the panelist's name on the
start screen to the project's review bridge, watcher and runs, and back. It uses the
window's `start`, `stack`, `page`, `help`, `worker`, `prefs`, toolbar labels and
the other parts' acts (`show_message`, `open_run`, `_apply_rules`, ...); its state
is `project`, `panelist`, `bridge`, `watcher`, `runs` and `reviewed`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from reviewer.app.preferences import save_preferences
from reviewer.errors import UserError
from reviewer.panel.identity import default_name
from reviewer.redact import scrub
from reviewer.ui.app import settle_heap
from reviewer.ui.plain import plain_tip

# As in qt_main_window: the database and the review page load on the worker that opens a project.
if TYPE_CHECKING:
    from reviewer.project import Project


def _open(root: str, panelist_name: str, join: bool = False):
    """The open act (`reviewer.app.project.open_project`) on the worker: its modules (the
    database, the panel) load there, not before the first paint."""
    from reviewer.app.project import open_project

    return open_project(root, panelist_name, join=join).value


def _prepare_demo():
    """The demo project made if need be (`reviewer.app.demo.prepare_demo`), on the worker."""
    from reviewer.app.demo import prepare_demo

    return prepare_demo()


class WindowProjects:
    """The project `QtMainWindow` holds: opened from the start screen, shown, closed."""

    def show_start(self) -> None:
        self.start.set_recent(self.prefs.existing_recent())
        self.stack.setCurrentWidget(self.start)
        self.toolbar.setVisible(False)

    def _panelist_name(self) -> str | None:
        name = self.start.panelist_name() or self.prefs.panelist_name
        if not name:
            self.show_start()
            self.show_message("Enter your name first: every vote is recorded under it.", error=True)
            self.start.name.setFocus()
            return None
        return name

    def open_project(self, root: str, *, join: bool = False) -> None:
        name = self._panelist_name()
        if name is None:
            # Offer the asked-for project first, so Enter opens it once the name is typed.
            self.start.set_recent([root] + [p for p in self.prefs.existing_recent() if p != root])
            return
        self.show_message(f"Opening {root}…")
        self.worker.submit(_open, root, name, join, on_done=self._project_opened,
                           on_error=lambda e, r=root: self._open_failed(e, r))

    def confirm_join(self, question: str) -> bool:
        """Ask before a new name joins the panel (reviewer.panel.membership)."""
        answer = QMessageBox.question(self, "Join the panel?", question,
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def _open_failed(self, error: BaseException, root: str | None = None) -> None:
        from reviewer.panel.membership import NotOnPanel

        if isinstance(error, NotOnPanel) and error.can_join and root is not None:
            if self.confirm_join(str(error)):
                self.open_project(root, join=True)
                return
            error = NotOnPanel(f"{error.name} did not join the panel: type your name as the panel knows it",
                               name=error.name, can_join=False)
        self.show_start()
        text = scrub(str(error) if isinstance(error, UserError) else f"Cannot open: {error}")
        self.show_message(text, error=True)
        self.start.show_error(text)  # whole, where a one-line status bar cuts it off

    def _project_opened(self, result) -> None:
        from reviewer.app.runs import no_run_words
        from reviewer.ui.review.review_bridge import ReviewBridge
        from reviewer.ui.watcher import ProjectWatcher

        project, panelist, runs = result.project, result.panelist, result.runs  # app.project.OpenedProject
        identity, roles, rules = result.identity, result.database_roles, result.rules
        self.close_project()
        self.project, self.panelist, self.runs = project, panelist, runs
        self.scope_view = self.scope_status = None
        self.status.clear_message()
        self.start.show_error("")
        if panelist.name != self.one_off_panelist:  # a one-off --panelist is not remembered
            self.prefs.panelist_name = panelist.name
        self.prefs.add_recent(project.root)
        self._apply_rules(rules)
        save_preferences(self.prefs)
        # One refresh path for every view of the project (reviewer.ui.watcher).
        self.watcher = ProjectWatcher(project, self)
        self.watcher.changed.connect(self._project_changed)
        self.bridge = ReviewBridge(project, panelist, blind=self.prefs.blind, watcher=self.watcher, parent=self)
        self.bridge.undo_changed.connect(lambda available: self.status.show_undo(available, self.keymap.keys("undo")))
        self.bridge.queue_loaded.connect(settle_heap)  # the project's long-lived objects, out of the collector's way
        self.page.set_bridge(self.bridge)
        self._scope_waits = True  # read once the first mistake is on screen (window_runs)
        self.setWindowTitle(f"{project.name} · ImageNet mistake reviewer")
        self.project_label.setText(project.name)
        # Who the database says acts, and how far it vouches for it (reviewer.panel.identity).
        self.panelist_label.setText(f"Reviewing as {panelist.name}" + (" (database role)" if roles else ""))
        self.panelist_label.setToolTip(plain_tip(identity[0].upper() + identity[1:] + "."))
        self.stack.setCurrentWidget(self.page)
        self.toolbar.setVisible(True)
        self.page.setFocus()
        self._fill_runs()
        run_id = self._default_run()
        if run_id is None:
            # What the project holds and what to do: a project of label files has no image files to run on.
            self.page.show_empty(*no_run_words(self.project, run_keys=" or ".join(self.keymap.keys("run_model")),
                                               analysis_keys=" or ".join(self.keymap.keys("analysis_view"))))
            # Its published reviews' mistakes are listed instead, when it has any.
            from reviewer.app.reviewed import reviewed_list

            self.worker.submit(reviewed_list, project, on_done=lambda listed, p=project: self._show_reviewed(p, listed))
        else:
            self.open_run(run_id)
        self.project_opened.emit()  # last: the demo then starts its run over the "no run" page

    def _show_reviewed(self, project: Project, listed) -> None:
        """A project without a run: its reviewed mistakes, read-only, in place of the empty
        review page (which still says what to do when there are none)."""
        if project is not self.project or not listed.rows or self.bridge is None \
                or self.bridge.state.run_id is not None:
            return
        if self.reviewed is None:
            from reviewer.ui.review.qt_reviewed_list import QtReviewedList

            self.reviewed = QtReviewedList()
            self.stack.addWidget(self.reviewed)
            self.help.raise_()
        self.reviewed.show_list(project, listed, viewer=self.panelist.name,
                                note=listed.what_to_do(run_keys=" or ".join(self.keymap.keys("run_model"))))
        if self.stack.currentWidget() is self.page:
            self.stack.setCurrentWidget(self.reviewed)
        self.reviewed_listed.emit(len(listed.rows))

    def _project_changed(self, changes) -> None:
        """A change record (this window's act or anyone's): the runs list and the windows
        beside the review follow (the review page follows through its bridge)."""
        if changes.runs and self.project is not None:
            from reviewer.app.runs import run_list

            self.worker.submit(run_list, self.project, on_done=self._runs_listed)  # the scope is read after
        elif (changes.panel or changes.labels) and self.project is not None:
            self.read_scope()  # the scope, or what the labels make a mistake, changed
        if changes.panel and self.project is not None:
            self.read_rules()  # the chair may have changed them, here or elsewhere
        analysis = self.side.get("analysis")
        if analysis is not None and (changes.votes or changes.decisions or changes.runs or changes.labels):
            analysis.refresh()

    def new_project(self) -> None:
        if self._panelist_name() is None:
            return
        from reviewer.ui.dialogs.qt_new_project_dialog import QtNewProjectDialog

        dialog = QtNewProjectDialog(self)
        if dialog.exec() and dialog.created_root:
            self.open_project(dialog.created_root)

    def open_demo(self) -> None:
        """The bundled demo, made on first use (a worker); a first-time panelist reviews under
        the system user name. Opened without a run, the bundled model runs over it with the
        run dialog's progress bar, and the first mistake has the keys when it is done."""
        if not (self.start.panelist_name() or self.prefs.panelist_name):
            self.start.set_name(default_name() or "panelist")
        self.show_message("Preparing the demo project…")
        self.worker.submit(_prepare_demo, on_done=self._demo_prepared,
                           on_error=lambda e: self.show_message(f"The demo could not be prepared: {e}", error=True))

    def _demo_prepared(self, prepared) -> None:
        root, has_run = prepared
        if not has_run:
            self.project_opened.connect(self._run_demo_model)
        self.open_project(str(root))

    def _run_demo_model(self) -> None:
        from reviewer.app.demo import DEMO_MODEL

        self.project_opened.disconnect(self._run_demo_model)
        dialog = self.open_run_dialog(model=DEMO_MODEL, autostart=True)
        if dialog is not None:
            dialog.setWindowTitle("Running the bundled EfficientNet-Lite0 over the demo images")
            dialog.run_finished.connect(lambda _run_id: self._demo_ran(dialog))

    def _demo_ran(self, dialog) -> None:
        """The run dialog closes and the review page gets the keys back (the dialog had the
        focus), so the first mistake can be voted on at once."""
        dialog.close()
        self.activateWindow()
        self.page.setFocus()

    def close_project(self) -> None:
        self.side.close_all()
        if self.reviewed is not None:
            self.reviewed.clear()
        if self.bridge is not None:
            self.page.set_bridge(None)
            self.bridge.close()
            self.bridge.deleteLater()
            self.bridge = None
        if getattr(self, "watcher", None) is not None:
            self.watcher.stop()
            self.watcher.deleteLater()
            self.watcher = None
        if self.project is not None:
            self.project.close()
            self.project = None
            self._enable_rules()
