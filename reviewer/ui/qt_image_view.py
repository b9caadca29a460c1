"""The image of a mistake: fit to the window, zoom and pan, full resolution on demand.

The view paints a QImage itself (no QGraphicsScene): in fit mode the image
was decoded at the view's size and is painted 1:1, so showing the next
mistake costs one blit. Zooming past the fit scale asks for the full
resolution (`full_resolution_wanted`) and paints the fit image enlarged
until it arrives. Most ImageNet files are smaller than the view: fit shows
them at their own pixels (100 %), never blown up and blurred, unless
`enlarge_small` is set (View menu); the corner always says the file's size
and the zoom.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from reviewer.ui._overlay_labels import PlacedLabel, place_labels
from reviewer.ui.image_loader import ImageKey, fit_key
from reviewer.ui.plain import plain_tip

ZOOM_STEP = 1.25
MAX_ZOOM = 16.0
BACKGROUND = QColor("#1e1f22")


class QtImageView(QWidget):
    full_resolution_wanted = Signal()
    resized = Signal()

    def __init__(self, parent: QWidget | None = None, *, preferred: QSize | None = None):
        """`preferred`: the size asked of a layout (where the view shares a column with parts that
        give way with it on a short window); None: none (a stretch factor sizes it)."""
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(240, 180)
        self._preferred = preferred
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self._image: QImage | None = None  # the best image we have
        self._original = QSize()  # the file's size in pixels
        self._zoom: float | None = None  # image pixels -> device pixels; None: fit
        self._center = QPointF(0.5, 0.5)  # shown centre, as a fraction of the image
        self._message = ""
        self._detail = ""
        self._warning = ""
        self._drag_from: QPointF | None = None
        self.enlarge_small = False  # fit enlarges a file smaller than the view (else it stays at 100 %)
        # Boxes drawn over the image (the zoom probe's crops): (rect in file pixels, colour, label).
        self._overlay: list[tuple[QRectF, QColor, str]] = []
        self._placed: list[PlacedLabel] = []  # where their labels were painted (reviewer.ui._overlay_labels)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self._preferred if self._preferred is not None else super().sizeHint()

    # -- content -------------------------------------------------------------
    def show_image(self, image: QImage, original: QSize, *, keep_view: bool = False, warning: str = "") -> None:
        """Show a decoded image of a file of size `original` (fit unless `keep_view`);
        a `warning` (a damaged file) is written over the image's bottom edge."""
        self._image, self._original = image, QSize(original) if original.isValid() else image.size()
        self._message = self._detail = ""
        self._warning = warning
        if not keep_view:
            self._zoom, self._center = None, QPointF(0.5, 0.5)
        self.update()

    def set_overlay(self, boxes: list[tuple[QRectF, QColor, str]]) -> None:
        """Draw these boxes (file pixels) over the image, until replaced; [] removes them."""
        if not boxes and not self._overlay:
            return  # nothing drawn, nothing to draw: no repaint
        self._overlay = list(boxes)
        self._placed = []  # placed again as painted
        self.update()

    @property
    def overlay(self) -> list[tuple[QRectF, QColor, str]]:
        return self._overlay

    def show_message(self, message: str, detail: str = "") -> None:
        """A placeholder instead of an image (missing file, unreadable, loading)."""
        self._image, self._message, self._detail = None, message, detail
        self._zoom = None
        self.update()

    @property
    def message(self) -> str:
        return self._message

    @property
    def warning(self) -> str:
        return self._warning

    def has_image(self) -> bool:
        return self._image is not None

    def image_size(self) -> QSize:
        return self._image.size() if self._image is not None else QSize()

    def fit_bounds(self) -> QSize:
        """The size, in device pixels, a fit image should be decoded at."""
        ratio = self.devicePixelRatioF()
        return QSize(max(1, int((self.width() - 8) * ratio)), max(1, int((self.height() - 8) * ratio)))

    def fit_key(self, path) -> ImageKey:
        """The decode this view paints 1:1 in fit mode."""
        return fit_key(path, self.fit_bounds(), enlarge=self.enlarge_small)

    def set_enlarge_small(self, enlarge: bool) -> None:
        self.enlarge_small = enlarge
        self.set_zoom(None)
        self.resized.emit()  # the fit image is decoded again

    def is_fit(self) -> bool:
        return self._zoom is None

    # -- zoom and pan --------------------------------------------------------------
    def fit_scale(self) -> float:
        """File pixels -> device pixels when the whole image fits the view."""
        if not self._original.isValid() or self._original.isEmpty():
            return 1.0
        bounds = self.fit_bounds()
        scale = min(bounds.width() / self._original.width(), bounds.height() / self._original.height())
        return scale if self.enlarge_small else min(scale, 1.0)

    def zoom(self) -> float:
        return self.fit_scale() if self._zoom is None else self._zoom

    def min_zoom(self) -> float:
        """Fit, or 1:1 when the file is smaller than the view (its true pixels)."""
        return min(self.fit_scale(), 1.0)

    def set_zoom(self, zoom: float | None, anchor: QPointF | None = None) -> None:
        """Zoom (file pixels -> device pixels; None: fit), keeping `anchor` (widget point) still."""
        if self._image is None:
            return
        if zoom is not None:
            zoom = max(min(zoom, MAX_ZOOM), self.min_zoom())
            if abs(zoom - self.fit_scale()) < 1e-6:
                zoom = None
        if anchor is not None and zoom is not None:
            before = self._to_image(anchor)
            self._zoom = zoom
            after = self._to_image(anchor)
            self._center += before - after
        else:
            self._zoom = zoom
        if zoom is None:
            self._center = QPointF(0.5, 0.5)
        self._clamp()
        if zoom is not None and self._image.size() != self._original and \
                (zoom > self.fit_scale() or self._image.width() > self._original.width()):
            # Past fit the fit image lacks detail; below fit (a small file) it was enlarged.
            self.full_resolution_wanted.emit()
        self.update()

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom() * ZOOM_STEP)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom() / ZOOM_STEP)

    def zoom_fit(self) -> None:
        self.set_zoom(None)

    def zoom_actual(self) -> None:
        """1:1 with the file's pixels (or back to fit when already there)."""
        self.set_zoom(None if self._zoom is not None and abs(self._zoom - 1.0) < 1e-6 else 1.0)

    def pan(self, dx: float, dy: float) -> None:
        """Move the view by a fraction of its size."""
        scale = self.zoom() / self.devicePixelRatioF()
        if self._original.isEmpty():
            return
        self._center += QPointF(dx * self.width() / (scale * self._original.width()),
                                dy * self.height() / (scale * self._original.height()))
        self._clamp()
        self.update()

    def _clamp(self) -> None:
        if self._original.isEmpty():
            return
        scale = self.zoom() / self.devicePixelRatioF()
        half_w = min(0.5, self.width() / (2 * scale * self._original.width()))
        half_h = min(0.5, self.height() / (2 * scale * self._original.height()))
        self._center = QPointF(min(max(self._center.x(), half_w), 1 - half_w),
                               min(max(self._center.y(), half_h), 1 - half_h))

    def _target_rect(self) -> QRectF:
        """Where the whole image lies, in widget coordinates."""
        scale = self.zoom() / self.devicePixelRatioF()
        w, h = self._original.width() * scale, self._original.height() * scale
        return QRectF(self.width() / 2 - self._center.x() * w, self.height() / 2 - self._center.y() * h, w, h)

    def _to_image(self, point: QPointF) -> QPointF:
        rect = self._target_rect()
        return QPointF((point.x() - rect.x()) / rect.width(), (point.y() - rect.y()) / rect.height())

    # -- events --------------------------------------------------------------
    def wheelEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        steps = event.angleDelta().y() / 120
        if steps and self._image is not None:
            self.set_zoom(self.zoom() * (ZOOM_STEP ** steps), anchor=event.position())
        event.accept()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag_from = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        if self._drag_from is not None:
            delta = event.position() - self._drag_from
            self._drag_from = event.position()
            self.pan(-delta.x() / max(1, self.width()), -delta.y() / max(1, self.height()))

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        self._drag_from = None
        self.unsetCursor()

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802
        self.set_zoom(None if self._zoom is not None else 1.0, anchor=event.position())

    def resizeEvent(self, event) -> None:  # noqa: N802
        self._clamp()
        super().resizeEvent(event)
        self.resized.emit()

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.fillRect(self.rect(), BACKGROUND)
        if self._image is None:
            self._paint_message(painter)
            return
        blit = self._blit_rect()
        if blit is not None:
            target = blit
            painter.drawImage(target.topLeft(), self._image)
        else:
            target = self._target_rect()
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, self.zoom() < 2.0)
            painter.drawImage(target, self._image, QRectF(0, 0, self._image.width(), self._image.height()))
        if self._overlay:
            self._paint_overlay(painter, target)
        self._paint_scale(painter)
        if self._warning:
            self._paint_warning(painter)

    def _paint_overlay(self, painter: QPainter, target: QRectF) -> None:
        sx, sy = target.width() / self._original.width(), target.height() / self._original.height()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = painter.fontMetrics()
        painter.save()
        painter.setClipRect(target)  # nothing drawn past the image's edges
        boxes = [QRectF(target.x() + rect.x() * sx, target.y() + rect.y() * sy, rect.width() * sx, rect.height() * sy)
                 for rect, _colour, _label in self._overlay]
        for box, (_rect, colour, _label) in zip(boxes, self._overlay):
            # Outlines only (a dark edge under the colour, readable on any photo): nine
            # overlapping tinted crops hid the object they are about.
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(QColor(0, 0, 0, 150), 4))
            painter.drawRect(box.adjusted(2, 2, -2, -2))
            painter.setPen(QPen(colour, 2))
            painter.drawRect(box.adjusted(2, 2, -2, -2))
        # The labels where none covers another or the badges (the tooltip has each whole).
        self._placed = place_labels(boxes, [label for _rect, _colour, label in self._overlay], metrics,
                                    bounds=target.intersected(QRectF(self.rect())), avoid=self._badges(metrics))
        for placed in self._placed:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(0, 0, 0, 170))
            painter.drawRect(placed.band)
            painter.setPen(self._overlay[placed.index][1])
            painter.drawText(placed.band, Qt.AlignmentFlag.AlignCenter, placed.text)
        painter.restore()

    @property
    def placed_labels(self) -> list[PlacedLabel]:
        """The crop labels as last painted: where, and what of each."""
        return list(self._placed)

    def labels_at(self, point: QPointF) -> list[str]:
        """The whole labels of the crops under `point` (widget coordinates), as last painted."""
        blit = self._blit_rect()
        target = blit if blit is not None else self._target_rect()
        if self._image is None or not self._overlay or self._original.isEmpty():
            return []
        band = next((p for p in self._placed if p.band.contains(point)), None)
        if band is not None:
            return [band.whole]
        sx, sy = target.width() / self._original.width(), target.height() / self._original.height()
        return [label for rect, _colour, label in self._overlay if label and QRectF(
            target.x() + rect.x() * sx, target.y() + rect.y() * sy, rect.width() * sx, rect.height() * sy).contains(point)]

    def event(self, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.ToolTip:
            labels = self.labels_at(QPointF(event.pos()))
            if labels:
                QToolTip.showText(event.globalPos(), plain_tip("Crops here: " + "\n".join(labels)
                                                               if len(labels) > 1 else labels[0]), self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def _badges(self, metrics) -> list[QRectF]:
        """What the crop labels keep clear of: the corner's size and zoom, a damaged file's warning."""
        out = [self._scale_box(metrics)]
        if self._warning:
            out.append(self._warning_band(metrics))
        return out

    def _warning_band(self, metrics) -> QRectF:
        return QRectF(0, self.height() - metrics.height() * 2 - 8, self.width(), metrics.height() * 2 + 8)

    def _paint_warning(self, painter: QPainter) -> None:
        metrics = painter.fontMetrics()
        text = f"⚠ Damaged file, {self._warning}"
        band = self._warning_band(metrics)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(60, 40, 10, 225))
        painter.drawRect(band)
        painter.setPen(QColor("#f0b45a"))
        painter.drawText(band.adjusted(10, 2, -10, -2), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, text)

    def _blit_rect(self) -> QRectF | None:
        """Where a fit image decoded at (about) the view's size is painted 1:1, one blit with
        no scaling (None: it is scaled to `_target_rect`). It may be a few pixels off the
        exact fit until a resize's new decode arrives."""
        if self._image is None or self._zoom is not None:
            return None
        ratio = self.devicePixelRatioF()
        if abs(self._target_rect().width() * ratio - self._image.width()) >= 40 or \
                self._image.width() > self.width() * ratio or self._image.height() > self.height() * ratio:
            return None
        w, h = self._image.width() / ratio, self._image.height() / ratio
        return QRectF(round((self.width() - w) / 2), round((self.height() - h) / 2), w, h)

    def shown_scale(self) -> float:
        """File pixels -> device pixels as painted now (the fit image blitted 1:1 is at
        its decoded size, which may differ a little from the exact fit)."""
        blit = self._blit_rect()
        if blit is not None and self._original.width() > 0:
            return self._image.width() / self._original.width()
        return self.zoom()

    def scale_text(self) -> str:
        """What the corner says: the file's pixels and the scale they are painted at."""
        if self._image is None or self._original.isEmpty():
            return ""
        size = f"{self._original.width()} × {self._original.height()} px"
        return f"{size} · {'fit ' if self._zoom is None else ''}{self.shown_scale() * 100:.0f} %"

    def _scale_box(self, metrics) -> QRectF:
        """Where the corner's size and zoom go (the fit badge)."""
        box = QRectF(0, 0, metrics.horizontalAdvance(self.scale_text()) + 12, metrics.height() + 4)
        box.moveTopRight(QPointF(self.width() - 6, 6))
        return box

    def _paint_scale(self, painter: QPainter) -> None:
        text = self.scale_text()
        metrics = painter.fontMetrics()
        box = self._scale_box(metrics)
        # A dark plate keeps the text readable over a bright image.
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(20, 21, 24, 170))
        painter.drawRoundedRect(box, 4, 4)
        painter.setPen(QColor("#d0d0d0") if self._zoom is not None else QColor("#a9adb3"))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_message(self, painter: QPainter) -> None:
        if not self._message:
            return
        box = self.rect().adjusted(24, 24, -24, -24)
        painter.setPen(QPen(QColor("#6b6f76"), 2, Qt.PenStyle.DashLine))
        painter.drawRoundedRect(box, 10, 10)
        title = QFont(self.font())
        title.setPointSizeF(title.pointSizeF() * 1.4)
        title.setBold(True)
        painter.setFont(title)
        painter.setPen(QColor("#e4e4e4"))
        upper = box.adjusted(16, 0, -16, -box.height() // 2 - 4)
        painter.drawText(upper, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom, self._message)
        painter.setFont(self.font())
        painter.setPen(QColor("#a9adb3"))
        lower = box.adjusted(16, box.height() // 2 + 4, -16, 0)
        painter.drawText(lower, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                         self._detail)
