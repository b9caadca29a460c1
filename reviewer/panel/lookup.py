"""Names a user types for an item: an image's file name and a class (index or wnid)."""

from __future__ import annotations

from pathlib import PurePath

from sqlalchemy import func, select

from db.engine import read_session
from db.tables import Image, Mistake, Reviewer
from reviewer.errors import UserError
from reviewer.panel.votes import Item
from reviewer.project import Project
from reviewer.classes.vocabulary import NUM_CLASSES, load_classes


class NotInProjectError(UserError):
    """An image, class, item or reviewer name that is not in the project."""


def resolve_class(text: str | int) -> int:
    """A class index from '248', 248 or a wnid 'n02109961'."""
    value = str(text).strip()
    if value.isdigit():
        index = int(value)
        if not 0 <= index < NUM_CLASSES:
            raise NotInProjectError(f"class {value}: a class index is 0..{NUM_CLASSES - 1}")
        return index
    try:
        return load_classes().index(value)
    except KeyError as exc:
        raise NotInProjectError(f"class {value!r}: give a class index (0..999) or a wnid ({exc.args[0]})") from None


def resolve_image(project: Project, text: str | int) -> int:
    """An image id from its file name (a path's last part is enough) or its id."""
    value = str(text).strip()
    name = PurePath(value).name
    with read_session(project.engine) as session:
        image_id = session.execute(select(Image.id).where(Image.file_name == name)).scalar_one_or_none()
        if image_id is None and value.isdigit():
            image_id = session.execute(select(Image.id).where(Image.id == int(value))).scalar_one_or_none()
    if image_id is None:
        raise NotInProjectError(f"image {value!r} is not in project {project.root} (give its file name, "
                           "e.g. ILSVRC2012_val_00000001.JPEG)")
    return image_id


def require_mistake(project: Project, image_id: int, predicted: int, *, image: str = "") -> Item:
    """The item, if some run of the project made that mistake; else a clear error."""
    with read_session(project.engine) as session:
        found = session.execute(select(func.count(Mistake.id)).where(
            Mistake.image_id == image_id, Mistake.predicted == predicted)).scalar_one()
    if not found:
        raise NotInProjectError(f"image {image or image_id} predicted {predicted} is not a mistake of any run of this "
                           "project ('reviewer panel-status PROJECT --items' lists them)")
    return Item(image_id, predicted)


def require_reviewer(project: Project, name: str) -> Reviewer:
    """The panelist of that name; a typo does not silently add a panelist."""
    with read_session(project.engine) as session:
        row = session.execute(select(Reviewer).where(Reviewer.name == name.strip())).scalar_one_or_none()
        known = session.execute(select(Reviewer.name).order_by(Reviewer.id)).scalars().all()
    if row is None:
        listed = ", ".join(known) or "none yet"
        raise NotInProjectError(f"no panelist named {name!r} (panelists: {listed}); add one with "
                           f"'reviewer panelist {project.root} {name}'")
    return row


def image_names(project: Project, image_ids: list[int]) -> dict[int, str]:
    with read_session(project.engine) as session:
        return dict(session.execute(select(Image.id, Image.file_name).where(Image.id.in_(image_ids))).all())


def find_mistake(project: Project, image: str | None, predicted: str | None) -> Item:
    """The item a user names by image file name and predicted class (index or wnid)."""
    if not image or predicted in (None, ""):
        raise NotInProjectError("give both the image (--image FILE) and the predicted class (--predicted CLASS)")
    return require_mistake(project, resolve_image(project, image), resolve_class(predicted), image=image)
