"""What the review state (`reviewer.review.state.ReviewState`) and the code around it
agree on: the acts it reads and writes through (`ReviewBackend`, the app layer's
`reviewer.app.review.ReviewActs`), where those run (`Runner`: the window's
`reviewer.ui.review.review_bridge` or a test's), and the events it tells whoever shows it
(`ReviewEvent`, which its `notify` receives; the window turns them into Qt signals).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Callable, Protocol

from reviewer.items import Item
from reviewer.panel.votes import VoteState
from reviewer.review.queue import ReviewQueue
from reviewer.review.queue_filter import QueueFilter


class ReviewEvent(StrEnum):
    """What changed, for whoever shows the state; the arguments each carries."""

    QUEUE_LOADED = "queue_loaded"  # ()
    STATES_CHANGED = "states_changed"  # ([Item]: the queue entries whose panel state changed)
    CURRENT_CHANGED = "current_changed"  # (QueueEntry | None)
    DETAIL_READY = "detail_ready"  # (MistakeDetail)
    VOTE_CHANGED = "vote_changed"  # (Item)
    OTHERS_CHANGED = "others_changed"  # (Item)
    UNDO_CHANGED = "undo_changed"  # (bool)
    MESSAGE = "message"  # (text, is_error)
    PUBLISHED = "published"  # (Changes, vote ids): an act of this state was recorded


class Runner(Protocol):
    """Where the backend's calls run; results come back through the callbacks."""

    def read(self, fn: Callable[..., Any], *args: Any, on_done: Callable | None = None,
             on_error: Callable | None = None, priority: int = 0, **kwargs: Any) -> None: ...

    def write(self, fn: Callable[..., Any], *args: Any, on_done: Callable | None = None,
              on_error: Callable | None = None, **kwargs: Any) -> None:
        """Writes run one at a time, in the order given."""

    def soon(self, fn: Callable[[], None]) -> None:
        """Call `fn` once the events waiting now were handled (after the page painted)."""


class ReviewBackend(Protocol):
    """The acts the review state reads and writes through, bound to one project and
    one panelist (`reviewer.app.review.ReviewActs`). Called on the runner's threads."""

    panelist_id: int

    def detail_source(self) -> Any: ...
    def detail(self, source: Any, *, run_id: int, item: Item) -> Any: ...
    def review_queue(self, *, run_id: int, queue_filter: QueueFilter | None) -> ReviewQueue: ...
    def names(self) -> dict[int, str]: ...
    def undo_available(self) -> bool: ...
    def item_states(self, items: list[Item]) -> Any: ...
    def item_votes(self, item: Item, *, blind: bool) -> tuple[VoteState, list | None]: ...
    def others(self, item: Item, *, blind: bool) -> list | None: ...
    def my_vote(self, item: Item) -> VoteState: ...
    def vote(self, item: Item, **changes: Any) -> Any: ...
    def undo(self) -> Any: ...
