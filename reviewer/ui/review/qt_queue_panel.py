"""The queue of a run's mistakes: filters, sorting, counts and the list itself.

`QueueModel` is a thin adapter over `reviewer.review.queue.ReviewQueue` (which
holds the rows and does the filtering); the delegate paints each row as the
panelist's verdict chip, the file name and "predicted · confidence · distance",
and at the right of the first line the panel's standing (`row_marks`): the decided
value in its verdict's colour, a dispute, my phase-2 rating still to give,
problematic, discussion notes; each mark has its own tooltip in words.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QRect, QSize, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPainter
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QSpinBox,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionSpinBox,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from reviewer.classes.search import class_names_for_completion, search_classes
from reviewer.classes.vocabulary import load_classes
from reviewer.review.queue import ReviewQueue
from reviewer.review.queue_entry import QueueEntry
from reviewer.review.queue_filter import QueueEvidence, QueueFilter, QueueSort, QueueStatus
from reviewer.terms import Verdict
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.review.qt_progress_strip import QtProgressStrip
from reviewer.ui.review.qt_scope_notes import QtScopeNotes
from reviewer.ui.theme import ACCENT, ERROR, KIND_COLOURS, MUTED, WARNING, style_headline, style_muted


class QueueModel(QStringListModel):
    """The rows of the list view. The entries live in the `ReviewQueue`; this
    C++ model only supplies the row count (QListView asks a model's rowCount
    tens of thousands of times per move, too slow as a Python override), and
    the delegate paints each row from the queue."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.queue: ReviewQueue | None = None
        self.pending: set[tuple[int, int]] = set()  # items whose vote is being written

    def set_queue(self, queue: ReviewQueue | None) -> None:
        self.queue = queue
        self.setStringList([""] * (len(queue) if queue is not None else 0))

    def entry(self, row: int) -> QueueEntry | None:
        return self.queue[row] if self.queue is not None and 0 <= row < len(self.queue) else None


@dataclass(frozen=True)
class RowMark:
    """One mark of the panel's standing at the right of a row: its glyph or word, colour,
    and the tooltip that says it in words."""

    text: str
    colour: str
    tip: str
    boxed: bool = False  # the decided value: a word outlined in its verdict's colour


def row_marks(entry: QueueEntry) -> list[RowMark]:
    """The marks a row shows, left to right (the domain's `ItemState` in glyphs)."""
    state, marks = entry.state, []
    if state.decision is not None:
        decision = state.decision
        tip = decision.describe()
        if state.my_verdict is not None and state.my_verdict != decision.verdict:
            tip += f". Your vote: {Verdict(state.my_verdict).caption}"
        marks.append(RowMark(Verdict(decision.verdict).caption if decision.verdict else "Decided",
                             KIND_COLOURS.get(decision.verdict, MUTED), tip, boxed=True))
    if state.dispute is not None:
        marks.append(RowMark("≠ disputed", WARNING, state.dispute.describe()))
    if state.awaits_my_rating:
        marks.append(RowMark("② rate", WARNING, "Phase 2: the verdict stands wrong; your severity and category "
                                                "are still to give"))
    if state.problematic:
        marks.append(RowMark("⚑", ERROR, "Problematic: the panel decided the image's ground-truth label "
                                         "is problematic"))
    if state.notes:
        plural = "s" if state.notes != 1 else ""
        marks.append(RowMark(f"✎{state.notes}", ACCENT, f"{state.notes} discussion note{plural} on this mistake "
                                                        "(the meeting's Discussion tab shows them while the "
                                                        "item is disputed; 'reviewer show' always)"))
    return marks


MARK_GAP, BOX_PAD = 6, 5


def _mark_rects(line: QRect, metrics: QFontMetrics, marks: list[RowMark]) -> list[QRect]:
    """Where each mark sits: right-aligned in `line`, in order."""
    rects, right = [], line.right()
    for mark in reversed(marks):
        width = metrics.horizontalAdvance(mark.text) + (2 * BOX_PAD if mark.boxed else 0)
        rects.append(QRect(right - width + 1, line.y() + (line.height() - metrics.height()) // 2 - 1, width,
                           metrics.height() + 2))
        right -= width + MARK_GAP
    return rects[::-1]


