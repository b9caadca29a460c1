"""The main window's status strip: a message (a note, or an error in its colour), which
text field has the keys while one has, the undo key while there is a vote to undo, and the
button offering a finished run.

A part of `QtMainWindow` (a mixin of it), kept apart because it is one
responsibility: what the bottom of the window says, and for how long. Every other
part reports through `show_message`; `WindowRuns` fills and hides the offered run's
button. Its state is the strip's widgets, its timer and `_message_is_error`.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QPushButton

from reviewer.redact import scrub
from reviewer.ui.plain import text_label
from reviewer.ui.qt_keys_indicator import QtKeysIndicator
from reviewer.ui.theme import ERROR, MUTED, set_text_colour

MESSAGE_MSECS = 8000  # how long a message stays


class WindowStatus:
    """The status bar of `QtMainWindow`: its message, its undo key and the offered run."""

    def _build_status_strip(self) -> None:
        self._message_is_error = False
        self.status_text = text_label()
        self.undo_label = text_label()
        self.statusBar().addWidget(self.status_text, 1)
        # Which text field has the keys, while one has (issue 35, 1): the review keys type there.
        self.keys_indicator = QtKeysIndicator()
        self.statusBar().addPermanentWidget(self.keys_indicator)
        self.statusBar().addPermanentWidget(self.undo_label)
        self._message_timer = QTimer(self, singleShot=True, interval=MESSAGE_MSECS, timeout=self.status_text.clear)
        # A finished run is offered, not switched to: the panelist may be in the middle of another.
        self.show_run_button = QPushButton()
        self.show_run_button.setVisible(False)
        self.show_run_button.clicked.connect(self._show_offered_run)
        self.statusBar().addPermanentWidget(self.show_run_button)

    def show_message(self, text: str, error: bool = False) -> None:
        self._message_is_error = error
        colour = ERROR if error else MUTED
        set_text_colour(self.status_text, colour)
        self.status_text.setText(scrub(text))  # a database password never shows (reviewer.redact)
        self._message_timer.start()

    def _clear_message_after_vote(self) -> None:
        """A vote ends a note in the status bar (an error stays until read). Only a shown one is
        cleared: clearing an empty label still lays the status bar, and with it the window, out
        again, at every key."""
        if not self._message_is_error and self.status_text.text():
            self.status_text.clear()

    def _undo_changed(self, available: bool) -> None:
        keys = self.keymap.keys("undo")
        self.undo_label.setText(f"Undo: {keys[0] if keys else 'Review menu'}" if available else "")
