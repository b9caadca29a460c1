"""`Item`, the key every package shares: what the panel votes on, what a run's
mistake is about, what the queue lists and the exports name.

It sits at the bottom of the package order (README, "Layout") so that runs,
panel, review and the views can all name an item without importing each other.
"""

from __future__ import annotations

from typing import NamedTuple


class Item(NamedTuple):
    """What the panel votes on: one image and one predicted class (two runs making the
    same prediction on the same image ask the panel one question)."""

    image_id: int
    predicted: int


def item_of(row) -> Item:
    """The item of a vote, decision, note or mistake row."""
    return Item(int(row.image_id), int(row.predicted))
