"""Running domain calls off the UI thread, with their result delivered back on it.

`Worker.submit(fn, *args, on_done=..., on_error=...)` runs `fn` on one of the
worker's threads and calls the callbacks on the UI thread. Callbacks are
dropped once the worker is shut down, so a task finishing after its window
closed never touches a deleted widget.

Two workers matter in the window: a reader (details, images, queue loads),
and a writer of exactly one thread, so that votes and undos reach the
database in the order the panelist pressed the keys.

Plain Python threads and a priority queue, not QThreadPool: Python
QRunnables deleted by the pool, and Python objects carried by cross-thread
signals, have crashed PySide6 (refcount errors) under load. Only a task id
crosses threads, through a Qt signal; results wait in a locked dict.
"""

from __future__ import annotations

import itertools
import os
import queue
import sys
import threading
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal, Slot

_STOP = float("inf")


BACKGROUND_NICE = 10


def _yield_cpu_to_ui() -> None:
    """Lower this worker thread's CPU priority: on a machine of few cores, the UI thread
    then gets a core first when both want one (measured with bench_review_latency.py:
    keys pressed as fast as accepted, p50 and p95 about 3 ms less). Linux only, where a thread
    is its own scheduling entity; elsewhere the same call would renice the whole process."""
    if sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)
        except OSError:
            pass  # a sandbox that forbids it: the thread keeps the normal priority


class _Relay(QObject):
    """Lives on the UI thread; worker threads emit task ids into it."""

    finished = Signal(int)


class Worker(QObject):
    """Threads whose results come back on the UI thread; higher priority first."""

    def __init__(self, *, threads: int, name: str, parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName(name)
        self._relay = _Relay(self)
        self._relay.finished.connect(self._deliver)
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._results: dict[int, tuple[Any, BaseException | None]] = {}
        self._callbacks: dict[int, tuple[Callable | None, Callable | None]] = {}
        self._queue: queue.PriorityQueue = queue.PriorityQueue()
        self._ids = itertools.count(1)
        self._outstanding = 0
        self._cancelled: set[int] = set()
        self._begun: set[int] = set()  # tasks a thread has taken (running, or done and not yet delivered)
        self._closed = False
        self._threads = [threading.Thread(target=self._loop, name=f"{name}-{i}", daemon=True) for i in range(threads)]
        for thread in self._threads:
            thread.start()

    def submit(self, fn: Callable[..., Any], *args: Any, on_done: Callable[[Any], None] | None = None,
               on_error: Callable[[BaseException], None] | None = None, priority: int = 0, **kwargs: Any) -> int:
        """Run `fn(*args, **kwargs)` on a worker thread; returns the task's id."""
        if self._closed:
            return -1
        task_id = next(self._ids)
        self._callbacks[task_id] = (on_done, on_error)
        with self._lock:
            self._outstanding += 1
        self._queue.put((-priority, task_id, fn, args, kwargs))
        return task_id

    def cancel(self, task_id: int) -> None:
        """Drop a task that has not started yet (its callbacks are never called)."""
        self._callbacks.pop(task_id, None)
        with self._lock:
            self._cancelled.add(task_id)

    def withdraw(self, task_id: int) -> bool:
        """Cancel a task if no thread has taken it yet: True if withdrawn (its callbacks
        will never be called), False if it runs or has run (its callbacks stand)."""
        with self._lock:
            if task_id in self._begun or task_id not in self._callbacks:
                return False
            self._cancelled.add(task_id)
        self._callbacks.pop(task_id, None)
        return True

    def busy(self) -> bool:
        return bool(self._callbacks)

    def wait(self, msecs: int = -1) -> bool:
        """Block until every submitted task has run (e.g. pending votes before closing)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._outstanding == 0, None if msecs < 0 else msecs / 1000)

    def shutdown(self, msecs: int = 30_000) -> None:
        """Let the queued tasks run, then stop the threads and drop the callbacks."""
        if self._closed:
            return
        self.wait(msecs)
        self._closed = True
        self._callbacks.clear()
        for _ in self._threads:
            self._queue.put((_STOP, next(self._ids), None, (), {}))

    def _loop(self) -> None:
        _yield_cpu_to_ui()
        while True:
            priority, task_id, fn, args, kwargs = self._queue.get()
            if priority == _STOP:
                return
            with self._lock:
                skip = task_id in self._cancelled
                self._cancelled.discard(task_id)
                if not skip:
                    self._begun.add(task_id)
            if skip:
                with self._idle:
                    self._outstanding -= 1
                    self._idle.notify_all()
                continue
            try:
                outcome = (fn(*args, **kwargs), None)
            except BaseException as exc:  # delivered to on_error on the UI thread
                exc.__traceback_text__ = traceback.format_exc()
                outcome = (None, exc)
            with self._lock:
                self._results[task_id] = outcome
            try:
                self._relay.finished.emit(task_id)
            except RuntimeError:
                pass  # the relay went with its window
            with self._idle:
                self._outstanding -= 1
                self._idle.notify_all()

    @Slot(int)
    def _deliver(self, task_id: int) -> None:
        with self._lock:
            result, error = self._results.pop(task_id, (None, None))
            self._begun.discard(task_id)
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
