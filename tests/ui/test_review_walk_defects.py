"""The review page's smaller defects of issue 23's walk: an empty out-of-vocabulary
name, and the zoom probe's crops over the image."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer.app import panel as acts

pytestmark = pytest.mark.gui


def press(qtbot, window, key):
    qtbot.keyClick(QApplication.focusWidget() or window, key)


def test_an_empty_object_name_asks_again_and_escape_says_nothing_was_recorded(qtbot, open_window, review_project):
    window = open_window()
    page, key = window.page, window.bridge.state.current_item()
    for k in (Qt.Key.Key_W, Qt.Key.Key_M, Qt.Key.Key_O):
        press(qtbot, window, k)
    field = page.vote_panel.field
    assert field.isVisible()
    qtbot.keyClick(field, Qt.Key.Key_Return)  # no name typed
    # Still asking, saying why; nothing recorded as fine-grained OOV.
    assert field.isVisible() and QApplication.focusWidget() is field
    assert page.vote_panel.asking() == "oov_name"
    assert page.vote_panel._field_label.text().startswith("A name is needed")
    assert "needs the object's name" in window.status_text.text()
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    assert acts.my_vote(review_project, panelist_id=window.panelist.id, item=key).category is None
    # Escape cancels, and says so.
    qtbot.keyClick(field, Qt.Key.Key_Escape)
    assert not field.isVisible()
    assert window.status_text.text().startswith("Not recorded: the out-of-vocabulary category needs")
    # Asked again, a name records it.
    press(qtbot, window, Qt.Key.Key_O)
    qtbot.keyClicks(field, "carp")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    state = acts.my_vote(review_project, panelist_id=window.panelist.id, item=key)
    assert (state.category, state.oov_name) == ("fine_grained_oov", "carp")


def test_zoom_crops_stay_inside_the_image_and_leave_it_visible(qtbot, open_window, review_project):
    import numpy as np
    from PySide6.QtCore import QRectF

    from reviewer.runs.zoom import ZoomParams, ZoomResult, save_zoom

    window = open_window()
    key = window.bridge.state.current_item()
    image = window.page.image
    size = (image.image_size().width(), image.image_size().height())
    params = ZoomParams(scales=(128, 224))  # at 128 the 224-pixel crops reach past the image
    result = ZoomResult.empty(params, model="resnet50", weights_sha256=None, image_size=size)
    for scale in params.scales:
        for row in range(3):
            for col in range(3):
                result.set_cell(scale, row, col, np.array([key.predicted, 1, 2, 3, 4]), np.full(5, 0.2))
    review_project.write(lambda s: save_zoom(session=s, run_id=review_project.run_id, image=key.image_id,
                                             predicted=key.predicted, result=result))
    window.page.zoom.item = None
    window.page.zoom.show_mistake(review_project, review_project.run_id, key)
    qtbot.waitUntil(lambda: len(image.overlay) == 9, timeout=20_000)
    window.page.zoom.pick_scale(0)
    bounds = QRectF(0, 0, *size)
    rects = [rect for rect, _, _ in image.overlay]
    assert all(bounds.contains(rect) for rect in rects), [r.getRect() for r in rects]
    assert any(rect.width() < 223 * size[0] / 128 for rect in rects)  # clipped, not the whole crop
    # The image inside the boxes is as it is without them: outlines, no tint over the object.
    centre = image._target_rect().center().toPoint()
    with_boxes = image.grab().toImage().pixelColor(centre)
    boxes = image.overlay
    image.set_overlay([])
    assert image.grab().toImage().pixelColor(centre) == with_boxes
    image.set_overlay(boxes)
