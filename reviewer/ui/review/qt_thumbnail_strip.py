"""One row of thumbnails, or a line saying why there is none: the strip that the example
images of a class (`qt_exemplars`) and the nearest training images (`qt_neighbours`)
are both made of, and the window that shows one of its images large.

Thumbnails are decoded by the shared thumbnail `ImageLoader`, in a loader group of the
strip's own (the previous mistake's are cancelled when the next is shown), and only
once the panelist stays on a mistake (`load_thumbnails`, which the owner calls after a
dwell): stepping quickly through the queue decodes nothing never seen. The strip's
items are kept and filled again for each mistake, the surplus hidden: clearing and
adding them made the list lay itself out anew at every key of a fast panelist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QListView,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from reviewer.ui.image_loader import Decoded, ImageKey, ImageLoader, fit_key
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.theme import ERROR, MUTED, set_text_colour, style_muted

THUMB = QSize(112, 84)  # the size thumbnails are decoded at, and shown at where there is room
SMALLEST = QSize(64, 48)  # shown down to this on a short window (1280x720), scaled from the decode
DWELL_MS = 150  # how long the panelist stays on a mistake before its thumbnails are decoded


@dataclass(frozen=True)
class Tile:
    """One thumbnail: its file, what `activated` hands back, its tooltip, and (in a strip
    with captions) the line under it, in `colour` where given; `mark` is passed to the
    strip's `decorate` with the decoded thumbnail (a duplicate's badge)."""

    path: str
    data: Any
    tooltip: str
    caption: str = ""
    colour: str | None = None
    mark: str | None = None


class QtThumbnailStrip(QWidget):
    """The list of tiles and, in its place when there are none, a muted line of the same height."""

    activated = Signal(object)  # the clicked tile's `data`

    def __init__(self, loader: ImageLoader, group: str, *, captions: bool = False,
                 decorate: Callable[[QImage, str], QImage] | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self._loader, self._group, self._captions, self._decorate = loader, group, captions, decorate
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.list = QListWidget()
        self.list.setViewMode(QListView.ViewMode.IconMode)
        self.list.setFlow(QListView.Flow.LeftToRight)
        self.list.setWrapping(False)
        self.list.setIconSize(THUMB)
        if captions:
            self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        else:
            # One row of thumbnails, never a vertical scroll bar: where the strip is narrower than
            # its thumbnails (a 1280 px window), the horizontal bar takes its own room below them
            # instead of covering their lower edge (and bringing a vertical bar with it).
            self.list.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            self.list.setSpacing(2)
            self.list.setMinimumWidth(SMALLEST.width() + 24)
        # Between the smallest and the full thumbnails: as tall as the page gives it (the image
        # view above takes what is left), so a window 720 px high still fits the screen.
        self.list.setMinimumHeight(self._list_height(SMALLEST.height()))
        self.list.setMaximumHeight(self._list_height(THUMB.height()))
        self.list.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self._thumb_height = 0
        self._fit_thumbnails(THUMB.height())
        self.list.setMovement(QListView.Movement.Static)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setHorizontalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.list.itemActivated.connect(lambda item: self.activated.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.list.itemClicked.connect(lambda item: self.activated.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.empty = text_label()
        style_muted(self.empty)
        self.empty.setMinimumHeight(self.list.minimumHeight())
        self.empty.setMaximumHeight(self.list.maximumHeight())
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        # A problem's command can be selected and copied; the keys stay with the review.
        self.empty.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.empty.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._problem = False
        self.empty.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.list)
        layout.addWidget(self.empty)
        self._items: dict[str, list[QListWidgetItem]] = {}  # path -> its shown tiles
        self._marks: dict[str, str] = {}  # path -> its tile's mark
        loader.loaded.connect(self._on_loaded)

    def _list_height(self, thumb_height: int) -> int:
        """The list's height for thumbnails `thumb_height` high (a caption under each, or a scroll bar)."""
        if self._captions:
            return thumb_height + self.fontMetrics().lineSpacing() + 26
        return thumb_height + 14 + self.list.horizontalScrollBar().sizeHint().height()

    def _fit_thumbnails(self, thumb_height: int) -> None:
        """Show the thumbnails `thumb_height` high (the decodes scaled down to it)."""
        thumb_height = max(SMALLEST.height(), min(THUMB.height(), thumb_height))
        if thumb_height == self._thumb_height:
            return
        self._thumb_height = thumb_height
        size = QSize(round(thumb_height * THUMB.width() / THUMB.height()), thumb_height)
        self.list.setIconSize(size)
        if self._captions:
            self.list.setGridSize(QSize(size.width() + 10, size.height() + self.fontMetrics().lineSpacing() + 8))
        else:
            for row in range(self.list.count()):
                self.list.item(row).setSizeHint(QSize(size.width() + 4, size.height() + 4))

    def thumbnail_size(self) -> QSize:
        """The size the thumbnails are shown at now."""
        return self.list.iconSize()

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        # The empty line wraps, which made the strip a height-for-width item: a vertical layout
        # then holds such an item at that height, however short the window (its thumbnails
        # never gave way, and the image view was pushed under the strips below it).
        return False

    def sizeHint(self) -> QSize:  # noqa: N802
        # The full thumbnails' height whether the list or the empty line shows: a strip whose
        # height changed from one mistake to the next would resize the image view (and re-decode it).
        return QSize(super().sizeHint().width(), self.list.maximumHeight())

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if event.size().height() != event.oldSize().height():
            full = self._list_height(THUMB.height())
            self._fit_thumbnails(THUMB.height() - (full - event.size().height()))

    def shown(self) -> list[QListWidgetItem]:
        """The tiles shown now, in order."""
        return [self.list.item(row) for row in range(self.list.count()) if not self.list.item(row).isHidden()]

    def show_tiles(self, tiles: Sequence[Tile], empty: str = "", *, problem: bool = False) -> None:
        """Show these tiles (none: the `empty` line instead, in the colour of an error where
        it says a `problem`); the previous mistake's thumbnails not decoded yet are cancelled."""
        self._items.clear()
        self._marks.clear()
        self._loader.cancel_group(self._group)
        self.list.setVisible(bool(tiles))
        self.empty.setVisible(not tiles)
        self.empty.setText(empty)
        if problem != self._problem:  # (a palette set at every mistake repaints the strip)
            self._problem = problem
            set_text_colour(self.empty, ERROR if problem else MUTED)
        while self.list.count() < len(tiles):
            item = QListWidgetItem()
            if self._captions:
                item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            else:
                size = self.list.iconSize()
                item.setSizeHint(QSize(size.width() + 4, size.height() + 4))
            self.list.addItem(item)
        for row in range(self.list.count()):
            item = self.list.item(row)
            if row >= len(tiles):
                if not item.isHidden():
                    item.setHidden(True)
                continue
            tile = tiles[row]
            item.setData(Qt.ItemDataRole.UserRole, tile.data)
            item.setToolTip(plain_tip(tile.tooltip))
            if self._captions:
                item.setText(tile.caption)
                item.setData(Qt.ItemDataRole.ForegroundRole, QColor(tile.colour) if tile.colour else None)
            if item.isHidden():
                item.setHidden(False)
            if tile.mark is not None:
                self._marks[tile.path] = tile.mark
            self._items.setdefault(tile.path, []).append(item)
            decoded = self._loader.cached(self._key(tile.path))
            if decoded is not None:
                self._set_icon(item, decoded)
            else:
                item.setIcon(QIcon())  # not the previous mistake's thumbnail
        if tiles:
            self.list.scrollToItem(self.list.item(0))

    def load_thumbnails(self) -> None:
        """Decode the thumbnails not cached yet (once the panelist stays on a mistake)."""
        for path, items in self._items.items():
            if items[0].icon().isNull():
                self._loader.request(self._key(path), group=self._group)

    @staticmethod
    def _key(path: str) -> ImageKey:
        return ImageKey(path, THUMB.width(), THUMB.height())

    def _on_loaded(self, decoded: Decoded) -> None:
        key = decoded.key
        if key.width == THUMB.width() and key.height == THUMB.height():
            for item in self._items.get(key.path, ()):
                self._set_icon(item, decoded)

    def _set_icon(self, item: QListWidgetItem, decoded: Decoded) -> None:
        if decoded.image is None:
            return
        mark = self._marks.get(decoded.key.path)
        image = decoded.image if mark is None or self._decorate is None else self._decorate(decoded.image, mark)
        item.setIcon(QIcon(QPixmap.fromImage(image)))


