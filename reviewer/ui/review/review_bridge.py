"""One panelist reviewing one run, in the window: the Qt side of
`reviewer.review.state.ReviewState`.

The state (queue, shown mistake, cached facts, votes on their way, undo) and its
rules are headless and tested without Qt. This adapter gives it a runner
(`reviewer.ui.ops.OpRunner`: a reader pool of two threads that loads the queue and
prefetches the next mistakes' facts, and one writer thread that records votes and
undos in the order of the key presses), turns its events into Qt signals, and
keeps it in step with the project's `ProjectWatcher`: its own acts are published
there, and every change record (its own, the meeting's, another process's)
goes to the state, which re-reads what the record names.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from reviewer.app.review import ReviewActs
from reviewer.project import Project
from reviewer.review.protocols import ReviewEvent
from reviewer.review.state import PREFETCH_AHEAD, ReviewState
from reviewer.ui.ops import OpRunner
from reviewer.ui.watcher import ProjectWatcher

__all__ = ["PREFETCH_AHEAD", "ReviewBridge"]


class ReviewBridge(QObject):
    """The review page's `ReviewState` with Qt signals, threads and the watcher."""

    queue_loaded = Signal()
    states_changed = Signal(object)  # [Item]: the queue entries whose panel state changed
    current_changed = Signal(object)  # QueueEntry or None
    detail_ready = Signal(object)  # MistakeDetail
    vote_changed = Signal(object)  # Item
    others_changed = Signal(object)  # Item
    undo_changed = Signal(bool)
    message = Signal(str, bool)  # text, is_error

    def __init__(self, project: Project, panelist, *, blind: bool = True, watcher: ProjectWatcher | None = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.project, self.panelist = project, panelist
        self.watcher = watcher or ProjectWatcher(project, self)
        self.runner = OpRunner(self.watcher, name="review", lanes={"read": 2}, parent=self)
        self.reader, self.writer = self.runner.lanes["read"], self.runner.writer
        self.state = ReviewState(ReviewActs(project, panelist.id), self.runner, blind=blind, notify=self._notify)
        self._signals = {event: getattr(self, event.value) for event in ReviewEvent if event != ReviewEvent.PUBLISHED}
        self.watcher.changed.connect(self.state.apply_changes)

    def _notify(self, event: ReviewEvent, *args) -> None:
        if event == ReviewEvent.PUBLISHED:
            changes, vote_ids = args
            self.watcher.publish(changes, vote_ids=vote_ids)
        else:
            self._signals[event].emit(*args)

    def close(self) -> None:
        """Finish writing every pending vote, then stop the workers."""
        self.watcher.changed.disconnect(self.state.apply_changes)
        self.runner.shutdown()
