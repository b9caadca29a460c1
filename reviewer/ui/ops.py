"""A view's acts and reads, run off the UI thread (Anki's `CollectionOp`).

`OpRunner` is the one way the review page and the meeting reach the
database: reads on one or more lanes of reader threads (a slow read, such as
the agreement's bootstrap, gets its own lane so it never holds up the shown
item), writes on one writer thread in the order they were asked, and an act's
change record published to the project's watcher before its callback runs, so
that every view (this one, the other window, the progress) follows at once.
Results come back on the UI thread (`reviewer.ui.workers.Worker`).
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, QTimer

from reviewer.ui.watcher import ProjectWatcher
from reviewer.ui.workers import Worker


class OpRunner(QObject):
    def __init__(self, watcher: ProjectWatcher, *, name: str, lanes: dict[str, int] | None = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.watcher = watcher
        self.lanes = {lane: Worker(threads=threads, name=f"{name}-{lane}", parent=self)
                      for lane, threads in (lanes or {"read": 2}).items()}
        self.writer = Worker(threads=1, name=f"{name}-writer", parent=self)

    def read(self, fn: Callable[..., Any], *args: Any, on_done: Callable | None = None,
             on_error: Callable | None = None, priority: int = 0, lane: str = "read", **kwargs: Any) -> None:
        self.lanes[lane].submit(fn, *args, on_done=on_done, on_error=on_error, priority=priority, **kwargs)

    def write(self, fn: Callable[..., Any], *args: Any, on_done: Callable | None = None,
              on_error: Callable | None = None, **kwargs: Any) -> None:
        """Run a write after every write asked before it; its caller publishes its changes."""
        self.writer.submit(fn, *args, on_done=on_done, on_error=on_error, **kwargs)

    def act(self, fn: Callable[..., Any], *args: Any, on_done: Callable | None = None,
            on_error: Callable | None = None, **kwargs: Any) -> None:
        """Run an app act (returning `reviewer.app.changes.Done`) as a write, publish what
        it changed, then call `on_done` with its result."""
        def done(result) -> None:
            self.watcher.publish(result.changes)
            if on_done is not None:
                on_done(result)

        self.write(fn, *args, on_done=done, on_error=on_error, **kwargs)

    def soon(self, fn: Callable[[], None]) -> None:
        """Call `fn` when the event loop turns (after what is due now was painted)."""
        QTimer.singleShot(0, fn)

    def busy(self) -> bool:
        return self.writer.busy() or any(worker.busy() for worker in self.lanes.values())

    def shutdown(self, *, writes_msecs: int = -1) -> None:
        """Finish every write (votes are never dropped), then stop the readers."""
        self.writer.shutdown(msecs=writes_msecs)
        for worker in self.lanes.values():
            worker.shutdown()
