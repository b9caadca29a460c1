"""The project a window holds open, and what lives as long as it: who reviews it, its runs,
its change records (`reviewer.ui.watcher.ProjectWatcher`) and the review page's model
(`reviewer.ui.review.review_bridge.ReviewBridge`).

A part of the main window that owns this state and says when it changes, so the window's
other parts subscribe to it rather than read the window (as napari's `QtDims(viewer.dims)`
follows its model's events): `opened`, `closing` (the views let go of the bridge), `closed`,
`runs_changed`, and `changed` with each change record of the open project. Opening runs the
act `reviewer.app.project.open_project` on the window's worker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from reviewer.ui.app import hold_collections, release_collections, settle_heap

# As in qt_main_window: the database and the review page load on the worker that opens a project.
if TYPE_CHECKING:
    from reviewer.panel.rules import PanelRules
    from reviewer.project import Project
    from reviewer.ui.review.review_bridge import ReviewBridge
    from reviewer.ui.watcher import ProjectWatcher
    from reviewer.ui.workers import Worker


def _open(root: str, panelist_name: str, join: bool = False):
    """The open act (`reviewer.app.project.open_project`) on the worker: its modules (the
    database, the panel) load there, not before the first paint."""
    from reviewer.app.project import open_project

    return open_project(root, panelist_name, join=join).value


SETTLE_AFTER_MS = 1500  # from the queue's loading to settling the heap (reviewer.ui.app.settle_heap)


class ProjectHolder(QObject):
    """The open project (or none), its panelist, runs, watcher and review bridge."""

    opened = Signal()  # a project is open: project, panelist, runs, watcher and bridge are set
    open_failed = Signal(object, str)  # the error, the folder asked for
    closing = Signal()  # the open project is about to close: views let go of its bridge now
    closed = Signal()  # no project is open any more
    runs_changed = Signal()  # `runs` is a new list
    changed = Signal(object)  # a change record of the open project (reviewer.app.changes.Changes)

    def __init__(self, worker: Worker, *, blind: bool, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._worker = worker
        self._blind = blind  # the panelist's own blind switch, for the next bridge
        self.project: Project | None = None
        self.panelist = None
        self.runs: list[tuple[int, str, str, int]] = []  # (run id, model, status, images), newest first
        self.identity = ""  # how the project knows who acts, in words
        self.database_roles = False
        self.rules: PanelRules | None = None  # the panel's rules as read when the project opened
        self.watcher: ProjectWatcher | None = None
        self.bridge: ReviewBridge | None = None

    def open(self, root: str, panelist_name: str, *, join: bool = False) -> None:
        """Open the project at `root` as `panelist_name`, off the UI thread (`opened` or `open_failed`)."""
        hold_collections()  # until its queue is loaded (settle_heap)
        self._worker.submit(_open, root, panelist_name, join, on_done=self._opened,
                            on_error=lambda error, r=root: self._failed(error, r))

    def _failed(self, error, root: str) -> None:
        release_collections()
        self.open_failed.emit(error, root)

    def _opened(self, result) -> None:
        from reviewer.ui.review.review_bridge import ReviewBridge
        from reviewer.ui.watcher import ProjectWatcher

        self.close()
        self.project, self.panelist, self.runs = result.project, result.panelist, result.runs
        self.identity, self.database_roles, self.rules = result.identity, result.database_roles, result.rules
        # One refresh path for every view of the project (reviewer.ui.watcher).
        self.watcher = ProjectWatcher(self.project, self)
        self.watcher.changed.connect(self.changed)
        self.bridge = ReviewBridge(self.project, self.panelist, blind=self._blind, watcher=self.watcher, parent=self)
        # The project's long-lived objects, out of the collector's way: once its first mistake is on
        # screen, not before (a full collection of a large project's heap, 0.1-0.3 s of the UI thread).
        self.bridge.queue_loaded.connect(lambda: QTimer.singleShot(SETTLE_AFTER_MS, settle_heap))
        self.opened.emit()

    def set_runs(self, runs: list[tuple[int, str, str, int]]) -> None:
        self.runs = list(runs)
        self.runs_changed.emit()

    def set_blind(self, blind: bool) -> None:
        """The panelist's own blind switch: the open review follows, and the next one starts so."""
        self._blind = blind
        if self.bridge is not None:
            self.bridge.state.set_blind(blind)

    def close(self) -> None:
        """Close the open project, if any, once its views have let go of it (`closing`)."""
        if self.project is None and self.bridge is None and self.watcher is None:
            return
        self.closing.emit()
        if self.bridge is not None:
            self.bridge.close()  # votes still being written are finished first
            self.bridge.deleteLater()
            self.bridge = None
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher.deleteLater()
            self.watcher = None
        if self.project is not None:
            self.project.close()
            self.project = None
        self.panelist, self.runs, self.rules = None, [], None
        self.closed.emit()
