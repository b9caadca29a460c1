"""A rerun on a slice from the window: the run dialog's Images and Decoding choices
reach reviewer.runs.compute.predict, and the new run covers only the slice's images."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from sqlalchemy import select

from db.engine import read_session
from db.tables import Prediction, Run
from reviewer.evaluation.slices import save_slice

pytestmark = pytest.mark.gui


def test_run_on_a_slice_predicts_only_its_images(qtbot, open_window, review_project, tiny_checkpoint):
    # Three images that have files: the slice a panelist reruns a model on.
    names = ("n01440764_tench.JPEG", "n01443537_goldfish.JPEG", "n02123045_tabby.JPEG")
    chosen = sorted(review_project.ids[name] for name in names)
    review_project.write(lambda session: save_slice(session=session, name="imagenet_m", image_ids=chosen))
    window = open_window()
    dialog = window.open_run_dialog(model="test_efficientnet")
    qtbot.addWidget(dialog)
    dialog.checkpoint.setText(str(tiny_checkpoint))
    choices = [dialog.images.itemText(i) for i in range(dialog.images.count())]
    assert choices == ["All images", "imagenet_m (3 images)"]
    assert dialog.image_slice() is None  # all images unless the panelist picks a slice
    dialog.images.setCurrentIndex(1)
    assert dialog.decoding.currentData() is False  # timm's exact preprocessing unless asked
    dialog.decoding.setCurrentIndex(1)  # fast JPEG decoding, recorded with the run
    with qtbot.waitSignal(dialog.run_finished, timeout=120_000) as finished:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        assert not dialog.images.isEnabled() and not dialog.decoding.isEnabled()  # fixed while the model runs
    run_id = finished.args[0]
    assert dialog.status.text().startswith("Complete: 3 images")
    with read_session(review_project.engine) as session:
        run = session.get(Run, run_id)
        assert (run.image_slice, run.status) == ("imagenet_m", "complete")
        assert run.preprocessing["jpeg_draft"] is True
        predicted = session.execute(select(Prediction.image_id).where(Prediction.run_id == run_id)).scalars().all()
    assert sorted(predicted) == chosen
    # The window lists the new run beside the first, which covered all 8 images, and offers
    # it (a finished run does not take over the queue under review); the offer opens it.
    qtbot.waitUntil(window.show_run_button.isVisible, timeout=10_000)
    window.show_run_button.click()
    qtbot.waitUntil(lambda: window.run_combo.currentData() == run_id, timeout=10_000)
    assert "3 images" in window.run_combo.currentText()
    dialog.close()
