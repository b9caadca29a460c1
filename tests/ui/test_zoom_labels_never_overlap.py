"""The zoom probe's crop labels over the image never overlap each other or the corner's fit
badge (issue 35, 6): each sat at its crop's top-left corner, and the nine crops of a scale
overlap (at the small scales they all cover the whole image). A label with too little room
is shortened to the class's first name, then cut with "…", its share kept; the tooltip over a crop gives its label whole. The image view alone."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QColor, QImage

from reviewer.runs.zoom import zoom_grid
from reviewer.ui.qt_image_view import QtImageView

pytestmark = pytest.mark.gui

SIZE = (500, 375)
NAMES = ["Granny Smith", "great white shark, white shark, man-eater", "tench, Tinca tinca", "goldfish",
         "American black bear", "hammerhead, hammerhead shark", "junco, snowbird", "kite", "vulture"]


def crops(scale: int) -> list[tuple[QRectF, QColor, str]]:
    """The nine crops of `scale` as the zoom panel hands them over (file pixels, colour, label)."""
    width, height = SIZE
    image = QRectF(0, 0, width, height)
    out = []
    for k, grid in enumerate(zoom_grid(SIZE, [scale])):
        left, top, right, bottom = grid.box
        fx, fy = width / grid.resized[0], height / grid.resized[1]
        box = QRectF(left * fx, top * fy, (right - left) * fx, (bottom - top) * fy).intersected(image)
        out.append((box, QColor("#d04040"), f"{NAMES[k]} {60 + k}%"))
    return out


@pytest.mark.parametrize("scale", [64, 224, 384, 1024])
def test_no_label_covers_another_or_the_badge(qtbot, scale):
    view = QtImageView()
    qtbot.addWidget(view)
    view.resize(QSize(620, 420))
    view.show()
    qtbot.waitExposed(view)
    image = QImage(*SIZE, QImage.Format.Format_RGB32)
    image.fill(QColor("#808080"))
    view.show_image(image, QSize(*SIZE))
    view.set_overlay(crops(scale))
    view.grab()  # painted (the labels are placed as they are painted)
    placed = view.placed_labels
    assert len(placed) >= 5, [p.text for p in placed]  # most crops are named on the image
    for a, b in itertools.combinations(placed, 2):
        assert not a.band.intersects(b.band), (a.text, b.text)
    badge = view._scale_box(view.fontMetrics())
    assert view.scale_text() and all(not p.band.intersects(badge) for p in placed)
    for p in placed:
        assert p.text.endswith(p.whole.rsplit(" ", 1)[1])  # shortened or cut, the share is kept
        assert view.labels_at(p.band.center()) == [p.whole]  # the tooltip there has it whole
