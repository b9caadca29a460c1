"""Other images of the predicted class and of the label class, as the paper's
class tool showed them: where does the class boundary lie?

Thumbnails are decoded by the shared `ImageLoader`; clicking one shows it
large in a preview window, with its file name.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from reviewer.app.mistake_detail import ClassInfo, Exemplar
from reviewer.ui.image_loader import ImageLoader
from reviewer.ui.plain import plain_tip
from reviewer.ui.review.qt_thumbnail_strip import DWELL_MS, QtThumbnailStrip, Tile, preview_image
from reviewer.ui.theme import MUTED

MAX_THUMBNAILS = 8  # what a strip shows at 1920 px; each costs a decode


class QtExemplarRow(QWidget):
    activated = Signal(object)  # Exemplar

    def __init__(self, role: str, loader: ImageLoader, parent: QWidget | None = None):
        super().__init__(parent)
        self._role = role
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        # One line, whatever the class name: a taller strip would shrink the image view.
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        layout.addWidget(self.title)
        self.strip = QtThumbnailStrip(loader, role)
        self.strip.activated.connect(self.activated)
        layout.addWidget(self.strip)
        self._title_parts: tuple[str, int] = ("", 0)

    def show_class(self, cls: ClassInfo | None, exemplars: tuple[Exemplar, ...]) -> None:
        count = len(exemplars)
        self._title_parts = (cls.name if cls else "?", count)
        self._render_title()
        self.title.setToolTip(plain_tip(f"{count} other image{'' if count == 1 else 's'} of {cls.name if cls else '?'} "
                              "in this project (correct labels); click one to see it large"))
        with_files = [e for e in exemplars if e.path is not None][:MAX_THUMBNAILS]
        self.strip.show_tiles([Tile(str(e.path), e, e.file_name) for e in with_files],
                              empty=f"No other image of {cls.name} in this project" if cls else "")

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
        self.strip.load_thumbnails()


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
        # Never taller than its full thumbnails (its size hint): the room past them is the image's.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

    def show_classes(self, predicted: ClassInfo, predicted_exemplars: tuple[Exemplar, ...],
                     label: ClassInfo | None, label_exemplars: tuple[Exemplar, ...]) -> None:
        self.predicted.show_class(predicted, predicted_exemplars)
        self.label.show_class(label, label_exemplars)
        self._dwell.start()

    def _load_thumbnails(self) -> None:
        self.predicted.load_thumbnails()
        self.label.load_thumbnails()


def preview_exemplar(exemplar: Exemplar, loader: ImageLoader, parent: QWidget) -> None:
    """The example image larger, in a window of its own that has the keys until it is closed."""
    preview_image(str(exemplar.path), exemplar.file_name, f"{exemplar.file_name}: an example image from this project",
                  loader, parent)
