"""Finding classes from what a user types in a class filter: an index ("248"), a wnid
("n02109961"), a whole display name ("Eskimo dog") or part of names ("dog": every
class whose name contains it, predicted or labelled, not the first in index order)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from reviewer.classes.vocabulary import load_classes


@dataclass(frozen=True)
class ClassSearch:
    """The classes the text names (None: an empty text, no filter; empty: nothing
    matches) and a sentence saying which, for the filter's hint."""

    classes: frozenset[int] | None
    description: str


def search_classes(text: str) -> ClassSearch:
    text = text.strip()
    if not text:
        return ClassSearch(None, "")
    classes = load_classes()
    if text.isascii() and text.isdigit() and len(text) <= 4 and int(text) < len(classes):
        return _one(int(text))
    if text in classes.wnids:
        return _one(classes.index(text))
    lowered = text.lower()
    matches = _by_name().get(lowered) or [i for i, name in enumerate(classes.names) if lowered in name.lower()]
    if not matches:
        return ClassSearch(frozenset(), f"No class matches “{text}”.")
    if len(matches) == 1:
        return _one(matches[0])
    shown = ", ".join(classes.names[i] for i in matches[:4])
    more = f" and {len(matches) - 4} more" if len(matches) > 4 else ""
    return ClassSearch(frozenset(matches), f"Predicted or labelled, any of {len(matches)} classes: {shown}{more}.")


def class_names_for_completion() -> list[str]:
    """Every class's display name once, case-insensitively sorted (what a completer offers)."""
    return sorted(set(load_classes().names), key=str.lower)


def _one(index: int) -> ClassSearch:
    classes = load_classes()
    return ClassSearch(frozenset({index}), f"Predicted or labelled: {classes.names[index]} ({classes.wnids[index]})")


@lru_cache(maxsize=1)
def _by_name() -> dict[str, list[int]]:
    """Lower-cased whole name -> classes: a whole name picks its class even where it is
    part of other names ("goose", not also "mongoose")."""
    index: dict[str, list[int]] = {}
    for i, name in enumerate(load_classes().names):
        index.setdefault(name.lower(), []).append(i)
    return index
