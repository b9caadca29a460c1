"""Other images of the predicted class and of the label class, as the paper's
class tool showed them: where does the class boundary lie?

Thumbnails are decoded by the shared `ImageLoader`; clicking one shows it
large in a preview window, with its file name.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QListView, QListWidget, QListWidgetItem, QSizePolicy,
                               QVBoxLayout, QWidget)

from reviewer.mistake_detail import ClassInfo, Exemplar
from reviewer.ui.image_loader import Decoded, ImageKey, ImageLoader
from reviewer.ui.theme import MUTED

THUMB = QSize(112, 84)


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
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        self.list = QListWidget()
        self.list.setViewMode(QListView.ViewMode.IconMode)
        self.list.setFlow(QListView.Flow.LeftToRight)
        self.list.setWrapping(False)
        self.list.setIconSize(THUMB)
        self.list.setFixedHeight(THUMB.height() + 14)
        self.list.setSpacing(2)
        self.list.setMovement(QListView.Movement.Static)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setHorizontalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.list.itemActivated.connect(lambda item: self.activated.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.list.itemClicked.connect(lambda item: self.activated.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.empty = QLabel()
        self.empty.setStyleSheet(f"color: {MUTED};")
        self.empty.setFixedHeight(THUMB.height() + 14)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.list.setMinimumWidth(THUMB.width() + 24)
        layout.addWidget(self.list)
        layout.addWidget(self.empty)
        self._items: dict[str, QListWidgetItem] = {}
        loader.loaded.connect(self._on_loaded)

    def show_class(self, cls: ClassInfo | None, exemplars: tuple[Exemplar, ...]) -> None:
        name = escape(cls.name) if cls else "?"
        self.title.setText(f'<span style="color:{MUTED}">{self._role}:</span> <b>{name}</b> '
                           f'<span style="color:{MUTED}">· {len(exemplars)} other image'
                           f'{"" if len(exemplars) == 1 else "s"}</span>')
        self.list.clear()
        self._items.clear()
        with_files = [e for e in exemplars if e.path is not None]
        self.list.setVisible(bool(with_files))
        self.empty.setVisible(not with_files)
        self.empty.setText(f"No other image of {name} in this project" if cls else "")
        for exemplar in with_files:
            item = QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, exemplar)
            item.setToolTip(exemplar.file_name)
            item.setSizeHint(QSize(THUMB.width() + 4, THUMB.height() + 4))
            self.list.addItem(item)
            key = ImageKey(str(exemplar.path), THUMB.width(), THUMB.height())
            self._items[key.path] = item
            decoded = self._loader.request(key, priority=-1)
            if decoded is not None:
                self._set_icon(item, decoded)

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

