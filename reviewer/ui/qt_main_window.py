"""The main window: the start screen, then the review page of a project.

Keys come from the keymap (user config dir) as window-wide QActions, so the
same action runs from a key, a menu or a button (`window_menus`); the toolbar's
runs and the run dialog are `window_runs`'. Opening a project, loading
its runs and creating the panelist run on worker threads; closing the window
waits for the votes still being written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QPushButton, QStackedWidget

from reviewer.app.keymap import ACTIONS, Keymap, load_keymap
from reviewer.app.preferences import Preferences, load_preferences, save_preferences
from reviewer.errors import UserError
from reviewer.panel.identity import default_name
from reviewer.redact import scrub
from reviewer.ui.app import settle_heap
from reviewer.ui.dialogs.qt_start_screen import QtStartScreen
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.review.qt_help_overlay import QtHelpOverlay
from reviewer.ui.side_windows import SideWindows
from reviewer.ui.theme import ERROR, MUTED, set_text_colour
from reviewer.ui.window_menus import WindowMenus
from reviewer.ui.window_runs import WindowRuns
from reviewer.ui.workers import Worker

# The first paint (the start screen, or "Opening …") needs none of the database, the review
# page or its domain modules (SQLAlchemy, numpy: about half a second): they load when a project
# opens, on the worker that opens it (tests/cli/test_startup.py checks it).
if TYPE_CHECKING:
    from reviewer.project import Project
    from reviewer.ui.review.qt_review_page import QtReviewPage
    from reviewer.ui.review.review_session import ReviewSession
    from reviewer.ui.watcher import ProjectWatcher

PREFERRED_SIZE = QSize(1280, 800)
# Room left for the window manager's frame and title bar, unknown before the window is shown.
FRAME_ALLOWANCE = QSize(16, 48)


def _open(root: str, panelist_name: str, join: bool = False):
    """The open act (`reviewer.app.project.open_project`) on the worker: its modules (the
    database, the panel) load there, not before the first paint."""
    from reviewer.app.project import open_project

    return open_project(root, panelist_name, join=join).value


def _prepare_demo():
    """The demo project made if need be (`reviewer.app.demo.prepare_demo`), on the worker."""
    from reviewer.app.demo import prepare_demo

    return prepare_demo()


class QtMainWindow(WindowMenus, WindowRuns, QMainWindow):
    project_opened = Signal()
    reviewed_listed = Signal(int)  # a project without a run: its reviewed mistakes are listed (how many)
    run_opened = Signal(int)
    exported = Signal(str)  # the export folder written
    export_failed = Signal(str)  # the reason, also shown in the status bar

    def __init__(self, *, preferences: Preferences | None = None, keymap: Keymap | None = None):
        super().__init__()
        self.side = SideWindows(self, lambda: self.keymap)  # the group view and the analysis
        self.prefs = preferences or load_preferences()
        self.one_off_panelist: str | None = None  # `reviewer gui --reviewer NAME`: used, not remembered
        self.panel_rules = None
        try:
            self.keymap = keymap or load_keymap()
        except UserError as exc:
            self.keymap = Keymap(bindings={a.name: a.keys for a in ACTIONS})
            problem = f"{exc}; the default keys are in use"
            QTimer.singleShot(0, lambda: self.show_message(problem, error=True))
        self.project: Project | None = None
        self.panelist = None
        self.session: ReviewSession | None = None
        self.watcher: ProjectWatcher | None = None
        self.runs: list[tuple[int, str, str, int]] = []
        self.worker = Worker(threads=1, name="window", parent=self)
        self.setWindowTitle("ImageNet mistake reviewer")
        self._place_window()

        self.start = QtStartScreen()
        self.start.set_name(self.prefs.panelist_name or default_name())
        self.start.set_recent(self.prefs.existing_recent())
        self.start.open_project.connect(self.open_project)
        self.start.new_project.connect(self.new_project)
        self.start.open_demo.connect(self.open_demo)
        self._page: QtReviewPage | None = None  # built when first needed (`page`)
        self.reviewed = None  # the reviewed mistakes of a project without a run (qt_reviewed_list), when shown
        self._message_is_error = False
        self.stack = QStackedWidget()
        self.stack.addWidget(self.start)
        self.setCentralWidget(self.stack)
        self.help = QtHelpOverlay(self.keymap, self.stack)
        self.help.edit_keys.connect(self.edit_keys)
        self.help.closed.connect(lambda: self._page is not None and self._page.setFocus())
        self._build_toolbar()
        self.actions_by_name: dict[str, QAction] = {}
        self._build_actions()
        self.status_text = text_label()
        self.undo_label = text_label()
        self.statusBar().addWidget(self.status_text, 1)
        self.statusBar().addPermanentWidget(self.undo_label)
        self._message_timer = QTimer(self, singleShot=True, interval=8000, timeout=self.status_text.clear)
        # A finished run is offered, not switched to: the panelist may be in the middle of another.
        self.show_run_button = QPushButton()
        self.show_run_button.setVisible(False)
        self.show_run_button.clicked.connect(self._show_offered_run)
        self.statusBar().addPermanentWidget(self.show_run_button)
        self._offered_run: int | None = None
        self.export_summary: QMessageBox | None = None

    @property
    def page(self) -> QtReviewPage:
        """The review page, built on first use: a project opening, or a caller asking for it."""
        if self._page is None:
            from reviewer.ui.review.qt_review_page import QtReviewPage

            page = QtReviewPage(self.keymap, auto_advance=self.prefs.auto_advance)
            page.image.enlarge_small = self.prefs.enlarge_small_images
            page.evidence_before_vote = self.prefs.evidence_before_vote
            page.status_message.connect(self.show_message)
            # A vote is a new act: a word about the one before it ("Undone: …") no longer applies.
            # (An error stays until its time is up: it may be about a vote not recorded.)
            page.voted.connect(self._clear_message_after_vote)
            self.stack.addWidget(page)
            self.help.raise_()  # the overlay stays above the page
            self._page = page
        return self._page

    def _place_window(self) -> None:
        """Where it was left (preferences), else the preferred size shrunk to the screen's
        available area and centred: on a 1280x720 screen the status bar stays on screen."""
        saved = self.prefs.window_geometry
        if saved and self.restoreGeometry(QByteArray.fromBase64(saved.encode("ascii"))):
            return
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            self.resize(PREFERRED_SIZE)
            return
        available = screen.availableGeometry()
        size = PREFERRED_SIZE.boundedTo(available.size() - FRAME_ALLOWANCE)
        self.resize(size)
        self.move(available.center() - QPoint(size.width() // 2, size.height() // 2))

    def _clear_message_after_vote(self) -> None:
        """A vote ends a note in the status bar (an error stays until read). Only a shown one is
        cleared: clearing an empty label still lays the status bar, and with it the window, out
        again, at every key."""
        if not self._message_is_error and self.status_text.text():
            self.status_text.clear()

    def show_message(self, text: str, error: bool = False) -> None:
        self._message_is_error = error
        colour = ERROR if error else MUTED
        set_text_colour(self.status_text, colour)
        self.status_text.setText(scrub(text))  # a database password never shows (reviewer.redact)
        self._message_timer.start()

    def set_enlarge_small(self, enlarge: bool) -> None:
        self.prefs.enlarge_small_images = enlarge
        save_preferences(self.prefs)
        if self._page is not None:
            self._page.image.set_enlarge_small(enlarge)

    def set_evidence_before_vote(self, shown: bool) -> None:
        self.prefs.evidence_before_vote = shown
        save_preferences(self.prefs)
        if self._page is not None:
            self._page.set_evidence_before_vote(shown)

    def set_blind(self, blind: bool) -> None:
        self.prefs.blind = blind
        save_preferences(self.prefs)
        if self.session is not None:
            self.session.state.set_blind(blind)

    # -- projects ----------------------------------------------------------------
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
        from reviewer.ui.review.review_session import ReviewSession
        from reviewer.ui.watcher import ProjectWatcher

        project, panelist, runs = result.project, result.panelist, result.runs  # app.project.OpenedProject
        identity, roles, rules = result.identity, result.database_roles, result.rules
        self.close_project()
        self.project, self.panelist, self.runs = project, panelist, runs
        self.status_text.clear()
        self.start.show_error("")
        if panelist.name != self.one_off_panelist:  # a one-off --panelist is not remembered
            self.prefs.panelist_name = panelist.name
        self.prefs.add_recent(project.root)
        self._apply_rules(rules)
        save_preferences(self.prefs)
        # One refresh path for every view of the project (reviewer.ui.watcher).
        self.watcher = ProjectWatcher(project, self)
        self.watcher.changed.connect(self._project_changed)
        self.session = ReviewSession(project, panelist, blind=self.prefs.blind, watcher=self.watcher, parent=self)
        self.session.undo_changed.connect(self._undo_changed)
        self.session.queue_loaded.connect(settle_heap)  # the project's long-lived objects, out of the collector's way
        self.page.set_session(self.session)
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
        if project is not self.project or not listed.rows or self.session is None or self.session.state.run_id:
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

    def _apply_rules(self, rules) -> None:
        """The panel's rules in force (reviewer.panel.rules), as the window shows them."""
        self.panel_rules = rules
        # The chair's blind rule holds for everyone: the window's own switch cannot show more.
        self.blind_box.setEnabled(not rules.blind)
        self.blind_box.blockSignals(True)  # shown as in force; the panelist's own preference is kept
        self.blind_box.setChecked(rules.blind or self.prefs.blind)
        self.blind_box.blockSignals(False)
        self.blind_box.setToolTip(plain_tip("The chair made this panel blind: others' votes show once you voted, or "
                                            "once the item is decided" if rules.blind else
                                            "Others' votes stay hidden on a mistake until you have voted on it"))
        self._enable_rules()

    def _enable_rules(self) -> None:
        """Panel > Rules… is the chair's; anyone else sees why it is greyed out."""
        chair = self.project is not None and self.panelist is not None and bool(self.panelist.is_chair)
        self.rules_action.setEnabled(chair)
        if self.project is None:
            why = "Open a project first: the rules are the project's"
        elif chair:
            why = "Blind review, a unanimous panel deciding, a closed panel: the rules every panelist works under"
        else:
            why = (f"Only the chair sets the panel's rules; you review as {self.panelist.name}. In force: "
                   f"{self.panel_rules.describe()}" if self.panel_rules else "Only the chair sets the panel's rules")
        self.rules_action.setToolTip(why)

    def edit_panel_rules(self) -> None:
        """The chair's rules in a dialog, saved through the act `reviewer panel-rules` runs."""
        if self.project is None or self.panel_rules is None or not self.rules_action.isEnabled():
            return
        from reviewer.app.panel import set_panel_rules
        from reviewer.ui.dialogs.qt_panel_rules import QtPanelRulesDialog

        dialog = QtPanelRulesDialog(self.panel_rules, self)
        if not dialog.exec() or not dialog.changes():
            return
        project = self.project
        self.worker.submit(set_panel_rules, project, chair_id=self.panelist.id, **dialog.changes(),
                           on_done=lambda done, p=project: self._rules_saved(p, done),
                           on_error=lambda e: self.show_message(f"The rules were not changed: {e}", error=True))

    def _rules_saved(self, project: Project, done) -> None:
        if project is not self.project:
            return
        self._apply_rules(done.value)
        rules = done.value
        self.show_message("Panel rules saved: " + ", ".join((
            "blind review for everyone" if rules.blind else "blind review each panelist's choice",
            "a unanimous panel decides" if rules.unanimous_final else "the chair locks unanimous items too",
            "the panel is closed" if rules.panel_closed else "new names may ask to join")))
        if self.watcher is not None:
            self.watcher.publish(done.changes)  # the queue, the group view and the counts follow

    def _project_changed(self, changes) -> None:
        """A change record (this window's act or anyone's): the runs list and the windows
        beside the review follow (the review page follows through its session)."""
        if changes.runs and self.project is not None:
            from reviewer.app.runs import run_list

            self.worker.submit(run_list, self.project, on_done=self._runs_listed)
        analysis = self.side.get("analysis")
        if analysis is not None and (changes.votes or changes.decisions or changes.runs or changes.labels):
            analysis.refresh()

    def _undo_changed(self, available: bool) -> None:
        keys = self.keymap.keys("undo")
        self.undo_label.setText(f"Undo: {keys[0] if keys else 'Review menu'}" if available else "")

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

    def open_group_view(self):
        if self.project is None:
            self.show_message("Open a project first.", error=True)
            return None
        from reviewer.ui.group.qt_group_view import QtGroupView

        def make():
            view = QtGroupView(self.project, self.panelist, self.keymap, watcher=self.watcher)
            view.image.enlarge_small = self.prefs.enlarge_small_images
            return view

        return self.side.show("group", make, size=(1500, 940))

    def open_analysis_view(self):
        """The report's tables and plots for the open project, in a window of its own
        (like the group view) so the review page stays as it is."""
        if self.project is None:
            self.show_message("Open a project first.", error=True)
            return None
        from reviewer.ui.dialogs.qt_analysis import QtAnalysisView

        def make():
            view = QtAnalysisView(self.project)
            view.setWindowTitle(f"Analysis · {self.project.name}")
            return view

        return self.side.show("analysis", make, size=(1200, 860), closing_keys=True)

    @property
    def _group_view(self):
        return self.side.get("group")

    @property
    def _analysis_view(self):
        return self.side.get("analysis")

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
        from reviewer.export import export_summary

        result = done.value
        self.export_action.setEnabled(True)
        count = len(result.data_files())
        self.show_message(f"Exported {count} data file{'' if count == 1 else 's'} and the manifest to {result.path}")
        # What was written, and what was not (items with votes but no decision), where it can be read.
        summary = export_summary(result)
        box = QMessageBox(QMessageBox.Icon.Information, "Export written", summary.headline,
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

    def close_project(self) -> None:
        self.side.close_all()
        if self.reviewed is not None:
            self.reviewed.clear()
        if self.session is not None:
            self.page.set_session(None)
            self.session.close()
            self.session.deleteLater()
            self.session = None
        if getattr(self, "watcher", None) is not None:
            self.watcher.stop()
            self.watcher.deleteLater()
            self.watcher = None
        if self.project is not None:
            self.project.close()
            self.project = None
            self._enable_rules()

    def closeEvent(self, event) -> None:  # noqa: N802
        from reviewer.ui.dialogs.qt_run_dialog import QtRunDialog

        for dialog in self.findChildren(QtRunDialog):
            dialog.close()  # a running model stops after its batch, resumable
        # Votes still being written are finished before the window goes.
        self.close_project()
        if self._page is not None:
            self._page.shutdown()
        if self.reviewed is not None:
            self.reviewed.shutdown()
        self.worker.shutdown()
        name = self.start.panelist_name()
        if name and name != self.one_off_panelist:
            self.prefs.panelist_name = name
        self.prefs.window_geometry = bytes(self.saveGeometry().toBase64()).decode("ascii")
        save_preferences(self.prefs)
        super().closeEvent(event)

