"""The chair's overrides of a panelist's votes, as his window tells them (issue 35, 4): read
only. The rule, and what counts as already shown, is `reviewer.panel.overridden`'s."""

from __future__ import annotations

from typing import Iterable

from reviewer.items import Item
from reviewer.panel.overridden import OverriddenVote as OverriddenVote  # (re-exported: what the window shows)
from reviewer.panel.overridden import contradicts as contradicts
from reviewer.panel.overridden import overridden_votes, overrides_not_shown
from reviewer.project import Project


def overrides_to_tell(project: Project, *, panelist_id: int) -> list[OverriddenVote]:
    """On opening: the overrides of the panelist's current votes made since his last act."""
    with project.read() as session:
        return overrides_not_shown(session=session, panelist_id=panelist_id)


def overrides_of_my_votes(project: Project, *, panelist_id: int, items: Iterable[Item]) -> list[OverriddenVote]:
    """As a change record names `items`: the overrides among them that contradict his votes."""
    with project.read() as session:
        return overridden_votes(session=session, panelist_id=panelist_id, items=items)
