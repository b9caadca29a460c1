"""Running domain calls off the UI thread, with their result delivered back on it.

`Worker.submit(fn, *args, on_done=..., on_error=...)` runs `fn` in a thread
pool and calls the callbacks on the UI thread (through a queued signal).
Callbacks are dropped once the worker is shut down, so a task finishing after
its window closed never touches a deleted widget.

Two pools matter in the window: a reader pool (details, images, queue
loads), and a writer pool of exactly one thread, so that votes and undos
reach the database in the order the panelist pressed the keys.
"""

from __future__ import annotations

import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot


class _Relay(QObject):
    """Lives on the UI thread; the pool threads emit into it."""

    finished = Signal(object, object, object)  # task id, result, error


class _Task(QRunnable):
    def __init__(self, relay: _Relay, task_id: int, fn: Callable, args: tuple, kwargs: dict):
        super().__init__()
        self._relay, self._id, self._fn, self._args, self._kwargs = relay, task_id, fn, args, kwargs

    def run(self) -> None:
        try:
            result, error = self._fn(*self._args, **self._kwargs), None
        except BaseException as exc:  # delivered to on_error on the UI thread
            exc.__traceback_text__ = traceback.format_exc()
            result, error = None, exc
        try:
            self._relay.finished.emit(self._id, result, error)
        except RuntimeError:
            pass  # the relay was deleted with its window


class Worker(QObject):
    """A thread pool whose results come back on the UI thread."""

    def __init__(self, *, threads: int, name: str, parent: QObject | None = None):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(threads)
        self.pool.setObjectName(name)
        self._relay = _Relay(self)
        self._relay.finished.connect(self._deliver)
        self._callbacks: dict[int, tuple[Callable | None, Callable | None]] = {}
        self._next_id = 0
        self._closed = False

    def submit(self, fn: Callable[..., Any], *args: Any, on_done: Callable[[Any], None] | None = None,
               on_error: Callable[[BaseException], None] | None = None, priority: int = 0, **kwargs: Any) -> int:
        """Run `fn(*args, **kwargs)` in the pool; returns the task's id."""
        if self._closed:
            return -1
        self._next_id += 1
        self._callbacks[self._next_id] = (on_done, on_error)
        self.pool.start(_Task(self._relay, self._next_id, fn, args, kwargs), priority)
        return self._next_id

    def busy(self) -> bool:
        return bool(self._callbacks)

    def wait(self, msecs: int = -1) -> bool:
        """Block until every task has run (e.g. pending votes before closing)."""
        return self.pool.waitForDone(msecs)

    def shutdown(self, msecs: int = 30_000) -> None:
        """Finish the running and queued tasks, then drop their callbacks."""
        self.pool.waitForDone(msecs)
        self._closed = True
        self._callbacks.clear()

    @Slot(object, object, object)
    def _deliver(self, task_id: int, result: Any, error: BaseException | None) -> None:
        on_done, on_error = self._callbacks.pop(task_id, (None, None))
        if self._closed:
            return
        if error is not None:
            if on_error is not None:
                on_error(error)
            else:
                print(getattr(error, "__traceback_text__", repr(error)))
        elif on_done is not None:
            on_done(result)
