"""The zoom probe in the review page: a result stored with the run (by any panelist)
shows as the strip under the image and the chosen scale's nine crops drawn over it,
coloured by what each crop's top-1 is for the mistake."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from reviewer.runs.zoom import ZoomParams, ZoomResult, save_zoom, zoom_grid
from reviewer.ui.review.qt_zoom import OUTCOME_COLOURS

pytestmark = pytest.mark.gui


def test_a_stored_zoom_result_shows_as_strip_and_crops(qtbot, open_window, review_project):
    window = open_window()
    key = window.bridge.state.current_item()
    detail = window.bridge.state.detail(key)
    original = detail.correct[0].index if detail.correct else detail.original_label.index
    params = ZoomParams(scales=(128, 224, 512))
    size = (500, 375)
    result = ZoomResult.empty(params, model="resnet50", weights_sha256=None, image_size=size)
    # 128: every crop says the prediction; 224: the centre crop says the label; 512: one crop another class.
    for scale in params.scales:
        for row in range(3):
            for col in range(3):
                top = key.predicted
                if scale == 224 and (row, col) == (1, 1):
                    top = original
                if scale == 512 and (row, col) == (0, 0):
                    top = (key.predicted + 500) % 1000
                result.set_cell(scale, row, col, np.array([top, 1, 2, 3, 4]), np.array([0.6, .1, .1, .1, .1]))
    review_project.write(lambda s: save_zoom(session=s, run_id=review_project.run_id, image=key.image_id,
                                             predicted=key.predicted, result=result))
    # Shown again (as on reopening): the stored result is read for the mistake.
    window.page.zoom.item = None
    window.page.zoom.show_mistake(review_project, review_project.run_id, key)
    qtbot.waitUntil(lambda: window.page.zoom.view is not None, timeout=20_000)
    zoom = window.page.zoom
    assert zoom.isVisible() and "1 crop answers an accepted label (scales 224)" in zoom.summary.text()
    # The scale drawn first is the one that corrects the mistake: nine boxes, the centre one green.
    boxes = window.page.image.overlay
    assert len(boxes) == 9 and zoom.selected == 1
    colours = [colour.name() for _, colour, _ in boxes]
    assert colours.count(OUTCOME_COLOURS["accepted"].name()) == 1
    assert colours.count(OUTCOME_COLOURS["prediction"].name()) == 8
    # The boxes are the paper's crops, mapped from the resized image back to the file's pixels.
    expected = zoom_grid(size, [224])
    centre = next(g for g in expected if (g.row, g.col) == (1, 1))
    fx = size[0] / centre.resized[0]
    rect = boxes[4][0]
    assert rect.x() == pytest.approx(centre.box[0] * fx) and rect.width() == pytest.approx(224 * fx)
    # ] steps to the next scale: one crop there is another class (grey).
    qtbot.keyClick(window.page, Qt.Key.Key_BracketRight)
    colours = [colour.name() for _, colour, _ in window.page.image.overlay]
    assert zoom.selected == 2 and colours.count(OUTCOME_COLOURS["other"].name()) == 1
    # X on a complete result hides it, and shows it again.
    qtbot.keyClick(window.page, Qt.Key.Key_X)
    assert window.page.image.overlay == [] and not zoom.isVisible()
    qtbot.keyClick(window.page, Qt.Key.Key_X)
    assert len(window.page.image.overlay) == 9
