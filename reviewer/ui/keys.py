"""Key presses as the keymap spells them, and one dispatcher per window.

Why not QAction shortcuts: Qt matches a shortcut against every spelling the
platform's key mapper offers for a press. On X11 (xkb) Shift+/ is offered as
"?", "Shift+?" and "Shift+/"; the window once bound "?" and "Shift+?" to
help (so that the offscreen platform, which offers only "Shift+?", would
match), and xcb then found two matches, printed "Ambiguous shortcut overload"
and ran neither. Here a press is read once, from what it types: a printable
character other than a letter is that character whatever Shift did to
produce it ("?", "+", "!"), a letter or a named key carries its modifiers
("W", "Shift+W", "Shift+Right", "Ctrl+Z"). That reading is the same on every
platform and layout, and a key maps to at most one action (the keymap
refuses a key bound twice).

`KeyDispatcher` reads every key press meant for its window (an application
event filter, so a focused button or combo box cannot swallow a review key)
and hands its spelling to the window. Text inputs keep their typing: in a
line edit or spin box only function keys and keys with Ctrl/Alt that are
not text editing reach the window; the window's `release_focus` may take
Enter or Escape wherever the focus is (a text field, a combo box) to hand
the focus back, so no filter box traps the review keys.
"""

from __future__ import annotations

import re
from typing import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QLineEdit, QPlainTextEdit, QTextEdit, QWidget

from reviewer.app.keymap import normalise_key

_MODIFIER_KEYS = {Qt.Key.Key_Shift, Qt.Key.Key_Control, Qt.Key.Key_Alt, Qt.Key.Key_Meta, Qt.Key.Key_AltGr,
                  Qt.Key.Key_CapsLock, Qt.Key.Key_NumLock, Qt.Key.Key_ScrollLock, Qt.Key.Key_unknown,
                  Qt.Key.Key_Super_L, Qt.Key.Key_Super_R, Qt.Key.Key_Hyper_L, Qt.Key.Key_Hyper_R}
# Keys a text field uses itself, even with Ctrl: they never become actions while one has the focus.
TEXT_EDITING = frozenset(normalise_key(k) for k in (
    "Ctrl+A", "Ctrl+C", "Ctrl+V", "Ctrl+X", "Ctrl+Z", "Ctrl+Y", "Ctrl+Shift+Z", "Ctrl+Left", "Ctrl+Right",
    "Ctrl+Shift+Left", "Ctrl+Shift+Right", "Ctrl+Backspace", "Ctrl+Delete", "Ctrl+Home", "Ctrl+End"))
RELEASE_KEYS = frozenset({"Esc", "Return", "Enter"})
_FUNCTION_KEY = re.compile(r"F\d+")  # no text field uses them: F1 is help wherever the focus is


def key_text(event: QKeyEvent) -> str | None:
    """The keymap's spelling of a key press ("?", "W", "Shift+Right", "Ctrl+Z"); None
    for a lone modifier."""
    key = event.key()
    if key in _MODIFIER_KEYS or key == 0:
        return None
    modifiers = event.modifiers()
    names = [name for flag, name in ((Qt.KeyboardModifier.ControlModifier, "Ctrl"),
                                     (Qt.KeyboardModifier.AltModifier, "Alt"),
                                     (Qt.KeyboardModifier.MetaModifier, "Meta")) if modifiers & flag]
    text = event.text()
    if not names and len(text) == 1 and text.isprintable() and not text.isspace() and not text.isalpha():
        return text  # what the key typed: "?" is "?" on any layout, however Shift made it
    if modifiers & Qt.KeyboardModifier.ShiftModifier:
        names.append("Shift")
    if key == Qt.Key.Key_Backtab:  # Qt's name for Shift+Tab
        key = Qt.Key.Key_Tab
        names = [n for n in names if n != "Shift"] + ["Shift"]
    base = QKeySequence(key).toString(QKeySequence.SequenceFormat.PortableText)
    if not base:
        return None
    return normalise_key("+".join([*names, base]))


def is_text_input(widget: QWidget | None) -> bool:
    """A widget that types what is pressed (a line edit, spin box, editable combo box, text box)."""
    while widget is not None:
        if isinstance(widget, (QLineEdit, QAbstractSpinBox, QTextEdit, QPlainTextEdit)):
            return True
        if isinstance(widget, QComboBox) and widget.isEditable():
            return True
        if widget.isWindow():
            return False
        widget = widget.parentWidget()
    return False


class KeyDispatcher(QObject):
    """Reads the key presses meant for `window` (any of its widgets) and calls
    `handle(key)` with the keymap spelling; `handle` returns True when the key did
    something, and the press then goes no further."""

    def __init__(self, window: QWidget, handle: Callable[[str], bool], *,
                 release_focus: Callable[[QWidget, str], bool] | None = None) -> None:
        super().__init__(window)  # deleted with the window, and Qt then drops the filter
        self._window, self.handle, self.release_focus = window, handle, release_focus
        QApplication.instance().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() != QEvent.Type.KeyPress or not isinstance(watched, QWidget):
            return False
        focus = QApplication.focusWidget()
        # Once per press: where Qt delivers it first (the focus widget), not again as it
        # propagates to the parents; the window itself also when a press is sent to it
        # directly, unless a text field has the focus (its ignored keys stay its own).
        if watched.window() is not self._window:
            return False
        if watched is not focus and (watched is not self._window or is_text_input(focus)):
            return False
        key = key_text(event)
        if key is None:
            return False
        # Enter or Escape in a filter box (a text field, a combo box) hands the focus back.
        if key in RELEASE_KEYS and self.release_focus is not None and self.release_focus(focus, key):
            return True
        if is_text_input(focus):
            typing = not key.startswith(("Ctrl+", "Alt+", "Meta+")) or key in TEXT_EDITING
            if typing and not _FUNCTION_KEY.fullmatch(key):
                return False
        return bool(self.handle(key))



class AppKey(QObject):
    """One key that means the same in every window of the app (Ctrl+Q: quit), read from the
    key press itself. Not a QAction shortcut: Qt fires an application shortcut only while
    it thinks one of the app's windows is active, which an X11 session without a window
    manager, or a window just closed, leaves unset, and Ctrl+Q then did nothing."""

    def __init__(self, owner: QObject, key: str, act: Callable[[], None]) -> None:
        super().__init__(owner)
        self._key, self._act = normalise_key(key), act
        QApplication.instance().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() != QEvent.Type.KeyPress or not isinstance(watched, QWidget):
            return False
        if key_text(event) != self._key:
            return False
        self._act()
        return True
