"""Names a user types for an item: an image's file name and a class (index or wnid),
and a panelist's name. Functions take the caller's session."""

from __future__ import annotations

from pathlib import PurePath

from sqlalchemy import select
from sqlmodel import Session

from db.tables import Image, Mistake, Panelist, Prediction
from reviewer.classes.vocabulary import NUM_CLASSES, load_classes
from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.terms import StrEnum


class NotInProjectError(UserError):
    """An image, class, item or panelist name that is not in the project."""


def resolve_class(text: str | int) -> int:
    """A class index from '248', 248, a wnid 'n02109961' or a whole class name 'Eskimo dog'
    (any case); every command takes a class so."""
    value = str(text).strip()
    if value.isascii() and value.isdigit():
        if len(value) > 4 or not 0 <= int(value) < NUM_CLASSES:  # never converted when absurdly long
            raise NotInProjectError(f"class {value[:12]}{'…' if len(value) > 12 else ''}: a class index is "
                                    f"0..{NUM_CLASSES - 1}")
        return int(value)
    classes = load_classes()
    try:
        return classes.index(value)
    except KeyError:
        pass
    named = [i for i, name in enumerate(classes.names) if name.lower() == value.lower()]  # names are unique
    if named:
        return named[0]
    from reviewer.classes.search import search_classes

    shown = value if len(value) <= 60 else value[:57] + "..."

    maybe = sorted(search_classes(value[:200]).classes or ())[:5]
    hint = f"; did you mean {', '.join(f'{classes.names[c]} ({c})' for c in maybe)}?" if maybe else ""
    raise NotInProjectError(f"class {shown!r}: give an index 0-999, a wnid or a whole class name{hint}")


def resolve_image(*, session: Session, text: str | int) -> int:
    """An image id from its file name (a path's last part is enough) or its id."""
    value = str(text).strip()
    name = PurePath(value).name
    image_id = session.execute(select(Image.id).where(Image.file_name == name)).scalar_one_or_none()
    if image_id is None and value.isascii() and value.isdigit() and len(value) <= 18:
        image_id = session.execute(select(Image.id).where(Image.id == int(value))).scalar_one_or_none()
    if image_id is None:
        shown = value if len(value) <= 80 else value[:77] + "..."
        raise NotInProjectError(f"image {shown!r} is not in the project (give its file name, "
                                "e.g. ILSVRC2012_val_00000001.JPEG)")
    return image_id


NO_LONGER_A_MISTAKE = "no longer a mistake under the current labels"


class OutsideScopeError(UserError):
    """An item only runs outside the panel's scope made (`reviewer.panel.scope`)."""


class ItemStanding(StrEnum):
    """Where an (image, predicted class) stands for the panel, as `reviewer show`, the window
    and the refusals say it."""

    IN_SCOPE = "a mistake under review"  # a run of the panel's scope makes it
    OUTSIDE_SCOPE = "a mistake of runs outside the panel's scope"
    NO_LONGER_A_MISTAKE = NO_LONGER_A_MISTAKE  # a run predicts it, the current labels accept it or leave the image out
    NOT_A_MISTAKE = "not a mistake of any run"


def item_standing(*, session: Session, item: Item) -> tuple[ItemStanding, tuple[int, ...]]:
    """(where the item stands, the runs that make it a mistake now)."""
    from reviewer.panel.scope import scope_membership

    runs = tuple(sorted(set(session.execute(select(Mistake.run_id).where(
        Mistake.image_id == item.image_id, Mistake.predicted == item.predicted)).scalars())))
    if not runs:
        predicted = session.execute(select(Prediction.run_id).where(
            Prediction.image_id == item.image_id, Prediction.pred_1 == item.predicted).limit(1)).first()
        return (ItemStanding.NO_LONGER_A_MISTAKE if predicted else ItemStanding.NOT_A_MISTAKE), runs
    membership = scope_membership(session)
    inside = any(membership.covers(run_id, item.image_id) for run_id in runs)
    return (ItemStanding.IN_SCOPE if inside else ItemStanding.OUTSIDE_SCOPE), runs


def require_mistake(*, session: Session, item: Item, image: str = "") -> Item:
    """The item, if a run of the panel's scope makes that mistake under the current
    labels; else a clear error: not a mistake, no longer one (its history is kept), or a
    mistake of runs outside the scope."""
    standing, runs = item_standing(session=session, item=item)
    name = f"image {image or item.image_id} predicted {item.predicted}"
    if standing == ItemStanding.NO_LONGER_A_MISTAKE:
        raise NotInProjectError(f"{name} is {NO_LONGER_A_MISTAKE} (the labels imported since accept the "
                                "prediction, or took the image out of the review): any votes, notes and decisions "
                                "on it are kept, and nothing more is asked of the panel ('reviewer show' gives its "
                                "history)")
    if standing == ItemStanding.NOT_A_MISTAKE:
        raise NotInProjectError(f"{name} is not a mistake of any run of this project ('reviewer panel-status PROJECT "
                                "--items' lists them)")
    if standing == ItemStanding.OUTSIDE_SCOPE:
        from reviewer.panel.scope import read_scope

        made = ", ".join(f"#{r}" for r in runs)
        raise OutsideScopeError(f"{name} is a mistake of run{'s' if len(runs) > 1 else ''} {made}, outside the "
                                f"panel's scope ({read_scope(session).describe()}): the chair widens it with "
                                "'reviewer panel-scope PROJECT --add RUN'")
    return item


def require_panelist(*, session: Session, name: str) -> Panelist:
    """The panelist of that name; a typo does not silently add a panelist."""
    row = session.execute(select(Panelist).where(Panelist.name == name.strip())).scalar_one_or_none()
    if row is None:
        known = session.execute(select(Panelist.name).order_by(Panelist.id)).scalars().all()
        listed = ", ".join(known) or "none yet"
        raise NotInProjectError(f"no panelist named {name!r} (panelists: {listed}); add one with "
                                f"'reviewer panelist PROJECT {name}'")
    return row


def image_names(*, session: Session, image_ids: list[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    ids = sorted(set(image_ids))
    for start in range(0, len(ids), 900):  # SQLite's bound-parameter limit
        out.update(session.execute(select(Image.id, Image.file_name).where(Image.id.in_(ids[start:start + 900]))).all())
    return out


def find_mistake(*, session: Session, image: str | None, predicted: str | None) -> Item:
    """The item a user names by image file name and predicted class (index or wnid)."""
    if not image or predicted in (None, ""):
        raise NotInProjectError("give both the image (--image FILE) and the predicted class (--predicted CLASS)")
    item = Item(resolve_image(session=session, text=image), resolve_class(predicted))
    return require_mistake(session=session, item=item, image=image)
