"""Running a model from the window: progress, Cancel, resume, and the new run opened."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from sqlalchemy import select

from db.engine import read_session
from db.tables import Run

pytestmark = pytest.mark.gui


def test_run_dialog_cancel_then_resume_opens_the_new_run(qtbot, open_window, review_project, tiny_checkpoint):
    window = open_window()
    dialog = window.open_run_dialog(model="test_efficientnet")
    qtbot.addWidget(dialog)
    dialog.checkpoint.setText(str(tiny_checkpoint))
    # Hold the run after its first batch until Cancel has been clicked, as a panelist
    # would click it mid-run (the run checks for a cancel after each batch).
    first_batch, clicked = threading.Event(), threading.Event()
    report = dialog._on_progress

    def progress(p):
        report(p)
        if p.done > 0 and not first_batch.is_set():
            first_batch.set()
            clicked.wait(30)

    dialog._on_progress = progress
    import reviewer.runs.compute

    original_predict = reviewer.runs.compute.predict

    def small_batches(*args, **kwargs):
        return original_predict(*args, batch_size=2, **kwargs)

    reviewer.runs.compute.predict = small_batches
    try:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(first_batch.is_set, timeout=60_000)
        # The label is polled: it can still say "0 of 7 images · measuring the speed…" for a moment.
        qtbot.waitUntil(lambda: "images/s" in dialog.status.text(), timeout=5_000)
        assert "of 7 images" in dialog.status.text() and "left" in dialog.status.text()
        # The window answers keys while the model runs.
        row = window.bridge.state.row
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
        qtbot.keyClick(window, Qt.Key.Key_J)
        assert window.bridge.state.row == row + 1
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
        assert "Cancelling" in dialog.status.text()
        clicked.set()
        with qtbot.waitSignal(dialog.run_stopped, timeout=60_000) as stopped:
            pass
        run_id = stopped.args[0]
        assert "Cancelled at 2 of 7 images" in dialog.status.text()
        with read_session(review_project.engine) as session:
            assert session.get(Run, run_id).status == "cancelled"
        # Start again: the run resumes and, once complete, is offered beside the run under
        # review (not switched to); the offer opens its mistakes.
        with qtbot.waitSignal(dialog.run_finished, timeout=120_000) as finished:
            qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        assert finished.args == [run_id]
        qtbot.waitUntil(window.show_run_button.isVisible, timeout=5_000)
        with qtbot.waitSignal(window.run_opened, timeout=10_000) as opened:
            window.show_run_button.click()
        assert opened.args == [run_id]
        # Six predicted: the file of the seventh went missing after the import.
        assert dialog.status.text().startswith("Complete: 6 images, 6 mistakes")
        assert "1 image skipped" in dialog.status.text()
        with read_session(review_project.engine) as session:
            assert session.execute(select(Run.status).where(Run.id == run_id)).scalar_one() == "complete"
        assert window.run_combo.currentData() == run_id
        qtbot.waitUntil(lambda: window.bridge.state.queue is not None and window.bridge.state.queue.run_id == run_id,
                        timeout=10_000)
    finally:
        reviewer.runs.compute.predict = original_predict
        dialog.close()


def test_a_bad_model_name_is_reported_in_the_dialog(qtbot, open_window):
    window = open_window()
    dialog = window.open_run_dialog(model="no_such_model_xyz")
    qtbot.addWidget(dialog)
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=30_000)
    assert "no_such_model_xyz" in dialog.status.text()
    assert dialog.start_button.isEnabled()
    dialog.close()


def test_the_precision_chosen_in_the_dialog_is_explained_run_and_recorded(qtbot, open_window, review_project,
                                                                          tiny_checkpoint):
    from reviewer.app.runs import auto_device

    window = open_window()
    dialog = window.open_run_dialog(model="test_efficientnet")
    qtbot.addWidget(dialog)
    dialog.checkpoint.setText(str(tiny_checkpoint))
    # fp32, exact, unless the panelist chooses otherwise; once torch has said what "auto"
    # computes on, a machine without a GPU is told which choices apply there.
    assert dialog.precision.currentData() == "fp32"
    assert dialog.precision_note.text().startswith("Exact")
    without_gpu = auto_device() == "cpu"
    qtbot.waitUntil(lambda: dialog._auto_device is not None, timeout=60_000)
    assert ("tf32 computes exactly as fp32" in dialog.precision_note.text()) == without_gpu
    dialog.device.setCurrentText("cpu")
    assert "tf32 computes exactly as fp32" in dialog.precision_note.text()
    # The panelist picks bf16 from the list with the keyboard.
    dialog.precision.setFocus()
    while dialog.precision.currentData() != "bf16":
        qtbot.keyClick(dialog.precision, Qt.Key.Key_Down)
    assert dialog.precision_note.text().startswith("bfloat16 autocast")
    with qtbot.waitSignal(dialog.run_finished, timeout=120_000) as finished:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        assert not dialog.precision.isEnabled()  # not changed under a running run
    run_id = finished.args[0]
    assert "computed in bf16" in dialog.status.text()
    assert dialog.precision.isEnabled()
    with read_session(review_project.engine) as session:
        run = session.get(Run, run_id)
        assert run.preprocessing["precision"] == "bf16" and run.report["precision"] == "bf16"
    dialog.close()
