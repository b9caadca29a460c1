"""The main window: the start screen, then the review page of a project.

Keys come from the keymap (user config dir) as window-wide QActions, so the
same action runs from a key, a menu or a button. Opening a project, loading
its runs and creating the panelist run on worker threads; closing the window
waits for the votes still being written.

A tree of parts, each taking what it needs in its constructor, owning its state and
following the open project itself; `_connect_signals` wires them in one place:
`project_holder.ProjectHolder` (the open project, its panelist, runs, change records and
review bridge), `project_opener.ProjectOpener` (from the start screen to an open project,
the demo), `project_runs.ProjectRuns` (the queue under review, the scope's counts, the run
dialog), `rules_in_force.RulesInForce` (the chair's rules, the Blind switch, Panel > Rules…),
`main_menus.MainMenus` (the menus and the keys), `project_export.ProjectExport` (File >
Export…) and `qt_status_strip.QtStatusStrip`. What stays here: the window's widgets,
its place on the screen, the view preferences, what the window shows of an open project,
the windows beside the review, and closing the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QPoint, QSize, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QMessageBox, QStackedWidget

from reviewer.app.keymap import ACTIONS, Keymap, load_keymap
from reviewer.app.preferences import Preferences, load_preferences, save_preferences
from reviewer.errors import UserError
from reviewer.panel.identity import default_name
from reviewer.ui.dialogs.qt_start_screen import QtStartScreen
from reviewer.ui.main_menus import MainMenus
from reviewer.ui.plain import plain_tip
from reviewer.ui.project_export import ProjectExport
from reviewer.ui.project_holder import ProjectHolder
from reviewer.ui.project_opener import ProjectOpener
from reviewer.ui.project_runs import ProjectRuns
from reviewer.ui.qt_status_strip import QtStatusStrip
from reviewer.ui.review.qt_help_overlay import QtHelpOverlay
from reviewer.ui.review.qt_review_toolbar import QtReviewToolbar
from reviewer.ui.rules_in_force import RulesInForce
from reviewer.ui.side_windows import SideWindows
from reviewer.ui.workers import Worker

# The first paint (the start screen, or "Opening …") needs none of the database, the review
# page or its domain modules (SQLAlchemy, numpy: about half a second): they load when a project
# opens, on the worker that opens it (tests/cli/test_startup.py checks it).
if TYPE_CHECKING:
    from reviewer.project import Project
    from reviewer.ui.review.qt_review_page import QtReviewPage

PREFERRED_SIZE = QSize(1280, 800)
# Room left for the window manager's frame and title bar, unknown before the window is shown.
FRAME_ALLOWANCE = QSize(16, 48)


def _part_attribute(part: str, name: str) -> property:
    """A part's attribute, read through the window by the name its users know (read-only)."""
    return property(lambda window: getattr(getattr(window, part), name))


