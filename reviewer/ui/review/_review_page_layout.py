"""The review page's geometry: its two header lines and its three columns.

`QtReviewPage` builds its widgets and wires them; these helpers place them (queue |
image, header and exemplars | your vote and the facts) and give the columns their
widths as the page is resized. Nothing here reads the session.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from reviewer.ui.qt_elided_label import QtElidedLabel
from reviewer.ui.theme import style_headline, style_muted

QUEUE_MIN_WIDTH = 280
RIGHT_MIN_WIDTH = 400


def create_header() -> tuple[QLabel, QtElidedLabel]:
    """The headline (two lines: what was predicted, and the label) and the line of flags under it."""
    headline = QLabel()
    style_headline(headline)
    headline.setTextFormat(Qt.TextFormat.RichText)
    headline.setWordWrap(True)
    subheadline = QtElidedLabel()  # cut with "…" (and the whole line as its tooltip)
    subheadline.setTextFormat(Qt.TextFormat.RichText)
    style_muted(subheadline)
    for label in (headline, subheadline):
        # Long class names never widen the window, and the header keeps its height
        # from one mistake to the next: a changing height would resize the image
        # view and re-decode the image at the new size.
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
    headline.setFixedHeight(headline.fontMetrics().lineSpacing() * 2 + 6)
    headline.setAlignment(Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignLeft)
    subheadline.setFixedHeight(subheadline.fontMetrics().lineSpacing() + 4)
    return headline, subheadline


def lay_out_columns(page: QWidget, *, queue: QWidget, centre_widgets: list[tuple[QWidget, int]],
                    right_widgets: list[tuple[QWidget, int]]) -> tuple[QSplitter, QWidget, QWidget]:
    """Place the queue, the centre column and the right column side by side in a splitter
    filling `page`; each column's widgets come with their stretch factors, top to bottom.
    Returns the splitter and the centre and right columns."""
    centre = QWidget()
    centre_layout = QVBoxLayout(centre)
    centre_layout.setContentsMargins(8, 8, 8, 8)
    centre_layout.setSpacing(4)
    for widget, stretch in centre_widgets:
        centre_layout.addWidget(widget, stretch)
    right = QWidget()
    right_layout = QVBoxLayout(right)
    right_layout.setContentsMargins(4, 8, 8, 8)
    for widget, stretch in right_widgets:
        right_layout.addWidget(widget, stretch)
    # Opaque columns: painting one no longer paints the window, the page and the splitter
    # beneath it first (at 1920x1080 that was some 12 million pixels per mistake).
    for column in (queue, centre, right):
        column.setAutoFillBackground(True)
    splitter = QSplitter(Qt.Orientation.Horizontal)
    for widget, stretch in ((queue, 0), (centre, 1), (right, 0)):
        splitter.addWidget(widget)
        splitter.setStretchFactor(splitter.count() - 1, stretch)
    queue.setMinimumWidth(QUEUE_MIN_WIDTH)
    right.setMinimumWidth(RIGHT_MIN_WIDTH)
    layout = QHBoxLayout(page)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(splitter)
    return splitter, centre, right


def column_sizes(width: int) -> list[int]:
    """The columns' widths for a page `width` wide: the image takes what the queue and the vote leave."""
    return [max(QUEUE_MIN_WIDTH, int(width * 0.19)), width, max(RIGHT_MIN_WIDTH, int(width * 0.25))]
