"""The nearest training images of the shown mistake, as the paper's panel looked at them
(§4.5: the K = 10 nearest training examples of every mistake), with their training
labels and similarity, and the image's duplicates marked (an exact copy in training
under another label is the leak of Table 4).

The facts come with the mistake's (`MistakeDetail.neighbours`, precomputed by
`reviewer index` and read from memory), so nothing here waits; the thumbnails are
decoded on the shared thumbnail `ImageLoader`, once the panelist stays on a mistake
for a moment, as the exemplar strips do. Clicking one shows it large. Hidden when the
project has no index.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QIcon, QImage, QKeySequence, QPainter, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from reviewer.neighbours.lookup import Duplicate, NeighbourFacts, TrainingNeighbour
from reviewer.ui.image_loader import Decoded, ImageKey, ImageLoader, fit_key
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.theme import ERROR, MUTED, WARNING, style_muted

THUMB = QSize(112, 84)
DWELL_MS = 150
GROUP = "neighbours"
BADGES = {"exact": ("EXACT", ERROR), "perceptual": ("NEAR", WARNING), "embedding": ("NEAR", WARNING)}


def caption(shown: TrainingNeighbour | Duplicate) -> str:
    """The line under a thumbnail: the similarity (or the kind of copy) and the training label."""
    label = shown.name or shown.wnid or "no label"
    if isinstance(shown, TrainingNeighbour):
        return f"{shown.similarity:.2f} {label}"
    return f"{'exact' if shown.kind == 'exact' else 'near'} · {label}"


def describe(shown: TrainingNeighbour | Duplicate, k: int) -> str:
    """A thumbnail's tooltip and its large view's caption, in words."""
    label = f"{shown.name or 'no class'} ({shown.wnid or 'no wnid'})"
    if isinstance(shown, TrainingNeighbour):
        text = (f"{shown.file_name}: nearest training image {shown.rank} of {k}, labelled {label} in training, "
                f"cosine similarity {shown.similarity:.3f}")
        kind = shown.duplicate
    else:
        where = "in training" if shown.collection == "train" else "in this project"
        text = f"{shown.file_name}: labelled {label} {where}"
        kind = shown.kind
    if kind == "exact":
        text += "; an exact duplicate of the shown image (identical pixels)"
    elif kind is not None:
        text += "; a near duplicate of the shown image (" + ("perceptual hash" if kind == "perceptual"
                                                             else "embedding similarity") + ")"
    return text


class QtNeighbours(QWidget):
    """A title with the evidence lines, and one strip: the K nearest training images, then
    any duplicate that is not among them."""

    activated = Signal(object)  # TrainingNeighbour or Duplicate

    def __init__(self, thumbnails: ImageLoader, large: ImageLoader | None = None, parent: QWidget | None = None):
        """`large`: the loader that decodes a clicked image large (None: the owner handles `activated`)."""
        super().__init__(parent)
        self._loader = thumbnails
        self._facts: NeighbourFacts | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(2)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.duplicates = QLabel()
        self.duplicates.setTextFormat(Qt.TextFormat.RichText)
        line = self.fontMetrics().lineSpacing()
        for label in (self.title, self.duplicates):
            # One line each, whatever the names, always there: a strip whose height changed
            # from one mistake to the next would resize the image view (and re-decode it).
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            label.setFixedHeight(line + 2)
            layout.addWidget(label)
        self.list = QListWidget()
        self.list.setViewMode(QListView.ViewMode.IconMode)
        self.list.setFlow(QListView.Flow.LeftToRight)
        self.list.setWrapping(False)
        self.list.setIconSize(THUMB)
        self.list.setGridSize(QSize(THUMB.width() + 10, THUMB.height() + line + 8))
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setFixedHeight(THUMB.height() + line + 26)
        self.list.setMovement(QListView.Movement.Static)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setHorizontalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.list.itemClicked.connect(lambda item: self.activated.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.list.itemActivated.connect(lambda item: self.activated.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.empty = text_label()
        style_muted(self.empty)
        self.empty.setFixedHeight(self.list.height())
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        layout.addWidget(self.list)
        layout.addWidget(self.empty)
        self._items: dict[str, list[QListWidgetItem]] = {}  # path -> its tiles
        self._badges: dict[str, str] = {}  # path -> duplicate kind, painted on its thumbnail
        self._dwell = QTimer(self, singleShot=True, interval=DWELL_MS, timeout=self.load_thumbnails)
        thumbnails.loaded.connect(self._on_loaded)
        if large is not None:
            self.activated.connect(lambda shown: preview_neighbour(shown, self._facts.k if self._facts else 0,
                                                                   large, self))
        super().setVisible(False)

    def setVisible(self, visible: bool) -> None:  # noqa: N802
        """Shown only where the project has an index (the page shows and hides its panes together)."""
        super().setVisible(visible and self._facts is not None)

    @property
    def facts(self) -> NeighbourFacts | None:
        return self._facts

    def show_facts(self, facts: NeighbourFacts | None) -> None:
        """Show an image's neighbours and duplicates (None: the project has no index: hidden)."""
        self._facts = facts
        self.list.clear()
        self._items.clear()
        self._badges.clear()
        self._loader.cancel_group(GROUP)  # thumbnails of the previous mistake
        if facts is None:
            super().setVisible(False)
            return
        self._show_title(facts)
        shown: list[TrainingNeighbour | Duplicate] = list(facts.neighbours)
        among = {n.path for n in facts.neighbours}
        shown += [d for d in facts.duplicates if d.path not in among]
        self.list.setVisible(bool(shown))
        self.empty.setVisible(not shown)
        self.empty.setText("" if shown else
                           "No neighbours stored for this image: it was no mistake of a complete run when the "
                           "index was built ('reviewer index' again computes them)" if not facts.computed else
                           "No usable training image in the index")
        for entry in shown:
            kind = entry.duplicate if isinstance(entry, TrainingNeighbour) else entry.kind
            item = QListWidgetItem(caption(entry))
            item.setData(Qt.ItemDataRole.UserRole, entry)
            item.setToolTip(plain_tip(describe(entry, facts.k)))
            item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            if kind is not None:
                item.setForeground(QColor(BADGES[kind][1]))
                self._badges[entry.path] = kind
            self.list.addItem(item)
            key = ImageKey(entry.path, THUMB.width(), THUMB.height())
            self._items.setdefault(key.path, []).append(item)
            decoded = self._loader.cached(key)
            if decoded is not None:
                self._set_icon(item, decoded)
        super().setVisible(True)
        self._dwell.start()

    def _show_title(self, facts: NeighbourFacts) -> None:
        head = f"Nearest training images <span style='color:{MUTED}'>(index of {escape(facts.index)}, " \
               f"K = {facts.k})</span>"
        lines = list(facts.lines)
        summary = lines.pop(0) if facts.neighbours and lines else ""
        self.title.setText(head + (f": {escape(summary)}" if summary else ""))
        self.title.setToolTip(plain_tip("\n".join(facts.lines) or "no neighbours stored for this image"))
        if lines:  # the duplicates, in the colour of the worst: an exact copy is a leak
            colour = ERROR if any(d.kind == "exact" for d in facts.duplicates) else WARNING
            self.duplicates.setText(f"<span style='color:{colour}'>⚠ {escape(' · '.join(lines))}</span>")
        else:
            self.duplicates.setText(f"<span style='color:{MUTED}'>No duplicate of this image in training or in "
                                    "this project (identical pixels, perceptual hash, embedding)</span>")
        self.duplicates.setToolTip(plain_tip("\n".join(lines)))

    def load_thumbnails(self) -> None:
        """Decode the thumbnails not cached yet (once the panelist stays on a mistake)."""
        for path, items in self._items.items():
            if items[0].icon().isNull():
                self._loader.request(ImageKey(path, THUMB.width(), THUMB.height()), group=GROUP)

    def _on_loaded(self, decoded: Decoded) -> None:
        key = decoded.key
        if key.width == THUMB.width() and key.height == THUMB.height():
            for item in self._items.get(key.path, ()):
                self._set_icon(item, decoded)

    def _set_icon(self, item: QListWidgetItem, decoded: Decoded) -> None:
        if decoded.image is None:
            return
        kind = self._badges.get(decoded.key.path)
        image = decoded.image if kind is None else badged(decoded.image, kind)
        item.setIcon(QIcon(QPixmap.fromImage(image)))


