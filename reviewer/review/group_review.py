"""What the grouped review shows and what a key casts, without Qt (issue 26).

The panelist sees one group of alike mistakes at a time (`reviewer.review.groups`),
with a cursor on one image and a selection (every image of a group when it is opened);
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
from reviewer.review.groups import MistakeGroup
from reviewer.review.queue_entry import QueueEntry
from reviewer.terms import Category, Severity, Verdict

# The keymap's vote actions a group can take at once (a category that names an object
# asks for its name per image: that one stays on the review page).
GROUP_ACTIONS: dict[str, dict] = {
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


class GroupReview:
    """The groups, the one shown, its cursor and selection, and the panelist's votes."""

    def __init__(self, groups: list[MistakeGroup], votes: dict[Item, VoteState] | None = None) -> None:
        self.groups = list(groups)
        self.votes: dict[Item, VoteState] = dict(votes or {})
        self.row: int | None = None
        self.cursor = 0
        self.selected: set[Item] = set()
        if self.groups:
            self.go_to(0)

    # -- where the panelist is ------------------------------------------------------------
    @property
    def group(self) -> MistakeGroup | None:
        return self.groups[self.row] if self.row is not None else None

    @property
    def entry(self) -> QueueEntry | None:
        group = self.group
        return group.entries[self.cursor] if group is not None else None

    def go_to(self, row: int) -> bool:
        """Show group `row`: the cursor on its first image, all of it selected."""
        if not 0 <= row < len(self.groups):
            return False
        self.row, self.cursor = row, 0
        self.selected = set(self.groups[row].items)
        return True

    def next_group(self) -> bool:
        return self.row is not None and self.go_to(self.row + 1)

    def previous_group(self) -> bool:
        return self.row is not None and self.go_to(self.row - 1)

    def move(self, step: int) -> bool:
        """The cursor `step` images on (clamped to the group); False when it did not move."""
        group = self.group
        if group is None:
            return False
        cursor = max(0, min(len(group) - 1, self.cursor + step))
        moved, self.cursor = cursor != self.cursor, cursor
        return moved

    def toggle(self, item: Item | None = None) -> None:
        """Take an image (default: the cursor's) into the selection or out of it."""
        item = item or (self.entry.item if self.entry else None)
        if item is not None:
            self.selected ^= {item}

    def toggle_all(self) -> None:
        """Select the whole group, or nothing when it was all selected."""
        group = self.group
        if group is not None:
            everything = set(group.items)
            self.selected = set() if self.selected >= everything else everything

    def selection(self) -> list[QueueEntry]:
        """The selected images of the shown group, in its order."""
        group = self.group
        return [e for e in group.entries if e.item in self.selected] if group is not None else []

    # -- votes -----------------------------------------------------------------------------
    def my_vote(self, item: Item) -> VoteState:
        return self.votes.get(item, VoteState())

    def cast(self, action: str) -> Cast:
        """The votes a keymap action casts on the selection (`GROUP_ACTIONS`, or
        `TOGGLE_PROBLEMATIC`: problematic on all unless all are already)."""
        chosen = self.selection()
        if action == TOGGLE_PROBLEMATIC:
            flag = not all(self.my_vote(e.item).problematic for e in chosen)
            return Cast(tuple((e.item, {"problematic": flag}) for e in chosen))
        fields = GROUP_ACTIONS.get(action)
        if fields is None:
            raise KeyError(f"{action!r} is not cast on a group")
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

    def group_complete(self, group: MistakeGroup | None = None) -> bool:
        """Every image of the group has a complete vote (nothing more for this panelist)."""
        group = group or self.group
        return group is not None and all(
            self.my_vote(e.item).is_complete(judged_wrong=e.stands_wrong) for e in group.entries)

    def items(self) -> set[Item]:
        return {item for group in self.groups for item in group.items}
