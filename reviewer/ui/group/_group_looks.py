"""Looks of the group view's widgets, set with palettes and fonts (no style sheets:
the theme avoids them, they slow every repaint)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QWidget

from reviewer.ui import theme


def muted(widget: QWidget) -> QWidget:
    """Secondary text in the theme's muted colour."""
    palette = widget.palette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor(theme.MUTED))
    palette.setColor(QPalette.ColorRole.Text, QColor(theme.MUTED))
    widget.setPalette(palette)
    return widget


def title(widget: QWidget, point_size: float = 14) -> QWidget:
    font = widget.font()
    font.setPointSizeF(point_size)
    font.setBold(True)
    widget.setFont(font)
    return widget


def apply_named_looks(root: QWidget) -> None:
    """The theme's looks for named widgets ("sectionTitle", "primary", ...), where the
    theme provides them by function; an application style sheet applies them otherwise."""
    style = getattr(theme, "style_widgets", None)
    if style is not None:
        style(root)