class QtMainWindow(QMainWindow):
    project_opened = Signal()
    reviewed_listed = Signal(int)  # a project without a run: its reviewed mistakes are listed (how many)
    run_opened = Signal(int)  # a run's id, or SCOPE_QUEUE (0): the panel's scope as one list
    scope_read = Signal()  # the panel's scope and its counts are read (the run selector and the page follow)
    exported = Signal(str)  # the export folder written
    export_failed = Signal(str)  # the reason, also shown in the status bar

    def __init__(self, *, preferences: Preferences | None = None, keymap: Keymap | None = None):
        super().__init__()
        self.prefs = preferences or load_preferences()
        try:
            keymap = keymap or load_keymap()
        except UserError as exc:
            keymap = Keymap(bindings={a.name: a.keys for a in ACTIONS})
            problem = f"{exc}; the default keys are in use"
            QTimer.singleShot(0, lambda: self.show_message(problem, error=True))
        self.side = SideWindows(self, lambda: self.keymap)  # the meeting and the analysis
        self.worker = Worker(threads=1, name="window", parent=self)
        self.setWindowTitle("ImageNet mistake reviewer")
        self._place_window()

        self.start = QtStartScreen()
        self.start.set_name(self.prefs.panelist_name or default_name())
        self.start.set_recent(self.prefs.existing_recent())
        self._page: QtReviewPage | None = None  # built when first needed (`page`)
        self.reviewed = None  # the reviewed mistakes of a project without a run (qt_reviewed_list), when shown
        self.stack = QStackedWidget()
        self.stack.addWidget(self.start)
        self.setCentralWidget(self.stack)
        self.help = QtHelpOverlay(keymap, self.stack)
        self.toolbar = QtReviewToolbar(lambda name: self.menus.trigger(name), blind=self.prefs.blind)
        self.addToolBar(self.toolbar)
        self.toolbar.setVisible(False)
        self.menus = MainMenus(self, keymap, acts=self._acts(), help=self.help, page=lambda: self._page,
                               stack=self.stack, enlarge_small=self.prefs.enlarge_small_images,
                               evidence_before_vote=self.prefs.evidence_before_vote)
        self.status = QtStatusStrip()
        self.setStatusBar(self.status)
        self.holder = ProjectHolder(self.worker, blind=self.prefs.blind, parent=self)
        self.project_runs = ProjectRuns(self.holder, self.worker, self.toolbar.run_combo, self.prefs, dialog_parent=self)
        self.rules = RulesInForce(self.holder, self.worker, blind_box=self.toolbar.blind_box,
                                  rules_action=self.menus.rules_action, own_blind=self.prefs.blind,
                                  dialog_parent=self)
        self.opener = ProjectOpener(self.start, self.holder, self.worker, self.prefs,
                                    confirm_join=lambda question: self.confirm_join(question), dialog_parent=self)
        self.exporter = ProjectExport(self.holder, self.worker, self.show_message, dialog_parent=self)
        self._connect_signals()

    def _acts(self) -> dict:
        """What the menus and keys carry out in this window, by name."""
        return {"start_screen": self.show_start, "open_project": self.show_start, "new_project": self.new_project,
                "open_demo": self.open_demo, "run_model": self.open_run_dialog, "export": self.export_project,
                "edit_keys": self.edit_keys, "group_view": self.open_meeting,
                "group_review": self._open_alike_review, "analysis_view": self.open_analysis_view,
                "toggle_blind": lambda: self.rules.toggle_blind(),
                "enlarge_small": self.set_enlarge_small, "evidence_before_vote": self.set_evidence_before_vote}

    def _connect_signals(self) -> None:
        """The parts, wired to each other and to the window's views in one place."""
        self.help.edit_keys.connect(self.edit_keys)
        self.help.closed.connect(lambda: self._page is not None and self._page.setFocus())
        self.menus.keymap_changed.connect(self._keymap_changed)
        # A refusal about the name typed before ("bob is not on this panel") no longer holds.
        self.start.name_changed.connect(lambda _name: self.status.clear_refusal())
        self.opener.start_wanted.connect(self.show_start)
        self.opener.message.connect(self.show_message)
        self.opener.demo_needs_run.connect(self._run_demo_model)
        self.holder.opened.connect(self._show_project)  # after the runs and the rules followed it
        self.holder.closing.connect(self._let_go_of_project)
        self.holder.changed.connect(self._project_changed)
        self.project_opened.connect(self.opener.project_shown)
        self.project_runs.queue_chosen.connect(self._open_queue)
        self.project_runs.scope_read.connect(self._show_scope)
        self.project_runs.scope_read.connect(self.scope_read)
        self.project_runs.run_offered.connect(lambda run_id, model, current:
                                           self.status.offer_run(run_id, model=model, current=current))
        self.project_runs.nothing_to_review.connect(lambda title, detail: self.page.show_empty(title, detail))
        self.project_runs.message.connect(self.show_message)
        self.status.offered_run_chosen.connect(self.project_runs.open_offered_run)
        self.rules.applied.connect(self._show_rules)
        self.rules.blind_switched.connect(self.set_blind)
        self.rules.message.connect(self.show_message)
        self.exporter.running_changed.connect(lambda running: self.menus.export_action.setEnabled(not running))
        self.exporter.exported.connect(self.exported)
        self.exporter.failed.connect(self.export_failed)

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
            page.mistake_shown.connect(self.project_runs.first_mistake_shown)  # the scope's counts are read then
            self.stack.addWidget(page)
            self.status.keys_indicator.watch(page)
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
        self.holder.set_blind(blind)

    def edit_keys(self) -> None:
        from reviewer.ui.dialogs.qt_keymap_dialog import QtKeymapDialog

        dialog = QtKeymapDialog(self.keymap, self)
        if dialog.exec():
            self.menus.apply_keymap(dialog.keymap)
            self.show_message("Keys saved.")

    def _keymap_changed(self, keymap: Keymap) -> None:
        if self._page is not None:
            self._page.set_keymap(keymap)
        self.help.set_keymap(keymap)
        meeting = self.side.get("meeting")
        if meeting is not None:
            meeting.set_keymap(keymap)

    # -- the start screen and the open project ------------------------------------------------
    def show_start(self) -> None:
        self.start.set_recent(self.prefs.existing_recent())
        self.stack.setCurrentWidget(self.start)
        self.toolbar.setVisible(False)

    def export_project(self) -> None:
        self.exporter.export_project()

    def open_project(self, root: str, *, join: bool = False) -> None:
        self.opener.open_project(root, join=join)

    def new_project(self) -> None:
        self.opener.new_project()

    def open_demo(self) -> None:
        self.opener.open_demo()

    def confirm_join(self, question: str) -> bool:
        """Ask before a new name joins the panel (reviewer.panel.membership)."""
        answer = QMessageBox.question(self, "Join the panel?", question,
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def _show_rules(self, rules) -> None:
        """The rules in force, on the review page (a project is open: the page is needed now)."""
        self.page.vote_panel.blind_rule = rules.blind
        bridge = self.holder.bridge
        if bridge is not None and bridge.state.current_item() is not None:
            self.page._show_others(bridge.state.current_item())

    def _show_project(self) -> None:
        """The project the holder opened, on the review page, its default queue open."""
        from reviewer.app.runs import no_run_words

        project, panelist, bridge = self.holder.project, self.holder.panelist, self.holder.bridge
        self.status.clear_message()
        bridge.undo_changed.connect(lambda available: self.status.show_undo(available, self.keymap.keys("undo")))
        self.page.set_bridge(bridge)
        self.setWindowTitle(f"{project.name} · ImageNet mistake reviewer")
        self.toolbar.project_label.setText(project.name)
        # Who the database says acts, and how far it vouches for it (reviewer.panel.identity).
        identity = self.holder.identity
        self.toolbar.panelist_label.setText(f"Reviewing as {panelist.name}"
                                            + (" (database role)" if self.holder.database_roles else ""))
        self.toolbar.panelist_label.setToolTip(plain_tip(identity[0].upper() + identity[1:] + "."))
        self.stack.setCurrentWidget(self.page)
        self.toolbar.setVisible(True)
        self.page.setFocus()
        run_id = self.project_runs.default_run()
        if run_id is None:
            # What the project holds and what to do: a project of label files has no image files to run on.
            self.page.show_empty(*no_run_words(project, run_keys=" or ".join(self.keymap.keys("run_model")),
                                               analysis_keys=" or ".join(self.keymap.keys("analysis_view"))))
            # Its published reviews' mistakes are listed instead, when it has any.
            from reviewer.app.reviewed import reviewed_list

            self.worker.submit(reviewed_list, project, on_done=lambda listed, p=project: self._show_reviewed(p, listed))
        else:
            self.project_runs.open_run(run_id)
        self.project_opened.emit()  # last: the demo then starts its run over the "no run" page

    def _show_reviewed(self, project: Project, listed) -> None:
        """A project without a run: its reviewed mistakes, read-only, in place of the empty
        review page (which still says what to do when there are none)."""
        bridge = self.holder.bridge
        if project is not self.holder.project or not listed.rows or bridge is None or bridge.state.run_id is not None:
            return
        if self.reviewed is None:
            from reviewer.ui.review.qt_reviewed_list import QtReviewedList

            self.reviewed = QtReviewedList()
            self.stack.addWidget(self.reviewed)
            self.help.raise_()
        self.reviewed.show_list(project, listed, viewer=self.holder.panelist.name,
                                note=listed.what_to_do(run_keys=" or ".join(self.keymap.keys("run_model"))))
        if self.stack.currentWidget() is self.page:
            self.stack.setCurrentWidget(self.reviewed)
        self.reviewed_listed.emit(len(listed.rows))

    def _open_queue(self, run_id: int, refresh: bool) -> None:
        """The queue the runs part chose, on the review page."""
        self.status.run_opened(run_id)  # chosen in the toolbar's list: no longer an offer
        if self.reviewed is not None and self.stack.currentWidget() is self.reviewed:
            self.stack.setCurrentWidget(self.page)  # a run to review at last
        self.holder.bridge.state.open_run(run_id, self.page.queue_panel.current_filter(), refresh=refresh)
        self._show_scope()
        self.run_opened.emit(run_id)

    def _show_scope(self) -> None:
        """The review page's lines about the scope, for the queue it shows."""
        if self._page is not None and self.holder.bridge is not None:
            self._page.set_scope(self.project_runs.scope_view, self.project_runs.scope_status)

    def _project_changed(self, changes) -> None:
        """A change record: the analysis beside the review follows (the runs and the rules follow
        the holder themselves; the review page follows through its bridge)."""
        analysis = self.side.get("analysis")
        if analysis is not None and (changes.votes or changes.decisions or changes.runs or changes.labels):
            analysis.refresh()

    def _let_go_of_project(self) -> None:
        """The holder closes its project: the views beside and on the page let go of it first."""
        self.side.close_all()
        if self.reviewed is not None:
            self.reviewed.clear()
        if self._page is not None:
            self._page.set_bridge(None)

    def close_project(self) -> None:
        self.holder.close()

    def _run_demo_model(self) -> None:
        from reviewer.app.demo import DEMO_MODEL

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

    # -- the runs ---------------------------------------------------------------------------
    def open_run(self, run_id: int | None, *, refresh: bool = False) -> None:
        self.project_runs.open_run(run_id, refresh=refresh)

    def reload_runs(self, select: int | None = None) -> None:
        self.project_runs.reload_runs(select)

    def open_run_dialog(self, *, model: str | None = None, autostart: bool = False):
        return self.project_runs.open_run_dialog(model=model, autostart=autostart)

    def edit_panel_rules(self) -> None:
        self.rules.edit()

    def _open_alike_review(self) -> None:
        from reviewer.ui.review.qt_alike_review import open_alike_review

        open_alike_review(self)

    # -- the windows beside the review (reviewer.ui.side_windows) ---------------------------
    def open_meeting(self):
        if self.project is None:
            self.show_message("Open a project first.", error=True)
            return None
        from reviewer.ui.meeting.qt_meeting_view import QtMeetingView

        def make():
            view = QtMeetingView(self.project, self.panelist, self.keymap, watcher=self.watcher)
            view.image.enlarge_small = self.prefs.enlarge_small_images
            return view

        return self.side.show("meeting", make, size=(1500, 940))

    def open_analysis_view(self):
        """The report's tables and plots for the open project, in a window of its own
        (like the meeting) so the review page stays as it is."""
        if self.project is None:
            self.show_message("Open a project first.", error=True)
            return None
        from reviewer.ui.dialogs.qt_analysis import QtAnalysisView

        def make():
            view = QtAnalysisView(self.project)
            view.setWindowTitle(f"Analysis · {self.project.name}")
            return view

        return self.side.show("analysis", make, size=(1200, 860), closing_keys=True)

    # -- the parts' state, by the names the window's users (the side windows, the tests) know it --
    project = _part_attribute("holder", "project")
    panelist = _part_attribute("holder", "panelist")
    runs = _part_attribute("holder", "runs")
    bridge = _part_attribute("holder", "bridge")
    watcher = _part_attribute("holder", "watcher")

    @property
    def one_off_panelist(self) -> str | None:
        """`reviewer gui --panelist NAME`: used, not remembered."""
        return self.opener.one_off_panelist

    @one_off_panelist.setter
    def one_off_panelist(self, name: str | None) -> None:
        self.opener.one_off_panelist = name

    panel_rules = _part_attribute("rules", "rules")
    keymap = _part_attribute("menus", "keymap")

    def apply_keymap(self, keymap: Keymap) -> None:
        self.menus.apply_keymap(keymap)

    def trigger(self, name: str) -> bool:
        """Carry out a keymap action by name (a key, a menu); False when it does nothing here."""
        return self.menus.trigger(name)

    actions_by_name = _part_attribute("menus", "actions_by_name")
    export_action = _part_attribute("menus", "export_action")
    export_summary = _part_attribute("exporter", "summary")
    enlarge_action = _part_attribute("menus", "enlarge_action")
    evidence_action = _part_attribute("menus", "evidence_action")
    rules_action = _part_attribute("menus", "rules_action")
    blind_box = _part_attribute("toolbar", "blind_box")
    run_combo = _part_attribute("toolbar", "run_combo")
    project_label = _part_attribute("toolbar", "project_label")
    panelist_label = _part_attribute("toolbar", "panelist_label")

    def show_message(self, text: str, error: bool = False) -> None:
        self.status.show_message(text, error)

    status_text = _part_attribute("status", "text")
    undo_label = _part_attribute("status", "undo_label")
    keys_indicator = _part_attribute("status", "keys_indicator")
    show_run_button = _part_attribute("status", "show_run_button")

    @property
    def _meeting_view(self):
        return self.side.get("meeting")

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

