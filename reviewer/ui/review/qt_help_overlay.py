"""The keys, over the window: `?` shows it, `?` or Esc hides it.

Built from the keymap in force, so a changed key shows as changed.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from reviewer.app.keymap import ACTIONS, Keymap
from reviewer.ui.theme import MUTED, QtCard, style_headline, style_muted, style_section_title

KEY_STYLE = ("background:#34373c; border:1px solid #4a4e55; border-radius:3px; padding:0 4px; "
             "font-family:monospace; font-weight:600")
# Groups in two columns, in the order a panelist needs them.
COLUMNS = (("Verdict", "Severity (wrong)", "Category (wrong)", "Meeting"), ("Move", "Image", "Window"))


class QtHelpOverlay(QWidget):
    edit_keys = Signal()
    closed = Signal()

    def __init__(self, keymap: Keymap, parent: QWidget):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, False)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(40, 30, 40, 30)
        self.card = QtCard(background="#26282c", border="#4a4e55")
        outer.addWidget(self.card, 0, Qt.AlignmentFlag.AlignCenter)
        card = QVBoxLayout(self.card)
        card.setContentsMargins(24, 16, 24, 16)
        header = QHBoxLayout()
        title = QLabel("Keyboard")
        style_headline(title)
        header.addWidget(title)
        header.addStretch(1)
        hint = QLabel("Auto-advance: a verdict of correct or unclear moves on; for wrong, once severity "
                      "and category are set.")
        style_muted(hint)
        hint.setWordWrap(True)
        card.addLayout(header)
        card.addWidget(hint)
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(32)
        self.grid.setVerticalSpacing(2)
        card.addLayout(self.grid)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        edit = QPushButton("Change keys…")
        edit.clicked.connect(self.edit_keys)
        close = QPushButton("Close  [Esc]")
        close.clicked.connect(self.hide_overlay)
        buttons.addWidget(edit)
        buttons.addWidget(close)
        card.addLayout(buttons)
        self.set_keymap(keymap)
        parent.installEventFilter(self)
        self.hide()

    def set_keymap(self, keymap: Keymap) -> None:
        while self.grid.count():
            item = self.grid.takeAt(0)
            if item.widget():
                item.widget().hide()  # now; deleteLater only acts once the event loop runs
                item.widget().deleteLater()
        for column, groups in enumerate(COLUMNS):
            row = 0
            for group in groups:
                heading = QLabel(group.upper())
                style_section_title(heading)
                self.grid.addWidget(heading, row, column * 2, 1, 2)
                row += 1
                for action in (a for a in ACTIONS if a.group == group):
                    keys = keymap.keys(action.name)
                    text = " ".join(f'<span style="{KEY_STYLE}">&nbsp;{escape(k)}&nbsp;</span>' for k in keys)
                    key_label = QLabel(text or f'<span style="color:{MUTED}">none</span>')
                    key_label.setTextFormat(Qt.TextFormat.RichText)
                    self.grid.addWidget(key_label, row, column * 2, Qt.AlignmentFlag.AlignRight)
                    self.grid.addWidget(QLabel(action.title), row, column * 2 + 1)
                    row += 1

    def show_overlay(self) -> None:
        self.setGeometry(self.parentWidget().rect())
        self.raise_()
        self.show()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def hide_overlay(self) -> None:
        self.hide()
        self.closed.emit()

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_Question, Qt.Key.Key_F1):
            self.hide_overlay()
            return
        super().keyPressEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if not self.card.geometry().contains(event.position().toPoint()):
            self.hide_overlay()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize and self.isVisible():
            self.setGeometry(self.parentWidget().rect())
        return False

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(10, 11, 13, 200))
