"""The zoom probe in the review page (Taesiri et al., ImageNet-Hard §3): a strip of
the 36 scales x 3x3 crops under the image, each crop coloured by its top-1 (an
accepted label, the mistake's prediction, something else, not computed yet), and
the chosen scale's nine crop boxes drawn over the image.

X runs the probe for the shown mistake (on a worker thread; the strip fills in as
the scales come) or, when a result is stored, shows and hides it; [ and ] step the
scale drawn over the image. A stored result is read for every mistake shown, so
what one panelist computed, every panelist sees.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from reviewer.app import zoom as zoom_acts
from reviewer.classes.vocabulary import load_classes
from reviewer.items import Item
from reviewer.ui.qt_elided_label import QtElidedLabel
from reviewer.ui.theme import KIND_COLOURS, MUTED, style_muted
from reviewer.ui.workers import Worker

OUTCOME_COLOURS = {"accepted": QColor(KIND_COLOURS["correct"]), "prediction": QColor(KIND_COLOURS["wrong"]),
                   "other": QColor("#8b949e"), "missing": QColor("#30343a")}
OUTCOME_WORDS = {"accepted": "an accepted label", "prediction": "the prediction", "other": "another class",
                 "missing": "not computed yet"}
TICKS = (10, 64, 128, 224, 384, 512, 768, 1024)
LEGEND = "green: an accepted label, red: the prediction, grey: another class, dark: not computed yet"


class QtZoomStrip(QWidget):
    """36 columns (scales, smallest left) of 3x3 crops; a click picks the scale drawn."""

    scale_picked = Signal(int)  # index into the scales

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = None  # reviewer.app.zoom.ZoomView
        self.selected = 0
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(54)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(600, 54)

    def set_view(self, view, selected: int) -> None:
        self.view, self.selected = view, selected
        self.update()

    def _column_width(self) -> float:
        scales = self.view.result.params.scales if self.view else ()
        return self.width() / max(1, len(scales))

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if self.view is not None:
            index = int(event.position().x() // self._column_width())
            self.scale_picked.emit(max(0, min(index, len(self.view.result.params.scales) - 1)))

    def paintEvent(self, event) -> None:  # noqa: N802
        if self.view is None:
            return
        painter = QPainter(self)
        scales = self.view.result.params.scales
        width = self._column_width()
        cell = min((width - 2) / 3, 11.0)
        outcome = {(c.scale, c.row, c.col): c.outcome for c in self.view.cells}
        for i, scale in enumerate(scales):
            x0 = i * width + (width - 3 * cell) / 2
            for row in range(3):
                for col in range(3):
                    painter.fillRect(QRectF(x0 + col * cell, 2 + row * cell, cell - 1, cell - 1),
                                     OUTCOME_COLOURS[str(outcome.get((scale, row, col), "missing"))])
            if i == self.selected:
                painter.setPen(QColor("#ffffff"))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(QRectF(x0 - 2, 0, 3 * cell + 3, 3 * cell + 3))
            if scale in TICKS:
                painter.setPen(QColor(MUTED))
                last = i == len(scales) - 1  # kept inside the strip
                box = QRectF(self.width() - 60, 3 * cell + 6, 60, 16) if last else \
                    QRectF(i * width - 20, 3 * cell + 6, width + 40, 16)
                painter.drawText(box, Qt.AlignmentFlag.AlignRight if last else Qt.AlignmentFlag.AlignHCenter,
                                 str(scale))


class QtZoomPanel(QWidget):
    """The strip, a line saying what it found, and the probe's worker."""

    overlay_changed = Signal(object)  # [(QRectF in file pixels, QColor, label)], [] for none
    message = Signal(str, bool)
    _progress = Signal(object, object)  # (item, ZoomView) from the probe's thread

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.setSpacing(2)
        # One line, cut with "…" where narrow (its tooltip has it whole): a wrapping line made the
        # panel's height depend on the text, and a window forced short painted the strip over it.
        self.summary = QtElidedLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)  # the model's and panelist's names are stored strings
        style_muted(self.summary)
        self.summary.setFixedHeight(self.summary.fontMetrics().lineSpacing() + 2)
        self.strip = QtZoomStrip()
        self.strip.setToolTip(f"Each column a scale (smallest left), each a 3x3 grid of crops: {LEGEND}. "
                              "Click a column to draw its crops over the image ([ and ] step)")
        self.strip.scale_picked.connect(self.pick_scale)
        layout.addWidget(self.summary)
        layout.addWidget(self.strip)
        self.worker = Worker(threads=1, name="zoom", parent=self)
        self._progress.connect(self._partial)
        self.project = None
        self.run_id: int | None = None
        self.item: Item | None = None
        self.panelist_id: int | None = None
        self.view = None
        self.selected = 0
        self.visible_overlay = True
        self._running: Item | None = None
        self._stop = False
        self.setVisible(False)

    # -- the shown mistake --------------------------------------------------------
    def show_mistake(self, project, run_id: int | None, item: Item | None, panelist_id: int | None = None) -> None:
        """A mistake is shown: read its stored result (if any) off the UI thread, as the
        panelist `panelist_id` takes it (its own first; another's is named)."""
        if (project, run_id, item) == (self.project, self.run_id, self.item):
            return
        self.project, self.run_id, self.item, self.view = project, run_id, item, None
        self.panelist_id = panelist_id
        self._set_view(None)
        if item is not None and run_id is not None and self._running != item:
            self.worker.submit(zoom_acts.stored_zoom, project, run_id=run_id, item=item, reader_id=panelist_id,
                               on_done=lambda view, i=item: self._stored(i, view),
                               on_error=lambda e: self.message.emit(f"Zoom probe: {e}", True))

    def _stored(self, item: Item, view) -> None:
        if item == self.item and view is not None:
            self._set_view(view, pick=True)

    # -- the act -----------------------------------------------------------------
    def probe_or_toggle(self) -> None:
        """X: run the probe for the shown mistake; with a complete result shown, hide or show it."""
        if self.item is None or self.run_id is None:
            return
        if self._running is not None:
            self._stop = True
            self.message.emit("Zoom probe: stopping after the crops in flight…", False)
            return
        if self.view is not None and self.view.result.complete:
            self.visible_overlay = not self.visible_overlay
            self.setVisible(self.visible_overlay)
            self._emit_overlay()
            return
        self._running, self._stop = self.item, False
        item, run_id, project = self.item, self.run_id, self.project
        self.visible_overlay = True
        self.setVisible(True)
        self.summary.setText("Zoom probe: loading the run's model and cutting 324 crops…")
        self.worker.submit(zoom_acts.run_zoom, project, run_id=run_id, item=item, panelist_id=self.panelist_id,
                           progress=lambda view, i=item: self._progress.emit(i, view),
                           should_stop=lambda: self._stop,
                           on_done=lambda done, i=item: self._finished(i, done.value),
                           on_error=self._failed)

    def _partial(self, item: Item, view) -> None:
        if item == self.item:
            self._set_view(view, pick=self.view is None)

    def _finished(self, item: Item, view) -> None:
        self._running = None
        if item == self.item:
            self._set_view(view, pick=True)
        self.message.emit(f"Zoom probe done in {view.result.seconds:.1f} s: {view.text()}.", False)

    def _failed(self, error: BaseException) -> None:
        self._running = None
        self.summary.setText(f"Zoom probe failed: {error}")
        self.message.emit(f"Zoom probe: {error}", True)

    # -- scales -------------------------------------------------------------------
    def step_scale(self, step: int) -> None:
        if self.view is not None:
            self.pick_scale(max(0, min(self.selected + step, len(self.view.result.params.scales) - 1)))

    def pick_scale(self, index: int) -> None:
        self.selected = index
        self.strip.set_view(self.view, index)
        self._emit_overlay()
        self._describe()

    def _set_view(self, view, *, pick: bool = False) -> None:
        self.view = view
        if view is None:
            self.setVisible(False)
            self.strip.set_view(None, 0)
            self.overlay_changed.emit([])
            return
        self.setVisible(self.visible_overlay)
        if pick:  # the scale of the best accepted crop, else 224 (the models' own framing)
            best = view.summary.best
            scales = list(view.result.params.scales)
            self.selected = scales.index(best.scale) if best is not None else min(
                range(len(scales)), key=lambda i: abs(scales[i] - 224))
        self.strip.set_view(view, self.selected)
        self._emit_overlay()
        self._describe()

    def _describe(self) -> None:
        view = self.view
        if view is None:
            return
        scale = view.result.params.scales[self.selected]
        by = f", computed by {view.computed_by}" if view.computed_by else ""
        # Plain text: the model's name and the panelist's come from the database (issue 29).
        self.summary.setText(f"Zoom probe ({view.result.model}{by}): {view.text()}. Drawn: scale {scale} px "
                             f"([ and ] step; {LEGEND}).")

    def _emit_overlay(self) -> None:
        view = self.view
        if view is None or not self.visible_overlay:
            self.overlay_changed.emit([])
            return
        from reviewer.runs.zoom import zoom_grid  # geometry only (no model)

        scale = view.result.params.scales[self.selected]
        width, height = view.result.image_size
        names = load_classes().names
        cells = {(c.row, c.col): c for c in view.cells if c.scale == scale}
        boxes = []
        image = QRectF(0, 0, width, height)
        for grid in zoom_grid((width, height), [scale], view.result.params.crop_size):
            left, top, right, bottom = grid.box
            fx, fy = width / grid.resized[0], height / grid.resized[1]
            cell = cells.get((grid.row, grid.col))
            outcome = str(cell.outcome) if cell is not None else "missing"
            label = "" if cell is None or cell.top1 is None else f"{names[cell.top1]} {cell.probabilities[0]:.0%}"
            # A crop of a small scale reaches past the image (the paper pads it with zeros):
            # the part drawn is the part of the image it saw.
            box = QRectF(left * fx, top * fy, (right - left) * fx, (bottom - top) * fy).intersected(image)
            boxes.append((box, OUTCOME_COLOURS[outcome], label))
        self.overlay_changed.emit(boxes)

    def shutdown(self) -> None:
        self._stop = True
        self.worker.shutdown()

