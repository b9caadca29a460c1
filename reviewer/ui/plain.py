"""Stored strings shown as text, never as markup: one home for it.

Panelist names, notes, reasons, object names, model, project and file names come
from the database, which every panelist can write (and on SQLite anyone who can
write the file). Qt takes a QLabel's or a tooltip's text as HTML whenever it looks
like HTML (Qt::mightBeRichText), so a note "<img src=...>" would load a local file
in every panelist's window. Three rules, used by every widget:

- a label that shows such a string is a `text_label` (plain text, whatever the
  string looks like);
- a rich-text label (one that bolds or colours parts) builds its HTML with `esc`
  around every stored string;
- a tooltip with such a string is set with `plain_tip`.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget


def esc(value: object) -> str:
    """`value` as HTML text: its markup shown, not rendered (for rich-text labels)."""
    return escape(str(value), quote=True)


def text_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A label whose text is always shown as typed (Qt.PlainText)."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def plain_tip(text: str) -> str:
    """A tooltip that shows `text` as typed: escaped inside an explicit rich-text block
    (plain text alone would be sniffed as HTML when it looks like HTML), line breaks kept."""
    if not text:
        return ""
    return "<qt>" + esc(text).replace("\n", "<br>") + "</qt>"
