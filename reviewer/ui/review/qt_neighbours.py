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

from PySide6.QtCore import QRect, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QDialog, QSizePolicy, QVBoxLayout, QWidget

from reviewer.neighbours.lookup import Duplicate, NeighbourFacts, TrainingNeighbour
from reviewer.ui.image_loader import ImageLoader
from reviewer.ui.qt_elided_label import QtElidedLabel
from reviewer.ui.review.qt_thumbnail_strip import DWELL_MS, QtThumbnailStrip, Tile, preview_image
from reviewer.ui.theme import ERROR, MUTED, WARNING

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
        self._facts: NeighbourFacts | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(2)
        # One line each, whatever the names, always there: a strip whose height changed from one
        # mistake to the next would resize the image view (and re-decode it). Cut with "…" where
        # narrow, the whole line as tooltip: a plain label stopped mid-word ("1 of 10 nearest
        # training i") with nothing to say that more followed (issue 35, 6).
        self.title = QtElidedLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.duplicates = QtElidedLabel()
        self.duplicates.setTextFormat(Qt.TextFormat.RichText)
        line = self.fontMetrics().lineSpacing()
        for label in (self.title, self.duplicates):
            label.setFixedHeight(line + 2)
            layout.addWidget(label)
        self.strip = QtThumbnailStrip(thumbnails, GROUP, captions=True, decorate=badged)
        self.strip.activated.connect(self.activated)
        layout.addWidget(self.strip)
        self._dwell = QTimer(self, singleShot=True, interval=DWELL_MS, timeout=self.load_thumbnails)
        # Never taller than its full thumbnails (its size hint): the room past them is the image's.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
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
        if facts is None:
            self.strip.show_tiles([])
            super().setVisible(False)
            return
        self._show_title(facts)
        shown: list[TrainingNeighbour | Duplicate] = list(facts.neighbours)
        among = {n.path for n in facts.neighbours}
        shown += [d for d in facts.duplicates if d.path not in among]
        tiles = []
        for entry in shown:
            kind = entry.duplicate if isinstance(entry, TrainingNeighbour) else entry.kind
            tiles.append(Tile(entry.path, entry, describe(entry, facts.k), caption=caption(entry),
                              colour=BADGES[kind][1] if kind is not None else None, mark=kind))
        self.strip.show_tiles(tiles, empty=_empty_line(facts) if not shown else "",
                              problem=facts.problem is not None)
        super().setVisible(True)
        self._dwell.start()

    def _show_title(self, facts: NeighbourFacts) -> None:
        if facts.problem is not None:  # a damaged index: which file and the command, where the strip goes
            self.title.setText(f"Nearest training images <span style='color:{ERROR}'>(the index of "
                               f"{escape(facts.index)} is damaged: none shown)</span>")
            self.duplicates.setText(f"<span style='color:{ERROR}'>⚠ {escape(facts.problem)}</span>")
            return
        head = f"Nearest training images <span style='color:{MUTED}'>(index of {escape(facts.index)}, " \
               f"K = {facts.k})</span>"
        lines = list(facts.lines)
        summary = lines.pop(0) if facts.neighbours and lines else ""
        self.title.setText(head + (f": {escape(summary)}" if summary else ""))
        if lines:  # the duplicates, in the colour of the worst: an exact copy is a leak
            colour = ERROR if any(d.kind == "exact" for d in facts.duplicates) else WARNING
            self.duplicates.setText(f"<span style='color:{colour}'>⚠ {escape(' · '.join(lines))}</span>")
        else:
            self.duplicates.setText(f"<span style='color:{MUTED}'>No duplicate of this image in training or in "
                                    "this project (identical pixels, perceptual hash, embedding)</span>")

    def load_thumbnails(self) -> None:
        """Decode the thumbnails not cached yet (once the panelist stays on a mistake)."""
        self.strip.load_thumbnails()


def _empty_line(facts: NeighbourFacts) -> str:
    """What the strip says where it has no thumbnail: a damaged index's problem (which file,
    the command that rebuilds it), or why none is stored for the image."""
    if facts.problem is not None:
        return facts.problem
    if not facts.computed:
        return ("No neighbours stored for this image: it was no mistake of a complete run when the index was "
                "built ('reviewer index' again computes them)")
    return "No usable training image in the index"


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
