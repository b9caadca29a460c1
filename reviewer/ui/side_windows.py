"""The main window's windows of their own (the meeting, the analysis): at most one
of each, raised when asked for again, sized to the screen, closed with the project or
with Escape / Ctrl+W (the keymap's close_window), and by Quit from any of them."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from reviewer.app.keymap import Keymap
from reviewer.ui.keys import KeyDispatcher
from reviewer.ui.theme import style_widgets


class SideWindows:
    def __init__(self, near: QWidget, keymap: Callable[[], Keymap]) -> None:
        self._near, self._keymap = near, keymap
        self._open: dict[str, QWidget] = {}

    def get(self, kind: str) -> QWidget | None:
        """The open window of this kind, or None (never one the panelist closed)."""
        window = self._open.get(kind)
        return window if _alive(window) else None

    def show(self, kind: str, make: Callable[[], QWidget], *, size: tuple[int, int],
             closing_keys: bool = False) -> QWidget:
        """The window of this kind, raised if open, else made by `make()` and shown.
        `closing_keys`: give it Escape / Ctrl+W (a window without its own key handling)."""
        window = self.get(kind)
        if window is not None:
            window.show()
            window.raise_()
            window.activateWindow()
            return window
        window = make()
        style_widgets(window)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        _fit_to_screen(window, self._near, *size)
        if closing_keys:
            window.closing_keys = KeyDispatcher(window, lambda key, w=window: self._closing_key(w, key))
        window.show()
        self._open[kind] = window
        return window

    def close_all(self) -> None:
        for window in self._open.values():
            if _alive(window):
                window.close()
        self._open.clear()

    def _closing_key(self, window: QWidget, key: str) -> bool:
        if self._keymap().action_for(key) != "close_window":
            return False
        window.close()
        return True


def _alive(widget) -> bool:
    """False for None and for a window the panelist closed (deleted on close)."""
    if widget is None:
        return False
    try:
        widget.isVisible()
    except RuntimeError:
        return False
    return True


def _fit_to_screen(window: QWidget, near: QWidget, width: int, height: int) -> None:
    """`width` x `height`, or 92% of the screen the main window is on when that is smaller."""
    screen = near.screen().availableGeometry() if near.screen() is not None else None
    if screen is not None:
        width, height = min(width, int(screen.width() * 0.92)), min(height, int(screen.height() * 0.92))
    window.resize(width, height)
