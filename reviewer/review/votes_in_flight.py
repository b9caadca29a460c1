"""The panelist's votes on their way to the database, as one object, and each item's vote
status as an enum computed from them (`VoteStatus`): what the review page shows beside
the vote ("saving…", "✓ recorded", "not voted", "not recorded: why"), never worked out
by the page itself.

The review state (reviewer.review.state) is optimistic: a vote is shown at once,
and is SAVING while any write of its item is on its way; RECORDED once the last of them
returned (what shows as recorded is on disk); FAILED, with the reason, when a write
failed, until the next vote or undo of the item. Each item also has a version, bumped by
every local vote or undo: a read begun before the bump is older than what is shown, and
is dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from reviewer.items import Item
from reviewer.terms import StrEnum


class VoteStatus(StrEnum):
    """Where the panelist's own vote on an item stands."""

    LOADING = "loading"  # not read yet (it comes with the mistake's facts)
    NONE = "none"  # no vote
    SAVING = "saving"  # shown, its write on the way
    RECORDED = "recorded"  # on disk
    FAILED = "failed"  # a write failed: `VotesInFlight.failure` says why


class VotesInFlight:
    """The writes of one panelist's votes on their way, per item (module docstring)."""

    def __init__(self) -> None:
        self._writes: dict[Item, int] = {}
        self._versions: dict[Item, int] = {}
        self._outcome: dict[Item, VoteStatus] = {}  # the last write's or undo's, until the next one
        self._failures: dict[Item, str] = {}

    # -- reading ---------------------------------------------------------------
    @property
    def writes(self) -> Mapping[Item, int]:
        """{item: writes on their way} (read-only): empty when nothing is being saved."""
        return MappingProxyType(self._writes)

    def saving(self, item: Item) -> int:
        """How many writes of the item are on their way."""
        return self._writes.get(item, 0)

    def version(self, item: Item) -> int:
        return self._versions.get(item, 0)

    def status(self, item: Item, *, read: bool, empty: bool) -> VoteStatus:
        """The item's vote status; `read`: the panelist's vote on it has been read (or cast),
        `empty`: it holds nothing."""
        if self._writes.get(item):
            return VoteStatus.SAVING
        outcome = self._outcome.get(item)
        if outcome is not None:
            return outcome
        if not read:
            return VoteStatus.LOADING
        return VoteStatus.NONE if empty else VoteStatus.RECORDED

    def failure(self, item: Item) -> str | None:
        """Why the item's last write failed ("not recorded: the disk is full"), or None."""
        return self._failures.get(item) if self._outcome.get(item) == VoteStatus.FAILED else None

    # -- the writes ------------------------------------------------------------
    def bump(self, item: Item) -> int:
        """A local change of the item (a vote or an undo): its new version."""
        self._versions[item] = self._versions.get(item, 0) + 1
        return self._versions[item]

    def start(self, item: Item) -> int:
        """A vote's write sets off: the item is SAVING; returns its new version."""
        self._writes[item] = self._writes.get(item, 0) + 1
        self._outcome.pop(item, None)
        return self.bump(item)

    def landed(self, item: Item) -> bool:
        """A write returned; True when it was the item's last on its way (then RECORDED)."""
        left = self._writes.get(item, 1) - 1
        if left > 0:
            self._writes[item] = left
            return False
        self._writes.pop(item, None)
        self._outcome[item] = VoteStatus.RECORDED
        return True

    def failed(self, item: Item, reason: str) -> None:
        """A write failed: FAILED, with why, until the next vote or undo."""
        left = self._writes.get(item, 1) - 1
        if left > 0:
            self._writes[item] = left
        else:
            self._writes.pop(item, None)
        self._outcome[item] = VoteStatus.FAILED
        self._failures[item] = reason

    def undone(self, item: Item, *, empty: bool) -> None:
        """An undo changed the item's vote: RECORDED, or NONE when nothing is left."""
        self.bump(item)
        self._outcome[item] = VoteStatus.NONE if empty else VoteStatus.RECORDED