def _lines(rect: QRect) -> tuple[QRect, QRect]:
    """A row's two lines of text, right of the vote dot."""
    rect = rect.adjusted(8, 3, -8, -3)
    text_x = rect.x() + 18
    width = rect.right() - text_x
    return (QRect(text_x, rect.y(), width, rect.height() // 2),
            QRect(text_x, rect.y() + rect.height() // 2, width, rect.height() // 2))


def _tooltip(entry: QueueEntry) -> str:
    names = load_classes().names
    label = names[entry.original_label] if entry.original_label is not None else "unknown"
    distance = "?" if entry.hierarchy_distance is None else entry.hierarchy_distance
    mine = f"your vote: {Verdict(entry.my_verdict).caption}" if entry.my_verdict else "you have not voted"
    return (f"{entry.file_name}\npredicted {names[entry.predicted]} ({entry.probability:.1%})\n"
            f"label {label}, WordNet distance {distance}\n"
            f"{'novel' if entry.novel else 'previously reviewed'}; {mine}"
            + "".join(f"\n{mark.tip}" for mark in row_marks(entry))
            + (f"\nevidence: {entry.sources_accepting} sources accept the prediction, {entry.sources_rejecting} "
               f"reject it ({entry.sources_covering} cover the image)" if entry.sources_covering else ""))


class QueueDelegate(QStyledItemDelegate):
    HEIGHT = 42

    def sizeHint(self, option, index) -> QSize:  # noqa: N802
        return QSize(200, self.HEIGHT)

    def helpEvent(self, event, view, option, index) -> bool:  # noqa: N802
        entry = index.model().entry(index.row())
        if entry is None or event.type() != QEvent.Type.ToolTip:
            return super().helpEvent(event, view, option, index)
        # Over a mark, what that mark means; elsewhere the whole row in words.
        marks = row_marks(entry)
        top, _bottom = _lines(option.rect)
        for mark, rect in zip(marks, _mark_rects(top, QFontMetrics(option.font), marks)):
            if rect.contains(event.pos()):
                QToolTip.showText(event.globalPos(), plain_tip(mark.tip), view, rect)
                return True
        QToolTip.showText(event.globalPos(), plain_tip(_tooltip(entry)), view, option.rect)
        return True

    def paint(self, painter: QPainter, option, index) -> None:
        model = index.model()
        entry = model.entry(index.row())
        if entry is None:
            return
        pending = entry.item in model.pending
        painter.save()
        selected = option.state & QStyle.StateFlag.State_Selected
        painter.fillRect(option.rect, option.palette.highlight() if selected else option.palette.base())
        rect = option.rect.adjusted(8, 3, -8, -3)
        colour = QColor(KIND_COLOURS.get(entry.my_verdict, "#3a3d42") if entry.my_verdict else "#3a3d42")
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        dot = QRect(rect.x(), rect.y() + 5, 10, 10)
        painter.drawEllipse(dot)
        if pending:
            painter.setPen(QColor("#ffffff"))
            painter.drawText(QRect(rect.x() - 2, rect.y() + 14, 16, 16), Qt.AlignmentFlag.AlignCenter, "…")
        metrics = QFontMetrics(option.font)
        top, bottom = _lines(option.rect)
        names = load_classes().names
        # The panel's standing at the right of the first line; the class name takes what is left.
        marks = row_marks(entry)
        rects = _mark_rects(top, metrics, marks)
        room = (rects[0].left() - MARK_GAP if rects else top.right()) - top.left()
        for mark, box in zip(marks, rects):
            painter.setPen(QColor(mark.colour))
            if mark.boxed:  # on the list's own dark ground, so it reads on a selected row too
                painter.setBrush(option.palette.base())
                painter.drawRoundedRect(box.adjusted(0, 0, -1, -1), 4, 4)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, mark.text)
        painter.setPen(option.palette.highlightedText().color() if selected else option.palette.text().color())
        flags = "" if entry.novel else " ↺"
        name = metrics.elidedText(names[entry.predicted], Qt.TextElideMode.ElideRight,
                                  room - metrics.horizontalAdvance(flags)) + flags
        painter.drawText(top, Qt.AlignmentFlag.AlignVCenter, name)
        painter.setPen(QColor("#d8dbe0") if selected else QColor(MUTED))
        distance = "" if entry.hierarchy_distance is None else f" · dist {entry.hierarchy_distance}"
        label = names[entry.original_label] if entry.original_label is not None else "?"
        painter.drawText(bottom, Qt.AlignmentFlag.AlignVCenter, metrics.elidedText(
            f"{entry.probability:.0%}{distance} · label {label}", Qt.TextElideMode.ElideRight, bottom.width()))
        painter.restore()


COUNTS_LINES = 3


class QtCountsLabel(QLabel):
    """The queue's counts (plain text), its whole text as tooltip: at the narrowest queue a
    fourth line would be cut by the fixed height."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802
        super().setText(text)
        self.setToolTip(plain_tip(text))


class QtQueuePanel(QWidget):
    """Filters over the list; `filter_changed` carries the new QueueFilter."""

    filter_changed = Signal(object)
    editing_done = Signal()  # Enter or Esc in the class field: keys go back to reviewing

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        layout.setSpacing(6)
        self.counts = QtCountsLabel("No run")
        style_headline(self.counts, 11)
        self.counts.setWordWrap(True)
        # Three lines, whatever the counts say: a header that wrapped to one line more as the
        # counts grew moved every filter box down a line under the panelist's mouse.
        self.counts.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.counts.setFixedHeight(self.counts.fontMetrics().lineSpacing() * COUNTS_LINES + 2)
        layout.addWidget(self.counts)
        self.progress = QtProgressStrip()
        layout.addWidget(self.progress)
        self.scope_notes = QtScopeNotes()  # a run outside the panel's scope; items that no longer count
        layout.addWidget(self.scope_notes)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setContentsMargins(0, 0, 0, 0)
        form.setSpacing(4)
        self.status = QComboBox()
        for status in QueueStatus:
            self.status.addItem(status.title, status.value)
        self.sort = QComboBox()
        for sort in QueueSort:
            self.sort.addItem(sort.title, sort.value)
        self.evidence = QComboBox()  # what the published relabelings say (reviewer.evidence)
        for evidence in QueueEvidence:
            self.evidence.addItem(evidence.title, evidence.value)
        self.class_filter = QLineEdit()
        self.class_filter.setPlaceholderText("class name, wnid or index")
        self.class_filter.setClearButtonEnabled(True)
        # The list of matching names pops up while typing, to pick one class exactly.
        completer = QCompleter(class_names_for_completion(), self.class_filter)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setMaxVisibleItems(12)
        self.class_filter.setCompleter(completer)
        # Cleared (its x button, or the text deleted): no list of all 1000 classes pops up to
        # take the next keys.
        self.class_filter.textChanged.connect(
            lambda text: None if text else QTimer.singleShot(0, completer.popup().hide))
        self.min_distance, self.max_distance = QSpinBox(), QSpinBox()
        for box in (self.min_distance, self.max_distance):
            box.setRange(-1, 20)
            box.setSpecialValueText("any")
            box.setValue(-1)
        self.min_confidence, self.max_confidence = QDoubleSpinBox(), QDoubleSpinBox()
        for box, value in ((self.min_confidence, 0.0), (self.max_confidence, 100.0)):
            box.setRange(0.0, 100.0)
            box.setDecimals(0)
            box.setSuffix(" %")
            box.setValue(value)
        # Named for the status strip, which says which field has the keys (reviewer.ui.qt_keys_indicator).
        for box, name in ((self.class_filter, "the class filter"), (self.min_distance, "the lowest distance"),
                          (self.max_distance, "the highest distance"),
                          (self.min_confidence, "the lowest confidence"),
                          (self.max_confidence, "the highest confidence")):
            box.setAccessibleName(name)
        form.addRow("Show", self.status)
        form.addRow("Class", self.class_filter)
        form.addRow("Distance", _pair(self.min_distance, self.max_distance))
        form.addRow("Confidence", _pair(self.min_confidence, self.max_confidence))
        form.addRow("Evidence", self.evidence)
        form.addRow("Sort", self.sort)
        layout.addLayout(form)
        self.class_hint = text_label()
        style_muted(self.class_hint)
        self.class_hint.setWordWrap(True)
        self.class_hint.hide()
        layout.addWidget(self.class_hint)
        self.model = QueueModel(self)
        self.view = QListView()
        self.view.setModel(self.model)
        self.view.setItemDelegate(QueueDelegate(self.view))
        self.view.setUniformItemSizes(True)
        self.view.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.view.setVerticalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        layout.addWidget(self.view, 1)
        # Typing in the class field waits a moment, so every keystroke is not a refilter.
        self._debounce = QTimer(self, singleShot=True, interval=250, timeout=self._emit)
        for combo in (self.status, self.evidence, self.sort):
            combo.currentIndexChanged.connect(self._emit)
        for box in (self.min_distance, self.max_distance, self.min_confidence, self.max_confidence):
            box.valueChanged.connect(self._debounce.start)
        self.class_filter.textChanged.connect(self._debounce.start)
        self.class_filter.returnPressed.connect(self.finish_editing)
        # A filter set with the mouse hands the keys back to the review at once: a combo
        # box chosen from, a spin box's arrows clicked (typing in one ends with Enter or Esc).
        for combo in (self.status, self.evidence, self.sort):
            combo.activated.connect(lambda _index: self.finish_editing())
        for box in (self.min_distance, self.max_distance, self.min_confidence, self.max_confidence):
            box.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.MouseButtonRelease and isinstance(watched, QAbstractSpinBox) \
                and _on_arrows(watched, event.position().toPoint()):
            QTimer.singleShot(0, self.finish_editing)  # after the click has stepped the value
        return False

    def refresh_items(self, keys) -> None:
        """Repaint the rows of these items (their state changed). Their rectangles only:
        the model's dataChanged made the list repaint every visible row."""
        queue, viewport = self.model.queue, self.view.viewport()
        for key in keys:
            row = queue.row_of(key) if queue is not None else None
            if row is not None:
                rect = self.view.visualRect(self.model.index(row))
                if rect.intersects(viewport.rect()):
                    viewport.update(rect)

    def finish_editing(self) -> None:
        """Apply the filter now (not after the typing pause) and give the keys back to the review."""
        if self._debounce.isActive():
            self._debounce.stop()
            self._emit()
        self.editing_done.emit()

    def current_filter(self) -> QueueFilter:
        return QueueFilter(
            status=self.status.currentData(), sort=self.sort.currentData(), evidence=self.evidence.currentData(),
            classes=self._classes(self.class_filter.text()),
            min_distance=None if self.min_distance.value() < 0 else self.min_distance.value(),
            max_distance=None if self.max_distance.value() < 0 else self.max_distance.value(),
            min_confidence=self.min_confidence.value() / 100 if self.min_confidence.value() > 0 else None,
            max_confidence=self.max_confidence.value() / 100 if self.max_confidence.value() < 100 else None)

    def set_status(self, status: str) -> None:
        self.status.setCurrentIndex(self.status.findData(status))

    def _classes(self, text: str) -> frozenset[int] | None:
        """The classes the filter text names (None: no filter); the hint says which."""
        found = search_classes(text)
        if found.description:
            self._hint(found.description)
        else:
            self.class_hint.hide()
        return found.classes

    def _hint(self, text: str) -> None:
        self.class_hint.setText(text)
        self.class_hint.show()

    def _emit(self) -> None:
        queue_filter = self.current_filter()
        if queue_filter.notes:  # a range given upside down, read the right way up (QueueFilter): said so
            class_words = "" if self.class_hint.isHidden() else self.class_hint.text()
            self._hint(" · ".join(w for w in (class_words, *queue_filter.notes) if w))
        self.filter_changed.emit(queue_filter)


def _on_arrows(box: QAbstractSpinBox, point) -> bool:
    """Whether `point` is on the spin box's up or down arrow."""
    option = QStyleOptionSpinBox()
    box.initStyleOption(option)
    control = box.style().hitTestComplexControl(QStyle.ComplexControl.CC_SpinBox, option, point, box)
    return control in (QStyle.SubControl.SC_SpinBoxUp, QStyle.SubControl.SC_SpinBoxDown)


def _pair(left: QWidget, right: QWidget) -> QWidget:
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(left, 1)
    row.addWidget(QLabel("to"))
    row.addWidget(right, 1)
    return box
