"""What the review of alike mistakes shows and what a key casts, without Qt (issue 26).

The panelist sees one set of alike mistakes at a time (`reviewer.review.alike`),
with a cursor on one image and a selection (every image of a set when it is opened);
a vote key casts the same act on every selected image at once. Each is still that
panelist's own vote on that item: `cast` completes the act per item by the panel's
rules (`reviewer.panel.votes.implied_changes`: a severity on an unvoted item means
wrong, a severity on an item voted correct is refused and says why) and returns one
row per item for `reviewer.app.panel.vote_batch`, which records them in one
transaction, a vote row each, so Ctrl+Z (`undo_last`) takes them back one by one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from reviewer.items import Item
from reviewer.panel.votes import VoteError, VoteState, implied_changes
from reviewer.review.alike import AlikeMistakes
from reviewer.review.queue_entry import QueueEntry
from reviewer.terms import Category, Severity, Verdict

# The keymap's vote actions a set of alike mistakes can take at once (a category that names an object
# asks for its name per image: that one stays on the review page).
ALIKE_ACTIONS: dict[str, dict] = {
    **{f"verdict_{v}": {"verdict": v} for v in Verdict},
    **{f"severity_{s}": {"severity": s} for s in Severity.panel()},
    **{f"category_{c}": {"category": c} for c in Category if not c.needs_name},
}
TOGGLE_PROBLEMATIC = "toggle_problematic"


@dataclass(frozen=True)
class Cast:
    """What a key casts on the selection: one (item, changes) per item it applies to, and
    the items it does not, each with the reason."""

    votes: tuple[tuple[Item, dict], ...]
    refused: tuple[tuple[Item, str], ...] = ()

    def describe(self, action_title: str) -> str:
        said = f"{action_title}: {len(self.votes)} vote{'s' if len(self.votes) != 1 else ''}"
        if self.refused:
            reasons = sorted({reason for _, reason in self.refused})
            said += f"; {len(self.refused)} not recorded ({'; '.join(reasons)})"
        return said


class AlikeReview:
    """The sets of alike mistakes, the one shown, its cursor and selection, and the panelist's votes."""

    def __init__(self, sets: list[AlikeMistakes], votes: dict[Item, VoteState] | None = None) -> None:
        self.sets = list(sets)
        self.votes: dict[Item, VoteState] = dict(votes or {})
        self.row: int | None = None
        self.cursor = 0
        self.selected: set[Item] = set()
        if self.sets:
            self.go_to(0)

    # -- where the panelist is ------------------------------------------------------------
    @property
    def shown(self) -> AlikeMistakes | None:
        """The set shown."""
        return self.sets[self.row] if self.row is not None else None

    @property
    def entry(self) -> QueueEntry | None:
        shown = self.shown
        return shown.entries[self.cursor] if shown is not None else None

    def go_to(self, row: int) -> bool:
        """Show set `row`: the cursor on its first image, all of it selected."""
        if not 0 <= row < len(self.sets):
            return False
        self.row, self.cursor = row, 0
        self.selected = set(self.sets[row].items)
        return True

    def next_set(self) -> bool:
        return self.row is not None and self.go_to(self.row + 1)

    def previous_set(self) -> bool:
        return self.row is not None and self.go_to(self.row - 1)

    def move(self, step: int) -> bool:
        """The cursor `step` images on (clamped to the set); False when it did not move."""
        shown = self.shown
        if shown is None:
            return False
        cursor = max(0, min(len(shown) - 1, self.cursor + step))
        moved, self.cursor = cursor != self.cursor, cursor
        return moved

    def toggle(self, item: Item | None = None) -> None:
        """Take an image (default: the cursor's) into the selection or out of it."""
        item = item or (self.entry.item if self.entry else None)
        if item is not None:
            self.selected ^= {item}

    def toggle_all(self) -> None:
        """Select the whole set, or nothing when it was all selected."""
        shown = self.shown
        if shown is not None:
            everything = set(shown.items)
            self.selected = set() if self.selected >= everything else everything

    def selection(self) -> list[QueueEntry]:
        """The selected images of the shown set, in its order."""
        shown = self.shown
        return [e for e in shown.entries if e.item in self.selected] if shown is not None else []

    # -- votes -----------------------------------------------------------------------------
    def my_vote(self, item: Item) -> VoteState:
        return self.votes.get(item, VoteState())

    def cast(self, action: str) -> Cast:
        """The votes a keymap action casts on the selection (`ALIKE_ACTIONS`, or
        `TOGGLE_PROBLEMATIC`: problematic on all unless all are already)."""
        chosen = self.selection()
        if action == TOGGLE_PROBLEMATIC:
            flag = not all(self.my_vote(e.item).problematic for e in chosen)
            return Cast(tuple((e.item, {"problematic": flag}) for e in chosen))
        fields = ALIKE_ACTIONS.get(action)
        if fields is None:
            raise KeyError(f"{action!r} is not cast on a set of alike mistakes")
        votes, refused = [], []
        for entry in chosen:
            try:
                votes.append((entry.item, implied_changes(self.my_vote(entry.item),
                                                          judged_wrong=entry.stands_wrong, **fields)))
            except VoteError as exc:
                refused.append((entry.item, str(exc)))
        return Cast(tuple(votes), tuple(refused))

    def expect(self, cast: Cast) -> None:
        """Show a cast's votes at once (the write confirms them: `take_votes`)."""
        for item, changes in cast.votes:
            self.votes[item] = replace(self.my_vote(item), **changes)

    def take_votes(self, votes: dict[Item, VoteState]) -> None:
        """The panelist's votes as read from the database."""
        self.votes.update(votes)

    def set_complete(self, alike: AlikeMistakes | None = None) -> bool:
        """Every image of the set (default: the one shown) has a complete vote (nothing more for this panelist)."""
        alike = alike or self.shown
        return alike is not None and all(
            self.my_vote(e.item).is_complete(judged_wrong=e.stands_wrong) for e in alike.entries)

    def items(self) -> set[Item]:
        return {item for alike in self.sets for item in alike.items}
