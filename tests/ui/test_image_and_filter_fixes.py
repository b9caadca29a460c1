"""What a panelist sees of the file itself (1:1 on a small photo, a damaged
file), a partial class name in the queue filter, and a new run's name among
other runs' top-1: driven through the real window with keys."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer.ui.image_loader import ImageKey, decode

pytestmark = pytest.mark.gui


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(QApplication.focusWidget() or window, key, modifier)


def show(qtbot, window, file_name: str) -> None:
    bridge = window.bridge
    names = [e.file_name for e in bridge.state.queue.shown()]
    if bridge.state.current().file_name != file_name:
        with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
            bridge.state.go_to(names.index(file_name))


def test_fit_never_blows_a_small_file_up_unless_asked(qtbot, open_window):
    window = open_window()
    image = window.page.image
    show(qtbot, window, "n01440764_tench.JPEG")  # 500 px wide, the view is larger
    original = image._original
    # Fit shows the file's own pixels (100 %), decoded unscaled, not enlarged and blurred.
    qtbot.waitUntil(lambda: image.image_size() == original, timeout=10_000)
    assert image.is_fit() and image.zoom() == 1.0
    assert image.scale_text() == f"{original.width()} × {original.height()} px · fit 100 %"
    # Asked for (View menu, kept in the preferences): fit enlarges it to the view.
    window.enlarge_action.setChecked(True)
    assert window.prefs.enlarge_small_images
    qtbot.waitUntil(lambda: image.image_size().width() > original.width(), timeout=10_000)
    assert image.is_fit() and image.zoom() > 1.0
    press(qtbot, window, Qt.Key.Key_Z)  # 1:1: the file decoded unscaled, painted pixel for pixel
    qtbot.waitUntil(lambda: image.image_size() == original, timeout=10_000)
    assert image.zoom() == 1.0 and not image.is_fit()
    assert image.scale_text().endswith("· 100 %")
    press(qtbot, window, Qt.Key.Key_Z)  # again: back to fit
    assert image.is_fit()
    window.enlarge_action.setChecked(False)
    qtbot.waitUntil(lambda: image.image_size() == original, timeout=10_000)


def test_a_file_cut_short_is_flagged_over_the_image(qtbot, open_window, review_project, shared_data):
    path = review_project.root.parent / "images" / "n02123045_tabby.JPEG"
    whole = path.read_bytes()
    assert decode(ImageKey(str(path), 800, 600)).warning == ""  # an intact file is not flagged
    path.write_bytes(whole[: len(whole) // 2])  # libjpeg still decodes it, the rest grey
    window = open_window()
    show(qtbot, window, "n02123045_tabby.JPEG")
    assert window.page.image.has_image()
    assert "cut short" in window.page.image.warning
    show(qtbot, window, "n04285008_sports_car.JPEG")  # an intact file clears the warning
    assert window.page.image.warning == ""


def test_a_partial_class_name_filters_by_every_matching_class(qtbot, open_window):
    window = open_window()
    bridge, panel = window.bridge, window.page.queue_panel
    press(qtbot, window, Qt.Key.Key_Slash)
    # "retriever": golden retriever (a label) and Labrador retriever (a prediction),
    # not just the first class whose name contains the word.
    qtbot.keyClicks(panel.class_filter, "retriever")
    qtbot.waitUntil(lambda: len(bridge.state.queue) == 1, timeout=5_000)
    assert bridge.state.current().file_name == "n02099601_golden_retriever.JPEG"
    assert "classes" in panel.class_hint.text()
    panel.class_filter.setText("terrier")  # no mistake of this run has a terrier
    qtbot.waitUntil(lambda: len(bridge.state.queue) == 0, timeout=5_000)
    panel.class_filter.setText("crane")  # the wading bird and the lifting device: both count
    assert panel.current_filter().classes is not None and len(panel.current_filter().classes) == 2


def test_a_run_made_in_the_window_is_named_among_other_runs(qtbot, open_window, review_project):
    from review_data import add_run

    window = open_window()
    first_run = window.bridge.state.run_id
    ids = review_project.ids
    add_run(review_project, "vit_small_patch16_224", {ids["n01440764_tench.JPEG"]: 2})
    with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
        window.reload_runs(select=first_run)  # what a finished run dialog does
    show(qtbot, window, "n01440764_tench.JPEG")
    detail = window.bridge.state.detail(window.bridge.state.current_item())
    assert [r.model for r in detail.other_runs] == ["vit_small_patch16_224"]
    assert "vit_small_patch16_224" in window.page.details.other_runs.text()


def test_the_scale_in_the_corner_is_the_scale_painted(qtbot):
    """A fit image decoded for a slightly smaller view is painted 1:1 (one blit) at 384x480 of
    a 400x500 file: the corner says 96 %, what is on screen, not the exact fit's 99 %."""
    from PySide6.QtCore import QSize
    from PySide6.QtGui import QImage

    from reviewer.ui.app import create_app
    from reviewer.ui.qt_image_view import QtImageView

    create_app()
    view = QtImageView()
    qtbot.addWidget(view)
    view.resize(500, 503)  # fit bounds 492 x 495: the exact fit of 400 x 500 is 99 %
    view.show()
    qtbot.waitExposed(view)
    ratio = view.devicePixelRatioF()
    image = QImage(int(384 * ratio), int(480 * ratio), QImage.Format.Format_RGB32)
    image.fill(0x336699)
    view.show_image(image, QSize(int(400 * ratio), int(500 * ratio)))
    assert round(view.fit_scale() * 100) == 99
    assert view.scale_text().endswith("fit 96 %"), view.scale_text()
    view.zoom_actual()
    assert view.scale_text().endswith("100 %") and "fit" not in view.scale_text()


def test_clearing_the_class_filter_pops_up_no_list_of_every_class(qtbot, open_window):
    """The class field's x button empties it: no completer popup listing all classes opens
    (it took the next Escape and Space, and Ctrl+G did nothing while it was open)."""
    from PySide6.QtWidgets import QToolButton

    window = open_window()
    field = window.page.queue_panel.class_filter
    field.setFocus()
    qtbot.keyClicks(field, "frog")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    popup = field.completer().popup()
    popup.hide()
    clear = next(b for b in field.findChildren(QToolButton) if b.isVisible())
    qtbot.mouseClick(clear, Qt.MouseButton.LeftButton)
    qtbot.wait(100)
    assert field.text() == "" and not popup.isVisible()
