"""A one-line label ends in "…" where it is cut and shows its whole text as a tooltip
(issue 23's 1280x720 walk: the review page's line under the headline was clipped
mid-word, "... novel · WordNe", with nothing to say more followed)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFontMetrics

from reviewer.ui.qt_elided_label import QtElidedLabel

LINE = ('3 of 121 · <span style="color:#e3b341">phase 2: rate severity and category</span> · '
        "n01608432_kite.JPEG · novel · WordNet distance 9")
PLAIN = "3 of 121 · phase 2: rate severity and category · n01608432_kite.JPEG · novel · WordNet distance 9"


def test_a_line_too_long_for_its_place_ends_in_an_ellipsis_with_the_whole_text_as_tooltip(qtbot):
    label = QtElidedLabel(LINE)
    qtbot.addWidget(label)
    label.resize(300, 24)
    label.show()
    qtbot.waitExposed(label)
    assert label.text() == LINE and label.plain_text() == PLAIN
    assert label.is_elided()
    shown = label.shown_text()
    assert shown.endswith("…") and PLAIN.startswith(shown[:-1]) and len(shown) < len(PLAIN)
    assert QFontMetrics(label.font()).horizontalAdvance(shown) <= 300
    assert PLAIN in label.toolTip()
    # Drawn as it says: the ellipsis is painted (text pixels near the right end), nothing after it.
    image = label.grab().toImage()
    ratio = image.devicePixelRatio()
    ground = label.palette().color(label.backgroundRole()).lightness()
    lit = [x for x in range(image.width()) for y in range(image.height())
           if abs(QColor(image.pixel(x, y)).lightness() - ground) > 80]  # the text's pixels
    last = max(lit) / ratio
    assert last <= 300 and last > 300 - 3 * QFontMetrics(label.font()).averageCharWidth()

    label.resize(2000, 24)  # room enough: the whole line, no tooltip
    assert not label.is_elided() and label.shown_text() == PLAIN and label.toolTip() == ""
