"""Screenshots of the main states at the two sizes a panel works at: saved to
tests/screenshots/ for a person to look at, and checked to be neither blank
nor grown past the screen (a widget whose minimum width exceeds the window)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from reviewer.app import panel as acts
from reviewer.app.preferences import Preferences
from reviewer.ui.app import create_app
from reviewer.ui.qt_main_window import QtMainWindow

pytestmark = pytest.mark.gui
SHOTS = Path(__file__).resolve().parent.parent / "screenshots"
SIZES = [(1280, 800), (1920, 1080)]


def check_and_save(image: QImage, name: str, size: tuple[int, int] | None = None) -> None:
    SHOTS.mkdir(exist_ok=True)
    assert image.save(str(SHOTS / f"{name}.png"))
    if size is not None:
        assert (image.width(), image.height()) == size, f"{name}: the window grew to fit its contents"
    colours, most = {}, 0
    step = max(1, min(image.width(), image.height()) // 60)
    for y in range(0, image.height(), step):
        for x in range(0, image.width(), step):
            pixel = image.pixel(x, y)
            colours[pixel] = colours.get(pixel, 0) + 1
            most = max(most, colours[pixel])
    samples = sum(colours.values())
    assert len(colours) > 30, f"{name}: {len(colours)} colours, looks blank"
    assert most / samples < 0.9, f"{name}: {most / samples:.0%} of it one colour"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_main_states(qtbot, review_project, tiny_checkpoint, size, monkeypatch):
    create_app()
    window = QtMainWindow(preferences=Preferences(panelist_name="ann", recent_projects=[str(review_project.root)]))
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    tag = f"{size[0]}x{size[1]}"
    check_and_save(window.grab().toImage(), f"start_{tag}", size)

    with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
        window.open_project(str(review_project.root))
    qtbot.wait(400)  # thumbnails and the list follow the mistake
    assert window.minimumSizeHint().width() <= size[0]
    check_and_save(window.grab().toImage(), f"mistake_{tag}", size)

    qtbot.keyClick(window, Qt.Key.Key_W)  # a vote half-way: wrong, severity and category still to choose
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    window.trigger("help")
    qtbot.wait(50)
    check_and_save(window.grab().toImage(), f"help_{tag}", size)
    window.trigger("help")

    # The key editor, over the window as a panelist opens it (Ctrl+K).
    from reviewer.ui.dialogs.qt_keymap_dialog import QtKeymapDialog

    editor = QtKeymapDialog(window.keymap, window)
    qtbot.addWidget(editor)
    editor.show()
    qtbot.waitExposed(editor)
    check_and_save(editor.grab().toImage(), f"key_editor_{tag}")
    editor.reject()

    # Not blind, with another panelist's vote; then the missing file's placeholder.

    key = window.bridge.state.current_item()
    bob = acts.add_panelist(review_project, "bob").value.id
    acts.vote(review_project, panelist_id=bob, item=key, verdict="wrong",
              severity="minor", category="fine_grained", note="the fins say goldfish")
    window.blind_box.setChecked(False)
    qtbot.waitUntil(lambda: "bob" in window.page.vote_panel.others.text(), timeout=10_000)
    check_and_save(window.grab().toImage(), f"not_blind_{tag}", size)
    window.blind_box.setChecked(True)
    names = [e.file_name for e in window.bridge.state.queue.shown()]
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        window.bridge.state.go_to(names.index("n02099601_golden_retriever.JPEG"))
    qtbot.waitUntil(lambda: window.page.image.message == "Image file not found", timeout=10_000)
    check_and_save(window.grab().toImage(), f"missing_image_{tag}", size)

    # The queue narrowed by a filter: unvoted, most confident first, dogs only.
    panel = window.page.queue_panel
    panel.set_status("unvoted")
    panel.sort.setCurrentIndex(panel.sort.findData("confidence_desc"))
    panel.class_filter.setText("retriever")
    qtbot.waitUntil(lambda: "classes" in panel.class_hint.text(), timeout=5_000)
    qtbot.wait(400)
    check_and_save(window.grab().toImage(), f"queue_filtered_{tag}", size)

    # The run dialog mid-run: the tiny model held after its first batch.
    import reviewer.runs.compute

    original = reviewer.runs.compute.predict
    monkeypatch.setattr(reviewer.runs.compute, "predict", lambda *a, **k: original(*a, batch_size=2, **k))
    dialog = window.open_run_dialog(model="test_efficientnet")
    qtbot.addWidget(dialog)
    dialog.checkpoint.setText(str(tiny_checkpoint))
    first, release = threading.Event(), threading.Event()
    report = dialog._on_progress

    def progress(p):
        report(p)
        if p.done > 0:
            first.set()
            release.wait(30)

    dialog._on_progress = progress
    dialog.start()
    qtbot.waitUntil(first.is_set, timeout=60_000)
    qtbot.waitUntil(lambda: "images/s" in dialog.status.text(), timeout=5_000)
    check_and_save(dialog.grab().toImage(), f"run_dialog_{tag}")
    dialog.cancel()
    release.set()
    qtbot.waitUntil(lambda: not dialog.running, timeout=60_000)
    dialog.close()
    window.close()