def preview_image(path: str, title: str, caption_text: str, loader: ImageLoader, parent: QWidget) -> QDialog:
    """An image larger, in a window of its own that has the keys until it is closed
    (Escape, Ctrl+W or its Close button): a vote key must never reach the mistake behind it."""
    dialog = QDialog(parent)
    dialog.setWindowTitle(title)
    dialog.resize(QSize(900, 700))
    layout = QVBoxLayout(dialog)
    label = text_label(caption_text + " (Escape closes it)")
    label.setWordWrap(True)
    style_muted(label)
    layout.addWidget(label)
    view = QtImageView()
    layout.addWidget(view, 1)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    QShortcut(QKeySequence.StandardKey.Close, dialog, activated=dialog.reject)
    key = fit_key(path, QSize(1600, 1200))
    view.show_message("Loading…")

    def loaded(d: Decoded) -> None:
        if d.key == key:
            if d.image is not None:
                view.show_image(d.image, d.original_size)
            else:
                view.show_message("Cannot read this image", f"{path}: {d.error}")

    loader.loaded.connect(loaded)
    dialog.finished.connect(lambda: loader.loaded.disconnect(loaded))
    decoded = loader.request(key, priority=2)
    if decoded is not None:
        loaded(decoded)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    buttons.setFocus()
    return dialog
