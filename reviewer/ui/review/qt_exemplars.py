"""Other images of the predicted class and of the label class, as the paper's
class tool showed them: where does the class boundary lie?

Thumbnails are decoded by the shared `ImageLoader`; clicking one shows it
large in a preview window, with its file name.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetrics, QIcon, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from reviewer.app.mistake_detail import ClassInfo, Exemplar
from reviewer.ui.image_loader import Decoded, ImageKey, ImageLoader, fit_key
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.theme import MUTED, style_muted

THUMB = QSize(112, 84)
DWELL_MS = 150
MAX_THUMBNAILS = 8  # what a strip shows at 1920 px; each costs a decode


class QtExemplarRow(QWidget):
    activated = Signal(object)  # Exemplar

    def __init__(self, role: str, loader: ImageLoader, parent: QWidget | None = None):
        super().__init__(parent)
        self._role, self._loader = role, loader
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        # One line, whatever the class name: a taller strip would shrink the image view.
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        layout.addWidget(self.title)
        self.list = QListWidget()
        self.list.setViewMode(QListView.ViewMode.IconMode)
        self.list.setFlow(QListView.Flow.LeftToRight)
        self.list.setWrapping(False)
        self.list.setIconSize(THUMB)
        # One row of thumbnails, never a vertical scroll bar: where the strip is narrower than
        # its thumbnails (a 1280 px window), the horizontal bar takes its own room below them
        # instead of covering their lower edge (and bringing a vertical bar with it).
        self.list.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setFixedHeight(THUMB.height() + 14 + self.list.horizontalScrollBar().sizeHint().height())
        self.list.setSpacing(2)
        self.list.setMovement(QListView.Movement.Static)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setHorizontalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.list.itemActivated.connect(lambda item: self.activated.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.list.itemClicked.connect(lambda item: self.activated.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.empty = text_label()
        style_muted(self.empty)
        self.empty.setFixedHeight(self.list.height())
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.list.setMinimumWidth(THUMB.width() + 24)
        layout.addWidget(self.list)
        layout.addWidget(self.empty)
        self._items: dict[str, QListWidgetItem] = {}
        self._title_parts: tuple[str, int] = ("", 0)
        loader.loaded.connect(self._on_loaded)

    def show_class(self, cls: ClassInfo | None, exemplars: tuple[Exemplar, ...]) -> None:
        count = len(exemplars)
        self._title_parts = (cls.name if cls else "?", count)
        self._render_title()
        self.title.setToolTip(plain_tip(f"{count} other image{'' if count == 1 else 's'} of {cls.name if cls else '?'} "
                              "in this project (correct labels); click one to see it large"))
        self._items.clear()
        self._loader.cancel_group(self._role)  # thumbnails of the previous mistake
        with_files = [e for e in exemplars if e.path is not None][:MAX_THUMBNAILS]
        self.list.setVisible(bool(with_files))
        self.empty.setVisible(not with_files)
        self.empty.setText(f"No other image of {cls.name} in this project" if cls else "")
        # The strip's items are kept and filled again (a fast panelist moves on at every key):
        # clearing and adding them made the list lay itself out anew for every mistake.
        while self.list.count() < len(with_files):
            item = QListWidgetItem()
            item.setSizeHint(QSize(THUMB.width() + 4, THUMB.height() + 4))
            self.list.addItem(item)
        for row in range(self.list.count()):
            item = self.list.item(row)
            if row >= len(with_files):
                if not item.isHidden():
                    item.setHidden(True)
                continue
            exemplar = with_files[row]
            item.setData(Qt.ItemDataRole.UserRole, exemplar)
            item.setToolTip(plain_tip(exemplar.file_name))
            if item.isHidden():
                item.setHidden(False)
            key = ImageKey(str(exemplar.path), THUMB.width(), THUMB.height())
            self._items[key.path] = item
            decoded = self._loader.cached(key)
            if decoded is not None:
                self._set_icon(item, decoded)
            else:
                item.setIcon(QIcon())  # not the previous mistake's thumbnail
        if with_files:
            self.list.scrollToItem(self.list.item(0))

    def _render_title(self) -> None:
        """"Predicted: <name> (n more)" on one line: a long class name is elided
        (the tooltip has it whole) rather than the count cut off."""
        name, count = self._title_parts
        prefix, suffix = f"{self._role}: ", f" ({count} more)"
        plain = QFontMetrics(self.title.font())
        bold_font = QFont(self.title.font())
        bold_font.setBold(True)
        room = self.title.width() - plain.horizontalAdvance(prefix + suffix) - 6
        shown = QFontMetrics(bold_font).elidedText(name, Qt.TextElideMode.ElideRight, max(room, 40))
        self.title.setText(f'<span style="color:{MUTED}">{escape(prefix)}</span><b>{escape(shown)}</b>'
                           f'<span style="color:{MUTED}">{escape(suffix)}</span>')

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._render_title()

    def load_thumbnails(self) -> None:
        """Decode the thumbnails not cached yet (called once the panelist stays on a mistake)."""
        for path, item in self._items.items():
            if item.icon().isNull():
                self._loader.request(ImageKey(path, THUMB.width(), THUMB.height()), group=self._role)

    def _on_loaded(self, decoded: Decoded) -> None:
        key = decoded.key
        if key.width == THUMB.width() and key.height == THUMB.height() and key.path in self._items:
            self._set_icon(self._items[key.path], decoded)

    @staticmethod
    def _set_icon(item: QListWidgetItem, decoded: Decoded) -> None:
        if decoded.image is not None:
            item.setIcon(QIcon(QPixmap.fromImage(decoded.image)))


class QtExemplars(QWidget):
    """Two rows: the predicted class and the label class."""

    activated = Signal(object)

    def __init__(self, loader: ImageLoader, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(12)
        self.predicted = QtExemplarRow("Predicted", loader)
        self.label = QtExemplarRow("Label", loader)
        for row in (self.predicted, self.label):
            row.activated.connect(self.activated)
            layout.addWidget(row, 1)
        # Thumbnails are decoded once the panelist stays on a mistake for a moment:
        # stepping quickly through the queue should not decode images never seen.
        self._dwell = QTimer(self, singleShot=True, interval=DWELL_MS, timeout=self._load_thumbnails)

    def show_classes(self, predicted: ClassInfo, predicted_exemplars: tuple[Exemplar, ...],
                     label: ClassInfo | None, label_exemplars: tuple[Exemplar, ...]) -> None:
        self.predicted.show_class(predicted, predicted_exemplars)
        self.label.show_class(label, label_exemplars)
        self._dwell.start()

    def _load_thumbnails(self) -> None:
        self.predicted.load_thumbnails()
        self.label.load_thumbnails()


def preview_exemplar(exemplar: Exemplar, loader: ImageLoader, parent: QWidget) -> None:
    """The example image larger, in a window of its own that has the keys until it is
    closed (Escape, Ctrl+W or its Close button): a vote key must never reach the mistake
    hidden behind it."""
    dialog = QDialog(parent)
    dialog.setWindowTitle(exemplar.file_name)
    dialog.resize(QSize(900, 700))
    layout = QVBoxLayout(dialog)
    caption = QLabel(f"{escape(exemplar.file_name)}: an example image from this project "
                     "(Escape closes it)")
    style_muted(caption)
    layout.addWidget(caption)
    view = QtImageView()
    layout.addWidget(view, 1)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    QShortcut(QKeySequence.StandardKey.Close, dialog, activated=dialog.reject)
    decoded = loader.request(fit_key(exemplar.path, QSize(1600, 1200)), priority=2)
    view.show_message("Loading…")

    def loaded(d: Decoded) -> None:
        if d.key.path == str(exemplar.path) and d.key.width == 1600 and d.image is not None:
            view.show_image(d.image, d.original_size)

    loader.loaded.connect(loaded)
    dialog.finished.connect(lambda: loader.loaded.disconnect(loaded))
    if decoded is not None:
        loaded(decoded)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    buttons.setFocus()
