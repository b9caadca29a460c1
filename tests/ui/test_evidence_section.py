"""The review page's "Published evidence" section: one line per imported source about
the shown mistake, and the preference that keeps it hidden until my verdict."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from reviewer.app.evidence import import_evidence

pytestmark = pytest.mark.gui

VAL1 = "ILSVRC2012_val_00000001.JPEG"  # the review project's labels-only image, predicted 66


def go_to_val1(qtbot, window, review_project):
    bridge = window.bridge
    row = bridge.state.queue.row_of((review_project.ids[VAL1], 66))
    if bridge.state.row == row:
        return
    with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
        bridge.state.go_to(row)
    qtbot.waitUntil(lambda: window.page.details._detail is not None
                    and window.page.details._detail.image_id == review_project.ids[VAL1], timeout=20_000)


def test_the_evidence_of_the_shown_mistake_and_hiding_it_until_i_vote(qtbot, open_window, review_project,
                                                                          shared_data):
    real = shared_data / "published" / "real" / "real.json"
    expected = json.loads(real.read_text())[0]  # ReaL's labels of val_00000001
    window = open_window()
    text = window.page.details.evidence.text()
    assert "no published relabeling imported" in text
    import_evidence(review_project, [real])
    window.watcher.poll()  # as the poll would, within a second
    go_to_val1(qtbot, window, review_project)
    qtbot.waitUntil(lambda: "ReaL" in window.page.details.evidence.text(), timeout=20_000)
    text = window.page.details.evidence.text()
    assert expected == []  # ReaL leaves val_00000001 out: it says so, and takes no side on the prediction
    assert "<b>ReaL</b>: no label: the image is left out of ReaL accuracy" in text and "✗" not in text

    # Independent judgements: hidden until my verdict, then shown.
    window.set_evidence_before_vote(False)
    assert "hidden until you give your verdict" in window.page.details.evidence.text()
    qtbot.keyClick(window.page, Qt.Key.Key_2)  # a verdict (wrong) on this mistake
    qtbot.waitUntil(lambda: "left out of ReaL" in window.page.details.evidence.text()
                    or window.bridge.state.current_item() != (review_project.ids[VAL1], 66), timeout=20_000)
    go_to_val1(qtbot, window, review_project)
    assert "left out of ReaL" in window.page.details.evidence.text()
    window.set_evidence_before_vote(True)
