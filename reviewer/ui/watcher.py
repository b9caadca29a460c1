"""One refresh path for every view of an open project.

Every act of this window returns a `Changes` record (`reviewer.app.changes`);
the views publish it here as soon as the act is recorded. What other windows,
processes and machines do arrives through one poll of the database
(`reviewer.app.panel.poll`, rows past a cursor: cheap however large the
project), every `POLL_MS`, as the same kind of record. Each view listens to
`changed` and re-reads only what the record names, so the review page, its
queue, the top-5 statuses, the meeting, the analysis and the progress strip
all agree with the database within about a second.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QTimer, Signal

from reviewer.app import panel as acts
from reviewer.app.changes import Changes
from reviewer.project import Project
from reviewer.redact import scrub
from reviewer.ui.workers import Worker

POLL_MS = 1000
log = logging.getLogger(__name__)


class ProjectWatcher(QObject):
    changed = Signal(object)  # Changes

    def __init__(self, project: Project, parent: QObject | None = None, *, poll_ms: int | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self._cursor: acts.Cursor | None = None
        self._busy = False
        self.last_error = ""  # the poll's last failure, if it keeps failing
        self._known_votes: set[int] = set()  # vote rows this process wrote and published
        self._worker = Worker(threads=1, name="watcher", parent=self)
        self._timer = QTimer(self, interval=poll_ms or POLL_MS, timeout=self.poll)
        self._worker.submit(acts.cursor, project, on_done=self._started, on_error=lambda _e: None)

    def _started(self, cursor: acts.Cursor) -> None:
        self._cursor = cursor
        self._timer.start()

    def publish(self, changes: Changes, *, vote_ids=()) -> None:
        """An act of this process was recorded: tell every view now, not at the next poll
        (which then leaves out the vote rows named in `vote_ids`: they are known)."""
        self._known_votes.update(vote_ids)
        if not changes.empty:
            self.changed.emit(changes)

    def poll(self) -> None:
        """Ask the database what anyone did since the last poll (on the worker thread)."""
        if self._busy or self._cursor is None:
            return
        self._busy = True
        known = frozenset(v for v in self._known_votes if v > self._cursor.vote_id)
        self._known_votes = set(known)
        self._worker.submit(acts.poll, self.project, cursor=self._cursor, known_votes=known, on_done=self._polled,
                            on_error=self._poll_failed)

    def _polled(self, result) -> None:
        self._busy = False
        self.last_error = ""
        changes, self._cursor = result
        if not changes.empty:
            self.changed.emit(changes)

    def _poll_failed(self, error: BaseException) -> None:
        self._busy = False  # a server hiccup: the next tick tries again from the same cursor
        if str(error) != self.last_error:  # said once, not every second
            self.last_error = str(error)
            log.warning("cannot read the project's changes (will retry): %s", scrub(str(error)))

    def stop(self) -> None:
        self._timer.stop()
        self._worker.shutdown()