def badged(image: QImage, kind: str) -> QImage:
    """A copy of a thumbnail framed and labelled in the duplicate's colour."""
    text, colour = BADGES[kind]
    out = image.copy()
    painter = QPainter(out)
    painter.setPen(QColor(colour))
    painter.drawRect(QRect(0, 0, out.width() - 1, out.height() - 1))
    painter.drawRect(QRect(1, 1, out.width() - 3, out.height() - 3))
    font = QFont(painter.font())
    font.setBold(True)
    font.setPixelSize(11)
    # A portrait thumbnail is narrow (56 px at 84 high): the word shrinks to fit it.
    while font.pixelSize() > 7 and QFontMetrics(font).horizontalAdvance(text) > out.width() - 4:
        font.setPixelSize(font.pixelSize() - 1)
    painter.setFont(font)
    band = QRect(0, 0, out.width(), font.pixelSize() + 4)
    painter.fillRect(band, QColor(colour))
    painter.setPen(QColor("#101010"))
    painter.drawText(band, Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return out


def preview_neighbour(shown: TrainingNeighbour | Duplicate, k: int, loader: ImageLoader, parent: QWidget) -> QDialog:
    """A neighbour or duplicate larger, its caption in words."""
    return preview_image(shown.path, shown.file_name, describe(shown, k), loader, parent)


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
