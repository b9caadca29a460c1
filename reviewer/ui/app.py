"""Starting the window: the QApplication, its look, and what to open first."""

from __future__ import annotations

import gc
import sys
import time

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from reviewer.ui.theme import apply_theme


class GuiThreadCollector(QObject):
    """Python's cycle collector runs on whichever thread happens to allocate past a
    threshold; when that is a worker thread and the garbage holds a Qt object, Qt
    deletes a GUI object off the GUI thread and the process crashes (seen as a
    segfault under `_configure_sqlite` on a project-opening worker). So automatic
    collection is off and the GUI thread collects, with Python's own thresholds,
    ten times a second: often enough that each collection is small. At twice a
    second, a panelist pressing keys as fast as the window takes them had one
    key in twenty pay for a collection of 5-25 ms (measured with
    bench/bench_review_latency.py). What a project's opening leaves alive (the
    modules, the queue, the class tables) is moved out of the collector's sight
    once it is loaded (`settle`), so that an older generation's collection scans
    only what was made since.

    While the window starts and a project opens (`hold`, until `settle` or at most
    `HOLD_S`), it does not collect at all: the imports, the window and the queue
    allocate hundreds of thousands of objects that all live on, and collecting them
    young, ten times a second, took 0.27 s of the GUI thread before the first mistake
    of a 50,000-image project with 20 runs (21 collections of 13 ms, each holding the
    interpreter from the threads reading the project). `settle` collects once then."""

    INTERVAL_MS = 100
    HOLD_S = 20.0  # the longest a hold lasts, should nothing settle it (an opening that fails or hangs)

    def __init__(self, app: QApplication):
        super().__init__(app)
        self._thresholds = gc.get_threshold()
        gc.disable()
        self._held_until = 0.0
        self.hold()  # the window's start (and the project it opens first)
        self._timer = QTimer(self, interval=self.INTERVAL_MS, timeout=self.check)
        self._timer.start()

    def hold(self) -> None:
        """No collection until `release` (or `HOLD_S` from now): a project is opening."""
        self._held_until = time.monotonic() + self.HOLD_S

    def release(self) -> None:
        self._held_until = 0.0

    @property
    def holding(self) -> bool:
        return time.monotonic() < self._held_until

    @staticmethod
    def settle() -> None:
        """Collect everything once, then leave what survives to the permanent generation
        (`gc.freeze`): called when a project's queue is loaded."""
        gc.collect()
        gc.freeze()

    def check(self) -> None:
        if self.holding:
            return
        counts, generation = gc.get_count(), -1
        for level, (count, threshold) in enumerate(zip(counts, self._thresholds)):
            if count <= threshold:
                break
            generation = level
        if generation >= 0:
            gc.collect(generation)


def create_app() -> QApplication:
    """The application object (made once), themed."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("ImageNet mistake reviewer")
        app.setOrganizationName("imagenet-mistake-reviewer")
    if not app.property("reviewer_themed"):
        apply_theme(app)
        app.setProperty("reviewer_themed", True)
    if app.findChild(GuiThreadCollector) is None:
        GuiThreadCollector(app)
    return app


def _collector() -> GuiThreadCollector | None:
    app = QApplication.instance()
    return None if app is None else app.findChild(GuiThreadCollector)


def hold_collections() -> None:
    """A project starts opening: no collection until it has settled (`settle_heap`)."""
    collector = _collector()
    if collector is not None:
        collector.hold()


def release_collections() -> None:
    """Collect as usual again (the opening settled, or failed)."""
    collector = _collector()
    if collector is not None:
        collector.release()


def settle_heap() -> None:
    """What is alive now stays alive (a project just opened): out of the collector's sight;
    collections resume."""
    GuiThreadCollector.settle()
    release_collections()


def run_gui(*, project: str | None = None, demo: bool = False, panelist: str | None = None) -> int:
    """Show the main window (on a project, on the demo, or at the start screen)
    and run the event loop until it is closed."""
    from reviewer.ui.qt_main_window import QtMainWindow

    app = create_app()
    window = QtMainWindow()
    if panelist:  # this session's name; the remembered one stays the default of a plain `reviewer gui`
        window.one_off_panelist = panelist
        window.start.set_name(panelist)
    window.show()
    if demo:
        window.open_demo()
    elif project:
        window.open_project(project)
    return app.exec()
