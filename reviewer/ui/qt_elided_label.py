"""A one-line label that says where it is cut: the text, plain or rich, ends in "…" at the
last whole character that fits, and its whole text is the tooltip. A QLabel of fixed
height clips a long line mid-word with nothing to show that more follows (the review
page's line under the headline at 1280x720: "... novel · WordNe")."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument
from PySide6.QtGui import Qt as GuiQt  # mightBeRichText lives in QtGui's Qt namespace
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from reviewer.ui.plain import plain_tip

ELLIPSIS = "…"


class QtElidedLabel(QLabel):
    """A QLabel on one line that elides instead of clipping; `text()` is the whole text."""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.setWordWrap(False)
        # As wide as its place, never wider: a long line must not widen the window.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._document = QTextDocument(self)
        self._document.setDocumentMargin(0)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt naming)
        super().setText(text)
        self._document.setDefaultFont(self.font())
        if self.textFormat() == Qt.TextFormat.PlainText or (
                self.textFormat() == Qt.TextFormat.AutoText and not GuiQt.mightBeRichText(text)):
            self._document.setPlainText(text)
        else:
            self._document.setHtml(text)
        self._update_tip()

    def clear(self) -> None:
        """Empty, as `setText("")`: QLabel's own clear would leave the cut text to be painted."""
        self.setText("")

    def plain_text(self) -> str:
        """The whole text as the reader sees it (markup left out)."""
        return self._document.toPlainText()

    def is_elided(self) -> bool:
        return self._document.idealWidth() > self.contentsRect().width() + 0.5

    def shown_text(self) -> str:
        """What is on screen: the whole plain text, or its start and "…"."""
        if not self.is_elided():
            return self.plain_text()
        return self.plain_text()[:self._cut()[0]] + ELLIPSIS

    def _cut(self) -> tuple[int, float]:
        """(characters that fit before the ellipsis, their width in pixels)."""
        room = self.contentsRect().width() - self.fontMetrics().horizontalAdvance(ELLIPSIS)
        self._document.documentLayout()  # laid out before its lines are read
        line = self._document.firstBlock().layout().lineAt(0)
        if not line.isValid() or room <= 0:
            return 0, 0.0
        position = line.xToCursor(room, line.CursorPosition.CursorOnCharacter)
        x = line.cursorToX(position)
        x = x[0] if isinstance(x, tuple) else x
        while position > 0 and x > room:  # xToCursor rounds to the nearer edge of a character
            position -= 1
            x = line.cursorToX(position)
            x = x[0] if isinstance(x, tuple) else x
        return position, float(x)

    def _update_tip(self) -> None:
        self.setToolTip(plain_tip(self.plain_text()) if self.is_elided() else "")

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._update_tip()

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self._document.setDefaultFont(self.font())
            self._update_tip()

    def paintEvent(self, event) -> None:  # noqa: N802
        if not self.is_elided():
            super().paintEvent(event)
            return
        rect = QRectF(self.contentsRect())
        _, width = self._cut()
        colour = self.palette().color(self.foregroundRole())
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = QPalette(self.palette())
        context.palette.setColor(QPalette.ColorRole.Text, colour)  # the label's colour for unstyled text
        top = rect.top() + (rect.height() - self._document.size().height()) / 2
        painter = QPainter(self)
        painter.save()
        painter.setClipRect(QRectF(rect.left(), rect.top(), width, rect.height()))
        painter.translate(QPointF(rect.left(), top))
        self._document.documentLayout().draw(painter, context)
        painter.restore()
        painter.setPen(colour)
        painter.setFont(self.font())
        painter.drawText(QRectF(rect.left() + width, rect.top(), rect.width() - width, rect.height()),
                         int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), ELLIPSIS)
