"""Where the zoom probe's crop labels go over the image, so that none overlaps another or the
corner's fit badge (issue 35, 6).

Each label sat at its crop's top-left corner. The nine crops of a scale overlap (at the small
scales they all cover the whole image), so their labels were drawn over each other and over
the badge. Here each label takes the first free place inside its crop, from the top down,
at the left edge then the right; where none is free at its whole width it is cut with "…"
to a narrower one, and where even the narrowest finds no room it is left out. The image view's
tooltip gives every crop's label whole (`QtImageView` asks `labels_at`).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetrics

PAD = 3  # between a crop's edge and its label
GAP = 2  # between two labels
NARROWEST = 36  # px of text: narrower, a label says nothing


@dataclass(frozen=True)
class PlacedLabel:
    band: QRectF  # the label's plate, in widget coordinates
    text: str  # as drawn (cut with "…" where narrower than the whole)
    whole: str
    index: int  # the crop's index in the overlay


def place_labels(boxes: list[QRectF], labels: list[str], metrics: QFontMetrics, *, bounds: QRectF,
                 avoid: list[QRectF] = ()) -> list[PlacedLabel]:
    """The labels' places (crops in widget coordinates, `labels` "" for none): inside their
    crops and `bounds`, clear of each other and of `avoid`. A label with no room is left out."""
    taken = [QRectF(r) for r in avoid]
    placed = []
    height = metrics.height() + 2
    for index, (box, label) in enumerate(zip(boxes, labels)):
        if not label:
            continue
        room = box.intersected(bounds).adjusted(PAD, PAD, -PAD, -PAD)
        if room.width() < NARROWEST + 8 or room.height() < height:
            continue
        found = None
        for text in _shorter(label, metrics, room.width() - 8):
            found = _first_free(room, metrics.horizontalAdvance(text) + 8, height, taken)
            if found is not None:
                break
        if found is None:
            continue
        taken.append(found.adjusted(-GAP, -GAP, GAP, GAP))
        placed.append(PlacedLabel(found, text, label, index))
    return placed


def _shorter(label: str, metrics: QFontMetrics, room: float) -> list[str]:
    """`label` ("tench, Tinca tinca 61%") as it may be drawn, best first: whole, the class's first
    name ("tench 61%"), then that name cut with "…" ever shorter; the share always kept."""
    name, share = label.rsplit(" ", 1) if label.endswith("%") and " " in label else (label, "")
    tail = f" {share}" if share else ""
    short = name.split(", ")[0]
    out = [label, short + tail]
    full = metrics.horizontalAdvance(short)
    for width in (full * 2 // 3, full // 2, NARROWEST - metrics.horizontalAdvance(tail)):
        room_for_name = min(width, room - metrics.horizontalAdvance(tail))
        if room_for_name >= metrics.horizontalAdvance("W…"):
            out.append(metrics.elidedText(short, Qt.TextElideMode.ElideRight, int(room_for_name)) + tail)
    if share:
        out.append(share)
    return [t for t in dict.fromkeys(out) if metrics.horizontalAdvance(t) <= room]


def _first_free(room: QRectF, width: float, height: float, taken: list[QRectF]) -> QRectF | None:
    """The first place in `room`, top down, left then right, where a `width` x `height` band
    touches none of `taken`."""
    y = room.top()
    while y + height <= room.bottom():
        for x in (room.left(), room.right() - width):
            band = QRectF(x, y, width, height)
            if not any(band.intersects(other) for other in taken):
                return band
        y += height + GAP
    return None
