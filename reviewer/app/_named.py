"""Who acts and on what, as the command line names them: a panelist's name and an
item as an image file name and a predicted class. The panel's acts take these
beside the window's ids and resolve them inside the act's own unit of work, so a
name and the act on it are one transaction and both front ends run the same act.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from sqlmodel import Session

from reviewer.items import Item


@dataclass(frozen=True)
class ByName:
    """A panelist as a person names them (`--panelist NAME`). None: the login name, or on a
    panel of database roles the connection's role (`reviewer.panel.identity.acting_panelist`)."""

    name: str | None = None


@dataclass(frozen=True)
class ItemName:
    """An item as a person names it: the image's file name and the predicted class
    (index 0-999, wnid or class name; `reviewer.panel.lookup.find_mistake`)."""

    image: str | None
    predicted: str | None


PanelistRef = Union[int, ByName]  # a panelist's id (the window knows it), or a name to resolve
ItemRef = Union[Item, ItemName]


def resolve_panelist(session: Session, who: PanelistRef) -> tuple[int, str | None]:
    """(id, name) of the panelist acting; the name only where one was resolved."""
    if isinstance(who, ByName):
        from reviewer.panel.identity import acting_panelist

        row = acting_panelist(session=session, name=who.name)
        return row.id, row.name
    return who, None


def resolve_chair(session: Session, who: PanelistRef, act: str, *, flag: str = "--chair") -> tuple[int, str | None]:
    """(id, name) of the chair acting, as `resolve_panelist`; anyone else is refused with
    reviewer.panel.chair.NotTheChair, which says that only the chair does `act` and to pass
    `flag` with the chair's name, also when the name (by default the login name) is not on
    the panel: the fix is the chair's name, not a new panelist."""
    from reviewer.panel.chair import not_on_panel, require_chair

    if isinstance(who, ByName):
        from reviewer.panel.identity import acting_panelist, default_name
        from reviewer.panel.lookup import NotInProjectError

        try:
            row = acting_panelist(session=session, name=who.name)
        except NotInProjectError:
            name = (who.name or "").strip()
            raise not_on_panel(session, name=name or default_name(), act=act, flag=flag, login=not name) from None
        return require_chair(session, row.id, act, flag=flag).id, row.name
    return require_chair(session, who, act).id, None


def resolve_item(session: Session, ref: ItemRef) -> Item:
    if isinstance(ref, ItemName):
        from reviewer.panel.lookup import find_mistake

        return find_mistake(session=session, image=ref.image, predicted=ref.predicted)
    return ref
