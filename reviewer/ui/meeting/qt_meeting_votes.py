"""One item in the meeting: every panelist's vote side by side, the
majority, the decision, my own vote to change, the discussion and history,
and for the chair: lock the majority or override it with a reason.

The widget only shows an `ItemPanel` and emits what the panelist asks for;
the meeting runs the domain calls.

Free text a panelist wrote is never printed unbounded (issue 36: a vote's note may hold
131,072 characters): the discussion's notes, the history's lines and the decision's reason
are cut as the review page cuts them (`reviewer.ui.long_text`, through
`reviewer.app.panel.shown_text`) with a "show all" link to the whole in a dialog; a vote's
note in the table is cut the same way, and a double-click on it opens the whole.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPalette, QTextLayout, QTextOption
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from reviewer.app.panel import shown_text
from reviewer.panel.decisions import DecisionError, check_override
from reviewer.panel.meeting import ItemPanel
from reviewer.panel.state import decision_words
from reviewer.panel.votes import NOTE_MAX_CHARS as VOTE_NOTE_MAX_CHARS
from reviewer.terms import Category, Severity, Verdict
from reviewer.ui.long_text import PAGE_CHARS, LongTexts, whole_text_dialog
from reviewer.ui.meeting._meeting_layout import fill_with_scroll
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.review.qt_detail_panel import section_title
from reviewer.ui.theme import ERROR, KIND_COLOURS, MUTED, WARNING

DISCUSSION_MIN_HEIGHT = 150  # px: a few notes and the line to add one, when the pane scrolls
ROWS = (("verdict", "Verdict"), ("problematic", "Problematic"), ("severity", "Severity"),
        ("category", "Category"), ("oov_name", "OOV object"), ("note", "Note"))


def show_value(field: str, value) -> str:
    if value is None:
        return "–"
    if field == "problematic":
        return "yes" if value else "no"
    if field == "category":
        return Category(value).short_caption
    return str(value)


def _wrap_option(alignment=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter) -> QTextOption:
    option = QTextOption(alignment)
    # At word boundaries, and inside a word only when it is wider than the column
    # (Qt's default word wrap elides such a word: "Non-prototypi…", a note's "backgrou…").
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    return option


def wrapped_height(text: str, font: QFont, width: float) -> float:
    """Height of `text` laid out as QtWrappingDelegate paints it in `width` pixels."""
    layout = QTextLayout(text, font)
    layout.setTextOption(_wrap_option())
    layout.beginLayout()
    height = 0.0
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        height += line.height()
    layout.endLayout()
    return height


class QtWrappingDelegate(QStyledItemDelegate):
    """Table cells whose text wraps and is never elided: every word of a
    panelist's note and every category name stays readable in a narrow column."""

    @staticmethod
    def text_margin(widget: QWidget) -> int:
        return widget.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1

    def paint(self, painter, option, index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = opt.text, ""
        widget = opt.widget
        widget.style().drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        margin = self.text_margin(widget)
        painter.save()
        painter.setFont(opt.font)
        painter.setPen(opt.palette.color(QPalette.ColorGroup.Normal, QPalette.ColorRole.Text))
        painter.drawText(QRectF(opt.rect.adjusted(margin, 0, -margin, 0)), text,
                         _wrap_option(opt.displayAlignment))
        painter.restore()


def _combo(values, caption=str) -> QComboBox:
    combo = QComboBox()
    combo.addItem("–", None)
    for v in values:
        combo.addItem(caption(v), v.value)
    return combo


class QtLinkedBrowser(QTextBrowser):
    """A read-only text box whose links are the owner's to follow (`linkActivated`, as a
    QLabel's), so the review page's `LongTexts` bounds its texts and opens them whole."""

    linkActivated = Signal(str)  # noqa: N815 (QLabel's name: LongTexts connects to it)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setOpenLinks(False)
        self.anchorClicked.connect(lambda url: self.linkActivated.emit(url.toString()))


def bounded_note(note: str) -> str:
    """A vote's note as its table cell shows it: a few lines, the cut said, and how to read it whole."""
    shown = shown_text(note, PAGE_CHARS)
    return shown if shown == note else f"{shown} (double-click: show all)"


class QtOverrideDialog(QDialog):
    """The chair's decision against the majority, with the reason that is kept."""

    def __init__(self, item_text: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Override the panel's decision")
        self.verdict = _combo(Verdict)
        self.verdict.setCurrentIndex(1)
        self.problematic = QCheckBox("Problematic image")
        self.severity = _combo(Severity.panel())
        self.category = _combo(Category, lambda c: c.caption)
        self.oov_name = QLineEdit()
        self.reason = QPlainTextEdit()
        self.reason.setPlaceholderText("Why the panel's majority is set aside (kept in the history)")
        form = QFormLayout()
        form.addRow(text_label(item_text))
        form.addRow("Verdict", self.verdict)
        form.addRow("", self.problematic)
        form.addRow("Severity", self.severity)
        form.addRow("Category", self.category)
        form.addRow("OOV object", self.oov_name)
        form.addRow("Reason", self.reason)
        self.error = text_label()  # why OK did not record it; the dialog stays open with what was entered
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {ERROR}")
        self.error.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        # Severity and category are rated for a "wrong" decision only.
        self.verdict.currentIndexChanged.connect(self._verdict_changed)
        self.category.currentIndexChanged.connect(self._verdict_changed)
        self._verdict_changed()

    def _verdict_changed(self) -> None:
        wrong = self.verdict.currentData() == Verdict.WRONG
        for box in (self.severity, self.category):
            box.setEnabled(wrong)
        category = self.category.currentData()
        self.oov_name.setEnabled(wrong and category is not None and Category(category).needs_name)

    def accept(self) -> None:
        """Record only what the override rules accept (`check_override`, the rules the
        decision is written under); otherwise say why and keep the dialog open."""
        decision = self.decision()
        try:
            check_override(verdict=decision["verdict"], reason=decision["reason"],
                           severity=decision["severity"], category=decision["category"])
        except DecisionError as exc:
            self.error.setText(f"{str(exc)[:1].upper()}{str(exc)[1:]}.")
            self.error.show()
            (self.reason if not decision["reason"] else self.verdict).setFocus()
            return
        super().accept()

    def prefill(self, *, verdict=None, problematic=False, severity=None, category=None, oov_name=None) -> None:
        """Start from what stands (the majority, or the decision): the chair changes what is set aside,
        and a reason plus OK never turns a unanimous 'wrong' into the dialog's first verdict."""
        for combo, value in ((self.verdict, verdict), (self.severity, severity), (self.category, category)):
            index = combo.findData(str(value) if value is not None else None)
            if index >= 0:
                combo.setCurrentIndex(index)
        self.problematic.setChecked(bool(problematic))
        self.oov_name.setText(oov_name or "")

    def decision(self) -> dict:
        wrong = self.verdict.currentData() == Verdict.WRONG
        return {"verdict": self.verdict.currentData(), "problematic": self.problematic.isChecked(),
                "severity": self.severity.currentData() if wrong else None,
                "category": self.category.currentData() if wrong else None,
                "oov_name": (self.oov_name.text().strip() or None) if self.oov_name.isEnabled() else None,
                "reason": self.reason.toPlainText().strip()}


class QtMeetingVotes(QWidget):
    vote_requested = Signal(dict)  # my vote's fields
    note_requested = Signal(str)
    lock_requested = Signal()
    override_requested = Signal(dict)
    reopen_requested = Signal()

    MAX_TABLE_HEIGHT = 260  # px; taller (long notes) scrolls

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._panel: ItemPanel | None = None
        self._chair = False
        self.table = QTableWidget(len(ROWS), 0)
        self.table.setVerticalHeaderLabels([title for _, title in ROWS])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setWordWrap(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        # Row heights measured here with the delegate's own text layout (Qt's size hint
        # assumes its default word wrap).
        self.table.setItemDelegate(QtWrappingDelegate(self.table))
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        # Wrapped notes need their rows measured at the columns' final width: the
        # stretched columns change width after the first fill (the window is laid
        # out later, the splitter moves), so the rows are fitted again then.
        self._refit = QTimer(self, singleShot=True, interval=0, timeout=self._fit_height)
        self.table.horizontalHeader().sectionResized.connect(lambda *_: self._refit.start())
        self.table.cellDoubleClicked.connect(self._show_whole_note)
        self.whole_note: QDialog | None = None  # the last vote's note opened whole (tests read it)
        self.decision = QLabel()
        self.decision.setWordWrap(True)
        self.decision.setTextFormat(Qt.TextFormat.RichText)
        self._decision_texts = LongTexts(self.decision)  # the chair's reason cut, "show all" for the whole

        # My vote: a new row in my history when saved.
        self.verdict = _combo(Verdict)
        self.problematic = QCheckBox("Problematic")
        self.severity = _combo(Severity.panel())
        self.category = _combo(Category, lambda c: c.short_caption)
        self.oov_name = QLineEdit()
        self.oov_name.setPlaceholderText("the object outside the 1000 classes (fine-grained, OOV)")
        self.my_note = QLineEdit()
        self.my_note.setPlaceholderText("My note on this vote")
        self.my_note.setMaxLength(VOTE_NOTE_MAX_CHARS)  # Qt's 32,767 would cut a longer note when it is saved again
        self.save = QPushButton("Save my vote")
        self.save.setObjectName("primary")
        self.save.clicked.connect(self._save)
        editor = QGridLayout()
        editor.addWidget(QLabel("Verdict"), 0, 0)
        editor.addWidget(self.verdict, 0, 1)
        editor.addWidget(QLabel("Severity"), 0, 2)
        editor.addWidget(self.severity, 0, 3)
        editor.addWidget(QLabel("Category"), 1, 0)
        editor.addWidget(self.category, 1, 1)
        editor.addWidget(self.problematic, 1, 2, 1, 2)
        editor.addWidget(QLabel("OOV object"), 2, 0)
        editor.addWidget(self.oov_name, 2, 1, 1, 3)
        editor.addWidget(QLabel("Note"), 3, 0)
        editor.addWidget(self.my_note, 3, 1, 1, 3)
        editor.addWidget(self.save, 4, 3)
        editor.setColumnStretch(1, 1)
        editor.setColumnStretch(3, 1)

        self.lock = QPushButton("Lock majority")
        self.lock.clicked.connect(self.lock_requested)
        self.override = QPushButton("Override…")
        self.override.clicked.connect(self.ask_override)
        self.reopen = QPushButton("Reopen…")  # undo a lock or an override: back to the panel's vote
        self.reopen.setToolTip(plain_tip("Lift the item's decision (a lock or an override), with a reason kept in "
                                         "its history: the panel votes it again"))
        self.reopen.clicked.connect(self.reopen_requested)
        chair_row = QHBoxLayout()
        chair_row.addWidget(self.lock)
        chair_row.addWidget(self.override)
        chair_row.addWidget(self.reopen)
        chair_row.addStretch(1)

        self.notes = QtLinkedBrowser()
        self._note_texts = LongTexts(self.notes)  # each note cut, "show all" for the whole
        self.new_note = QLineEdit()
        self.new_note.setPlaceholderText("Add to the discussion, then Enter")
        self.new_note.returnPressed.connect(self._add_note)
        self.add_note = QPushButton("Add note")
        self.add_note.clicked.connect(self._add_note)
        discussion = QWidget()
        d_layout = QVBoxLayout(discussion)
        d_layout.setContentsMargins(0, 4, 0, 0)
        d_layout.addWidget(self.notes, 1)
        note_row = QHBoxLayout()
        note_row.addWidget(self.new_note, 1)
        note_row.addWidget(self.add_note)
        d_layout.addLayout(note_row)
        self.history = QtLinkedBrowser()
        self._history_texts = LongTexts(self.history)  # a reason, a note in the history: cut likewise
        self.tabs = QTabWidget()
        self.tabs.addTab(discussion, "Discussion")
        self.tabs.addTab(self.history, "History")

        # The pane scrolls as one where the window is short (a 1280x720 screen): its table, decision,
        # chair's buttons, own vote and discussion held the meeting at 853 px high (issue 35, 3).
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(8, 4, 8, 8)
        layout.setSpacing(4)
        layout.addWidget(section_title("Votes"))
        layout.addWidget(self.table)
        layout.addWidget(self.decision)
        self.chair_title = section_title("Chair")
        layout.addWidget(self.chair_title)
        layout.addLayout(chair_row)
        layout.addWidget(section_title("My vote"))
        layout.addLayout(editor)
        layout.addWidget(self.tabs, 1)
        self.tabs.setMinimumHeight(DISCUSSION_MIN_HEIGHT)
        self.scroll = fill_with_scroll(self, content)
        self.show_panel(None, chair=False)

    # -- showing -------------------------------------------------------------------
    def show_panel(self, panel: ItemPanel | None, *, chair: bool, item_text: str = "") -> None:
        self._panel, self._chair = panel, chair
        # How the override dialog names the item: its file and the predicted class, not ids.
        self._item_text = item_text or (f"image {panel.item.image_id}, predicted class {panel.item.predicted}"
                                        if panel is not None else "")
        for widget in (self.save, self.verdict, self.problematic, self.severity, self.category, self.oov_name,
                       self.my_note, self.new_note, self.add_note):
            widget.setEnabled(panel is not None)
        for widget in (self.lock, self.override):
            widget.setEnabled(panel is not None and chair)
            widget.setToolTip("" if chair else "Only the chair locks or overrides the panel's decision")
        settled = panel is not None and panel.decision is not None and panel.decision.verdict is not None
        self.reopen.setEnabled(chair and settled)
        if panel is None:
            self.table.setColumnCount(0)
            self.decision.setText("")
            self.notes.clear()
            self.history.clear()
            return
        self._fill_table(panel)
        self._fill_editor(panel)
        self._decision_texts.clear()
        self.decision.setText(self._decision_html(panel))
        notes, history = self._note_texts, self._history_texts
        notes.clear()
        self.notes.setHtml("<br>".join(f'<span style="color:{MUTED}">{when:%Y-%m-%d %H:%M}</span> '
                                       f"<b>{escape(who)}</b>: {notes.html(text, title=f'{who}’s note')}"
                                       for who, text, when in panel.notes)
                           or f'<span style="color:{MUTED}">No discussion yet.</span>')
        history.clear()
        self.history.setHtml("<br>".join(
            f'<span style="color:{MUTED}">{h.when:%Y-%m-%d %H:%M:%S}</span> <b>{escape(h.who)}</b> '
            f"{escape(h.kind)}: {history.html(h.text, title=f'{h.who}: {h.kind}')}" for h in panel.history))

    def _fill_table(self, panel: ItemPanel) -> None:
        headers = [c.name + (" (you)" if c.mine else "") + (" ★" if c.is_chair else "") for c in panel.columns]
        self.table.setColumnCount(len(headers) + 1)
        self.table.setHorizontalHeaderLabels(headers + ["Majority"])
        bold = QFont(self.font())
        bold.setBold(True)
        for row, (field, title) in enumerate(ROWS):
            split = panel.unanimity.get(field) is False
            header = QTableWidgetItem(("⚠ " if split else "") + title)
            if split:
                header.setForeground(QBrush(QColor(WARNING)))
                header.setFont(bold)
            self.table.setVerticalHeaderItem(row, header)
            for col, column in enumerate(panel.columns):
                value = getattr(column.vote, field) if column.vote is not None else None
                hidden = column.vote is not None and field in getattr(column.vote, "hidden", ())
                # A value blind review hides is said so: "–" means not rated.
                text = "hidden until you vote" if hidden else (
                    show_value(field, value) if field != "note" else bounded_note(value or ""))
                item = QTableWidgetItem(text)
                if field == "verdict" and value in KIND_COLOURS:
                    item.setForeground(QBrush(QColor(KIND_COLOURS[value])))
                    item.setFont(bold)
                if field == "note" and value and not hidden:
                    item.setToolTip(plain_tip(shown_text(value)))  # bounded as `reviewer show` bounds it
                self.table.setItem(row, col, item)
            majority = panel.majority
            text = ""
            # Blind: the majority of a field shows once the viewer has voted that field.
            if majority is not None and field in panel.viewer_fields and field in majority.counts:
                text = show_value(field, getattr(majority, field)) + (" (tie)" if field in majority.ties else "")
            self.table.setItem(row, len(panel.columns), QTableWidgetItem(text))
        self._fit_height()

    def _fit_height(self) -> None:
        """The table as tall as its rows, up to a cap past which it scrolls (a long
        note must not push the panelist's own vote and the discussion off the window)."""
        table = self.table
        margin = 2 * QtWrappingDelegate.text_margin(table) + 1  # and the grid line
        for row in range(table.rowCount()):
            height = float(table.fontMetrics().lineSpacing())
            for col in range(table.columnCount()):
                item = table.item(row, col)
                if item is not None and item.text():
                    width = max(10, table.columnWidth(col) - margin)
                    height = max(height, wrapped_height(item.text(), item.font(), width))
            table.setRowHeight(row, int(height + 0.999) + 6)
        height = (table.horizontalHeader().height() + 2 * table.frameWidth()
                  + sum(table.rowHeight(r) for r in range(table.rowCount())))
        self.table.setFixedHeight(min(height, self.MAX_TABLE_HEIGHT))

    def _fill_editor(self, panel: ItemPanel) -> None:
        mine = next((c.vote for c in panel.columns if c.mine), None)
        for combo, value in ((self.verdict, mine.verdict if mine else None),
                             (self.severity, mine.severity if mine else None),
                             (self.category, mine.category if mine else None)):
            combo.setCurrentIndex(max(0, combo.findData(value)))
        self.problematic.setChecked(bool(mine and mine.problematic))
        self.oov_name.setText((mine.oov_name if mine else None) or "")
        self.my_note.setText((mine.note if mine else None) or "")
        self.my_note.setCursorPosition(0)  # a long note reads from its start

    def _show_whole_note(self, row: int, column: int) -> None:
        """A double-click on a vote's note that was cut: the whole note in a dialog of its own."""
        panel = self._panel
        if panel is None or ROWS[row][0] != "note" or column >= len(panel.columns):
            return
        vote = panel.columns[column].vote
        note = getattr(vote, "note", None) if vote is not None and "note" not in getattr(vote, "hidden", ()) else None
        if note and bounded_note(note) != note:
            self.whole_note = whole_text_dialog(self.window(), f"{panel.columns[column].name}’s note", note)

    def _decision_html(self, panel: ItemPanel) -> str:
        d = panel.decision
        if d is None:
            return f'<span style="color:{MUTED}">No decision locked yet.</span>'
        words = decision_words(d)
        if words.verdict is None:
            return f'<span style="color:{WARNING}">{escape(words.method.capitalize())}</span>' + \
                   (f": {self._reason_html(words.reason)}" if words.reason else "")
        colour = KIND_COLOURS.get(words.verdict, MUTED)
        # In words, as the review page says it ('wrong · Major · Fine-grained'), not the stored values.
        details = [Severity(d.severity).caption if d.severity else "", Category(d.category).caption if d.category
                   else "", f"“{d.oov_name}”" if d.oov_name else "", "ground truth problematic" if d.problematic else ""]
        return (f'Decision: <b style="color:{colour}">{escape(words.verdict)}</b>'
                + "".join(f" · {escape(detail)}" for detail in details if detail)
                + f' <span style="color:{MUTED}">({escape(words.method)})</span>'
                + (f'<br><span style="color:{MUTED}">{self._reason_html(words.reason)}</span>' if words.reason else ""))

    def _reason_html(self, reason: str) -> str:
        return self._decision_texts.html(reason, title="The chair's reason")

    # -- asking ----------------------------------------------------------------------
    def my_vote_fields(self) -> dict:
        """The editor's values as vote fields (unset combos leave that field as it is)."""
        fields = {"problematic": self.problematic.isChecked(), "note": self.my_note.text().strip()}
        for name, combo in (("verdict", self.verdict), ("severity", self.severity), ("category", self.category)):
            if combo.currentData() is not None:
                fields[name] = combo.currentData()
        if self.category.currentData() is not None and Category(self.category.currentData()).needs_name:
            fields["oov_name"] = self.oov_name.text().strip() or None
        return fields

    def _save(self) -> None:
        self.vote_requested.emit(self.my_vote_fields())

    def _add_note(self) -> None:
        text = self.new_note.text().strip()
        if text:
            self.note_requested.emit(text)
            self.new_note.clear()

    def ask_override(self) -> None:
        """The override dialog, started from what stands; `override_requested` on OK."""
        if self._panel is None:
            return
        dialog = QtOverrideDialog(self._item_text, self)
        start = self._panel.majority if self._panel.majority is not None else self._panel.decision
        if start is not None and getattr(start, "verdict", None) is not None:
            dialog.prefill(verdict=start.verdict, problematic=start.problematic, severity=start.severity,
                           category=start.category, oov_name=start.oov_name)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.override_requested.emit(dialog.decision())
