"""The window's look: a dark Fusion palette (images read best on a dark
surround) and the colours that mean the same thing everywhere."""

from __future__ import annotations

from html import escape

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

KIND_COLOURS = {
    "correct": "#3fb950",
    "wrong": "#f85149",
    "unclear": "#d29922",
    None: "#8b949e",
}
KIND_TITLES = {"correct": "correct", "wrong": "wrong", "unclear": "unclear", None: "unreviewed"}
ACCENT = "#4c8dff"
MUTED = "#9aa0a6"
WARNING = "#e3b341"

STYLE = f"""
QWidget {{ font-size: 10pt; }}
QLabel#sectionTitle {{ color: {MUTED}; font-size: 8.5pt; font-weight: 600; letter-spacing: 1px;
                       padding-top: 8px; }}
QLabel#headline {{ font-size: 15pt; font-weight: 600; }}
QLabel#subheadline {{ color: {MUTED}; }}
QFrame#card {{ background: #25272b; border: 1px solid #34373c; border-radius: 6px; }}
QPushButton {{ padding: 4px 8px; border: 1px solid #3c4046; border-radius: 4px; background: #2b2d31; }}
QPushButton:hover {{ border-color: {ACCENT}; }}
QPushButton:checked {{ background: #1f3a66; border-color: {ACCENT}; color: white; }}
QPushButton#verdict_correct:checked {{ background: #1d4428; border-color: {KIND_COLOURS['correct']}; }}
QPushButton#verdict_wrong:checked {{ background: #5a1f1d; border-color: {KIND_COLOURS['wrong']}; }}
QPushButton#verdict_unclear:checked {{ background: #4d3a10; border-color: {KIND_COLOURS['unclear']}; }}
QPushButton#primary {{ background: {ACCENT}; color: white; border: none; padding: 6px 14px; font-weight: 600; }}
QListView, QTreeView, QTableView {{ background: #1b1c1f; border: 1px solid #2f3136; }}
QScrollArea {{ border: none; }}
QStatusBar {{ color: {MUTED}; }}
QToolTip {{ color: #e6e6e6; background: #2b2d31; border: 1px solid #3c4046; }}
"""


def apply_theme(app: QApplication) -> None:
    """Fusion with a dark palette, and the stylesheet above."""
    app.setStyle("Fusion")
    palette = QPalette()
    colours = {
        QPalette.ColorRole.Window: "#202124",
        QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1b1c1f",
        QPalette.ColorRole.AlternateBase: "#232428",
        QPalette.ColorRole.Text: "#e6e6e6",
        QPalette.ColorRole.Button: "#2b2d31",
        QPalette.ColorRole.ButtonText: "#e6e6e6",
        QPalette.ColorRole.Highlight: "#2f5fb3",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#2b2d31",
        QPalette.ColorRole.ToolTipText: "#e6e6e6",
        QPalette.ColorRole.PlaceholderText: "#7d828a",
        QPalette.ColorRole.Link: ACCENT,
    }
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6b6f76"))
    app.setPalette(palette)
    app.setStyleSheet(STYLE)


def chip(kind: str | None, text: str | None = None) -> str:
    """A coloured label-kind marker for rich text."""
    colour = KIND_COLOURS.get(kind, KIND_COLOURS[None])
    return f'<span style="color:{colour}; font-weight:600">{escape(text or KIND_TITLES.get(kind, str(kind)))}</span>'


def muted(text: str) -> str:
    return f'<span style="color:{MUTED}">{escape(text)}</span>'
