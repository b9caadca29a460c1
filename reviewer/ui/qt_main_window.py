"""The main window: the start screen, then the review page of a project.

Keys come from the keymap (user config dir) as window-wide QActions, so the
same action runs from a key, a menu or a button. Opening a project, loading
its runs and creating the panelist run on worker threads; closing the window
waits for the votes still being written.

Its parts, each one responsibility and a mixin of `QtMainWindow`: `window_menus`
(the toolbar, the menus and the keys), `window_runs` (the runs of the open project
and the run dialog), `window_projects` (the start screen, opening a project, the
demo, closing it), `window_panel_rules` (the chair's rules in force),
`window_export` (File > Export…) and `window_status` (the status strip). What
stays here: the window's widgets, its place on the screen, the view preferences,
the windows beside the review, and closing the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QPoint, QSize, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMainWindow, QMessageBox, QStackedWidget

from reviewer.app.keymap import ACTIONS, Keymap, load_keymap
from reviewer.app.preferences import Preferences, load_preferences, save_preferences
from reviewer.errors import UserError
from reviewer.panel.identity import default_name
from reviewer.ui.dialogs.qt_start_screen import QtStartScreen
from reviewer.ui.qt_status_strip import QtStatusStrip
from reviewer.ui.review.qt_help_overlay import QtHelpOverlay
from reviewer.ui.side_windows import SideWindows
from reviewer.ui.window_export import WindowExport
from reviewer.ui.window_menus import WindowMenus
from reviewer.ui.window_panel_rules import WindowPanelRules
from reviewer.ui.window_projects import WindowProjects
from reviewer.ui.window_runs import WindowRuns
from reviewer.ui.workers import Worker

# The first paint (the start screen, or "Opening …") needs none of the database, the review
# page or its domain modules (SQLAlchemy, numpy: about half a second): they load when a project
# opens, on the worker that opens it (tests/cli/test_startup.py checks it).
if TYPE_CHECKING:
    from reviewer.project import Project
    from reviewer.ui.review.qt_review_page import QtReviewPage
    from reviewer.ui.review.review_bridge import ReviewBridge
    from reviewer.ui.watcher import ProjectWatcher

PREFERRED_SIZE = QSize(1280, 800)
# Room left for the window manager's frame and title bar, unknown before the window is shown.
FRAME_ALLOWANCE = QSize(16, 48)


class QtMainWindow(WindowMenus, WindowRuns, WindowProjects, WindowPanelRules, WindowExport, QMainWindow):
    project_opened = Signal()
    reviewed_listed = Signal(int)  # a project without a run: its reviewed mistakes are listed (how many)
    run_opened = Signal(int)  # a run's id, or SCOPE_QUEUE (0): the panel's scope as one list
    scope_read = Signal()  # the panel's scope and its counts are read (the run selector and the page follow)
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
        self.bridge: ReviewBridge | None = None
        self.watcher: ProjectWatcher | None = None
        self.runs: list[tuple[int, str, str, int]] = []
        # The panel's scope (reviewer.app.scope.ScopeView) and status (app.panel_status), once read.
        self.scope_view = self.scope_status = None
        self._scope_reading = self._scope_stale = self._scope_waits = False
        self.worker = Worker(threads=1, name="window", parent=self)
        self.setWindowTitle("ImageNet mistake reviewer")
        self._place_window()

        self.start = QtStartScreen()
        self.start.set_name(self.prefs.panelist_name or default_name())
        self.start.set_recent(self.prefs.existing_recent())
        self.start.open_project.connect(self.open_project)
        # A refusal about the name typed before ("bob is not on this panel") no longer holds.
        self.start.name_changed.connect(lambda _name: self.status.clear_refusal())
        self.start.new_project.connect(self.new_project)
        self.start.open_demo.connect(self.open_demo)
        self._page: QtReviewPage | None = None  # built when first needed (`page`)
        self.reviewed = None  # the reviewed mistakes of a project without a run (qt_reviewed_list), when shown
        self.stack = QStackedWidget()
        self.stack.addWidget(self.start)
        self.setCentralWidget(self.stack)
        self.help = QtHelpOverlay(self.keymap, self.stack)
        self.help.edit_keys.connect(self.edit_keys)
        self.help.closed.connect(lambda: self._page is not None and self._page.setFocus())
        self._build_toolbar()
        self.actions_by_name: dict[str, QAction] = {}
        self._build_actions()
        self.status = QtStatusStrip()
        self.setStatusBar(self.status)
        self.status.offered_run_chosen.connect(self._show_offered_run)
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
            page.voted.connect(self.status.clear_note)
            page.mistake_shown.connect(self._first_mistake_shown)  # the scope's counts are read then
            self.stack.addWidget(page)
            self.keys_indicator.watch(page)
            self.help.raise_()  # the overlay stays above the page
            self._page = page
        return self._page

    def _place_window(self) -> None:
        """Where it was left (preferences), else the preferred size shrunk to the screen's
        available area and centred: on a 1280x720 screen the status bar stays on screen."""
        saved = self.prefs.window_geometry
        screen = self.screen() or QGuiApplication.primaryScreen()
        if saved and self.restoreGeometry(QByteArray.fromBase64(saved.encode("ascii"))):
            if screen is not None:  # saved on a larger screen (or grown past this one): shrunk to fit it
                room = screen.availableGeometry().size() - FRAME_ALLOWANCE
                if self.width() > room.width() or self.height() > room.height():
                    self.resize(self.size().boundedTo(room))
            return
        if screen is None:
            self.resize(PREFERRED_SIZE)
            return
        available = screen.availableGeometry()
        size = PREFERRED_SIZE.boundedTo(available.size() - FRAME_ALLOWANCE)
        self.resize(size)
        self.move(available.center() - QPoint(size.width() // 2, size.height() // 2))

    # -- the view preferences (the View menu, the toolbar's blind switch) ---------------------
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
        if self.bridge is not None:
            self.bridge.state.set_blind(blind)

    # -- the windows beside the review (reviewer.ui.side_windows) ---------------------------
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

    # -- the status strip's widgets, by the names the window's users know them ------------------
    def show_message(self, text: str, error: bool = False) -> None:
        self.status.show_message(text, error)

    @property
    def status_text(self):
        return self.status.text

    @property
    def undo_label(self):
        return self.status.undo_label

    @property
    def keys_indicator(self):
        return self.status.keys_indicator

    @property
    def show_run_button(self):
        return self.status.show_run_button

    @property
    def _group_view(self):
        return self.side.get("group")

    @property
    def _analysis_view(self):
        return self.side.get("analysis")

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

