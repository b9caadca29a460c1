"""The meeting's geometry: its top bar, the list of split items, the image column
and the three columns side by side.

The meeting's parts build their widgets; these helpers make the plain ones (the list's
table, the headline) and place them (list | image and its facts | votes
and agreement), and give the columns their widths as the view is resized. Nothing
here reads the project.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

LIST_MIN_WIDTH = 330
VOTES_MIN_WIDTH = 440


def fill_with_scroll(pane: QWidget, content: QWidget) -> QScrollArea:
    """Fill `pane` with a frameless box that scrolls `content` up and down (a pane of the votes
    or the agreement taller than the screen), transparent, never taking the keys from the
    meeting's list. Returns the box."""
    scroll = QScrollArea()
    scroll.setWidget(content)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay with the meeting's list
    scroll.viewport().setAutoFillBackground(False)
    content.setAutoFillBackground(False)
    outer = QVBoxLayout(pane)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(scroll)
    return scroll


def lay_out_top(*, title: QWidget, field_filter: QWidget, pair_label: QWidget, clear_pair: QWidget,
                lock_unanimous: QWidget, status: QWidget) -> QHBoxLayout:
    """The bar above the columns: what is listed and its filters on the left, the chair's
    lock of every unanimous item, and the view's status line on the right."""
    top = QHBoxLayout()
    top.addWidget(title)
    top.addSpacing(12)
    top.addWidget(QLabel("Split on"))
    top.addWidget(field_filter)
    top.addWidget(pair_label)
    top.addWidget(clear_pair)
    top.addWidget(lock_unanimous)
    top.addStretch(1)
    top.addWidget(status)
    return top


def create_list(model) -> QTableView:
    """The table of split items over `model`: whole rows, one at a time, read-only, each two
    lines high, the image's name stretched and the two short columns as wide as their words."""
    table = QTableView()
    table.setModel(model)
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setWordWrap(True)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    header = table.horizontalHeader()
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    header.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
    header.setSectionResizeMode(2, QHeaderView.ResizeMode.Fixed)
    metrics = table.fontMetrics()
    header.resizeSection(1, metrics.horizontalAdvance("problematic") + 12)
    header.resizeSection(2, metrics.horizontalAdvance("reopened") + 12)
    # Fixed two-line rows: no per-row measuring, however long the list.
    rows = table.verticalHeader()
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(2 * metrics.lineSpacing() + 8)
    return table


def create_headline() -> QLabel:
    """The line above the image (what was predicted for which file), wrapped, never widening the view."""
    headline = QLabel()
    headline.setTextFormat(Qt.TextFormat.RichText)
    headline.setWordWrap(True)
    headline.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return headline


def lay_out_centre(centre: QSplitter, *, headline: QWidget, image: QWidget, neighbours: QWidget,
                   facts: QWidget) -> QSplitter:
    """The centre column: the headline, the image and its nearest training images above
    the mistake's facts, in `centre`, a splitter the panelist can move."""
    centre.setOrientation(Qt.Orientation.Vertical)
    image_box = QWidget()
    image_layout = QVBoxLayout(image_box)
    image_layout.setContentsMargins(4, 4, 4, 0)
    image_layout.addWidget(headline)
    image_layout.addWidget(image, 1)
    image_layout.addWidget(neighbours)
    centre.addWidget(image_box)
    centre.addWidget(facts)
    centre.setSizes([440, 300])
    return centre


def lay_out_columns(view: QWidget, *, top: QHBoxLayout, items: QWidget, centre: QWidget,
                    tabs: QWidget) -> QSplitter:
    """The top bar over the list, the centre column and the votes' tabs side by side in a
    splitter, filling `view`. Returns the splitter."""
    splitter = QSplitter(Qt.Orientation.Horizontal)
    for widget in (items, centre, tabs):
        splitter.addWidget(widget)
    splitter.setStretchFactor(1, 1)
    items.setMinimumWidth(LIST_MIN_WIDTH)
    tabs.setMinimumWidth(VOTES_MIN_WIDTH)
    layout = QVBoxLayout(view)
    layout.setContentsMargins(8, 8, 8, 8)
    layout.addLayout(top)
    layout.addWidget(splitter, 1)
    return splitter


def column_sizes(width: int) -> list[int]:
    """The columns' widths for a view `width` wide: the votes pane gets 38%: at 1280 px its
    columns (one per panelist) then hold a category name or a note's longest word without
    breaking it; the image takes what is left."""
    return [max(LIST_MIN_WIDTH, int(width * 0.28)), width, max(VOTES_MIN_WIDTH, int(width * 0.38))]
