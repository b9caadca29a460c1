"""The main window's status strip: a message (a note, or an error in its colour), which text
field has the keys while one has, the undo key while there is a vote to undo, and the button
offering a finished run.

A part of the main window that owns its widgets and what they say (qutebrowser's status bar
is built the same way: small widgets in a row, wired by the window in one place). Every other
part reports through `show_message`; a finished run is offered with `offer_run`, and the
strip says which run was taken up (`offered_run_chosen`).

The message is one line cut with "…" where the window is too narrow for it, the whole message
as its tooltip: a label as wide as its text made the window wider than the screen when a
message was long (a path, an error's detail).
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QPushButton, QStatusBar, QWidget

from reviewer.redact import scrub
from reviewer.ui.plain import text_label
from reviewer.ui.qt_elided_label import QtElidedLabel
from reviewer.ui.qt_keys_indicator import QtKeysIndicator
from reviewer.ui.theme import ERROR, MUTED, set_text_colour

MESSAGE_MSECS = 8000  # how long a message stays


class QtStatusStrip(QStatusBar):
    """The bottom of the window: what it says, and for how long."""

    offered_run_chosen = Signal(int)  # the offered run's button was pressed: that run's id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message_is_error = False
        self.text = QtElidedLabel()
        self.text.setTextFormat(Qt.TextFormat.PlainText)  # a message may quote stored strings
        self.undo_label = text_label()
        self.addWidget(self.text, 1)
        # Which text field has the keys, while one has (issue 35, 1): the review keys type there.
        self.keys_indicator = QtKeysIndicator()
        self.addPermanentWidget(self.keys_indicator)
        self.addPermanentWidget(self.undo_label)
        self._message_timer = QTimer(self, singleShot=True, interval=MESSAGE_MSECS, timeout=self.text.clear)
        # A finished run is offered, not switched to: the panelist may be in the middle of another.
        self.offered_run: int | None = None
        self.show_run_button = QPushButton()
        self.show_run_button.setVisible(False)
        self.show_run_button.clicked.connect(self._take_offered_run)
        self.addPermanentWidget(self.show_run_button)

    def show_message(self, text: str, error: bool = False) -> None:
        """Show `text` for MESSAGE_MSECS, in the error colour if `error`."""
        self.message_is_error = error
        set_text_colour(self.text, ERROR if error else MUTED)
        self.text.setText(scrub(text))  # a database password never shows (reviewer.redact)
        self._message_timer.start()

    def clear_message(self) -> None:
        self.text.clear()

    def clear_note(self) -> None:
        """A vote ends a note (an error stays until read: it may be about a vote not recorded).
        Only a shown one is cleared: clearing an empty label still lays the status bar, and with
        it the window, out again, at every key."""
        if not self.message_is_error and self.text.text():
            self.text.clear()

    def clear_refusal(self) -> None:
        """A refusal about what was typed before ("bob is not on this panel") no longer holds."""
        if self.message_is_error:
            self.text.clear()

    def show_undo(self, available: bool, keys: Sequence[str]) -> None:
        """The undo key (its first key, else where to find it) while there is a vote to undo."""
        self.undo_label.setText(f"Undo: {keys[0] if keys else 'Review menu'}" if available else "")

    def offer_run(self, run_id: int, *, model: str, current: int) -> None:
        """Offer the finished run `run_id` while run `current` stays under review."""
        self.offered_run = run_id
        self.show_run_button.setText(f"Show run #{run_id}")
        self.show_run_button.setToolTip(f"Review the mistakes of the finished run #{run_id} {model} "
                                        "(also in the run list of the toolbar)")
        self.show_run_button.setVisible(True)
        self.show_message(f"Run #{run_id} {model} is complete; you are still reviewing run #{current}.")

    def run_opened(self, run_id: int) -> None:
        """A run opened another way (the toolbar's list): if it was the offered one, the offer is gone."""
        if run_id == self.offered_run:
            self.offered_run = None
            self.show_run_button.setVisible(False)

    def _take_offered_run(self) -> None:
        run_id, self.offered_run = self.offered_run, None
        self.show_run_button.setVisible(False)
        if run_id is not None:
            self.offered_run_chosen.emit(run_id)
