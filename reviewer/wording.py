"""Small pieces of the app's English, shared by every message."""

from __future__ import annotations


def counted(n: int, word: str, plural: str | None = None) -> str:
    """'1 image', '3 images'; `plural` where adding an s is wrong ('1 class', '3 classes')."""
    return f"{n} {word if n == 1 else plural or word + 's'}"
