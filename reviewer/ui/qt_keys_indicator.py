"""Where the keys go: a word in the status strip while a text field of the window has them.

A review key pressed in a text field types a letter instead (reviewer.ui.keys); with
nothing on screen saying so, a panelist whose J did nothing could not tell why (issue 35,
1). This label follows the application's focus: while a text field inside `within` (the
review page, once there is one) has it, it names the field ("Typing in the note") and how
to give the keys back; otherwise it is empty, and the review keys work.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QWidget

from reviewer.ui.keys import is_text_input
from reviewer.ui.theme import WARNING, set_text_colour


def field_name(widget: QWidget) -> str:
    """What a text field is, in words: its accessible name, else its placeholder, else "a text field"."""
    while widget is not None:
        if widget.accessibleName():
            return widget.accessibleName()
        if isinstance(widget, QLineEdit) and widget.placeholderText():
            return f"the “{widget.placeholderText()}” field"
        if widget.isWindow():
            break
        widget = widget.parentWidget()
    return "a text field"


class QtKeysIndicator(QLabel):
    """Says which text field inside `within` has the keys (empty while the review keys work)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._within: QWidget | None = None
        set_text_colour(self, WARNING)
        QApplication.instance().focusChanged.connect(self._focus_changed)

    def watch(self, within: QWidget | None) -> None:
        """Report the text fields inside `within` (None: none)."""
        self._within = within
        self._focus_changed(None, QApplication.focusWidget())

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        within = self._within
        if within is None or (new is not None and new.window() is not within.window()):
            return  # another window's focus says nothing of this one's keys
        text = ""
        if new is not None and within.isAncestorOf(new) and is_text_input(new):
            text = f"Typing in {field_name(new)} · Esc gives the keys back"
        if text != self.text():  # an unchanged label lays nothing out again
            self.setText(text)
            self.setToolTip("Review keys typed here are text; Enter or Esc hands them back to the review"
                            if text else "")
