"""The window's look: a dark Fusion palette (images read best on a dark
surround), type sizes, and the colours that mean the same thing everywhere.

No application-wide style sheet: with one, Qt paints every widget through
QStyleSheetStyle, which measured 2-4x slower per repaint (the queue list
12 ms instead of 3 ms at 1280x800), and a review window repaints on every
key. Looks are set with palettes and fonts instead.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import QAbstractButton, QApplication, QFrame, QLabel, QPushButton, QWidget

from reviewer.terms import Verdict

# A verdict's colour; None is "not yet reviewed". Verdict is a StrEnum, so the stored strings look up too.
KIND_COLOURS = {
    Verdict.CORRECT: "#3fb950",
    Verdict.WRONG: "#f85149",
    Verdict.UNCLEAR: "#d29922",
    None: "#8b949e",
}
KIND_TITLES = {**{verdict: verdict.value for verdict in Verdict}, None: "unreviewed"}
ERROR = KIND_COLOURS[Verdict.WRONG]  # an error message reads in the colour of "wrong"
ACCENT = "#4c8dff"
PRIMARY_BUTTON = "#245bb8"
MUTED = "#9aa0a6"
WARNING = "#e3b341"
CARD = "#25272b"
CARD_BORDER = "#34373c"
BASE_POINT_SIZE = 10
# Checked buttons of a verdict take its colour, darkened.
CHECKED_TINTS = {"verdict_correct": "#1d4428", "verdict_wrong": "#5a1f1d", "verdict_unclear": "#4d3a10"}


def apply_theme(app: QApplication) -> None:
    """Fusion with a dark palette and the base font size."""
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
        QPalette.ColorRole.Mid: "#3c4046",
        QPalette.ColorRole.Dark: "#141517",
    }
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6b6f76"))
    app.setPalette(palette)
    # Fusion outlines a check box in its Window colour darkened: on this dark
    # window the box vanished. Check boxes get a light Window (they paint no
    # background) and a raised Base, so the box reads as a control.
    boxes = QPalette(palette)
    boxes.setColor(QPalette.ColorRole.Window, QColor("#9aa0a8"))
    boxes.setColor(QPalette.ColorRole.Base, QColor("#2b2d31"))
    app.setPalette(boxes, "QCheckBox")
    font = app.font()
    font.setPointSize(BASE_POINT_SIZE)
    app.setFont(font)


# -- widget looks ----------------------------------------------------------------
def set_font(widget: QWidget, *, point_size: float | None = None, bold: bool = False,
             letter_spacing: float | None = None) -> None:
    font = QFont(widget.font())
    if point_size is not None:
        font.setPointSizeF(point_size)
    font.setWeight(QFont.Weight.DemiBold if bold else QFont.Weight.Normal)
    if letter_spacing is not None:
        font.setLetterSpacing(QFont.SpacingType.AbsoluteSpacing, letter_spacing)
    widget.setFont(font)


def set_text_colour(widget: QWidget, colour: str) -> None:
    palette = widget.palette()
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(role, QColor(colour))
    widget.setPalette(palette)


def style_headline(label: QLabel, point_size: float = 15) -> None:
    set_font(label, point_size=point_size, bold=True)


def style_muted(label: QLabel) -> None:
    set_text_colour(label, MUTED)


def style_section_title(label: QLabel) -> None:
    set_font(label, point_size=8.5, bold=True, letter_spacing=1.0)
    set_text_colour(label, MUTED)
    label.setContentsMargins(0, 8, 0, 0)


def section_title(text: str) -> QLabel:
    """A section's small capitals title (the review page's facts, the start screen, the meeting)."""
    label = QLabel(text.upper())
    label.setObjectName("sectionTitle")
    style_section_title(label)
    return label


def style_primary(button: QAbstractButton) -> None:
    """The accent colour while enabled; a disabled primary button looks disabled."""
    palette = button.palette()
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        # Darker than the accent: Fusion lightens a button's colour in its gradient.
        palette.setColor(group, QPalette.ColorRole.Button, QColor(PRIMARY_BUTTON))
        palette.setColor(group, QPalette.ColorRole.ButtonText, QColor("#ffffff"))
    button.setPalette(palette)
    set_font(button, bold=True)


def tint_when_checked(button: QPushButton, colour: str = "#1f3a66") -> None:
    """A checkable button takes `colour` while checked (Fusion's own is too faint on dark)."""
    normal = button.palette()
    checked = QPalette(normal)
    checked.setColor(QPalette.ColorRole.Button, QColor(colour))
    checked.setColor(QPalette.ColorRole.ButtonText, QColor("#ffffff"))
    button.toggled.connect(lambda on: button.setPalette(checked if on else normal))


def style_widgets(root: QWidget) -> None:
    """Apply the looks named by objectName ("headline", "subheadline", "sectionTitle",
    "primary") to `root` and its children, for windows built with those names."""
    for widget in [root, *root.findChildren(QWidget)]:
        name = widget.objectName()
        if name == "headline" and isinstance(widget, QLabel):
            style_headline(widget)
        elif name == "subheadline" and isinstance(widget, QLabel):
            style_muted(widget)
        elif name == "sectionTitle" and isinstance(widget, QLabel):
            style_section_title(widget)
        elif name == "primary" and isinstance(widget, QAbstractButton):
            style_primary(widget)


class QtCard(QFrame):
    """A panel with a rounded, bordered background (painted, not style-sheeted)."""

    def __init__(self, parent: QWidget | None = None, *, background: str = CARD, border: str = CARD_BORDER):
        super().__init__(parent)
        self._background, self._border = QColor(background), QColor(border)

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(self._border, 1))
        painter.setBrush(self._background)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)


# -- rich text -------------------------------------------------------------------
def chip(kind: str | None, text: str | None = None) -> str:
    """A coloured label-kind marker for rich text."""
    colour = KIND_COLOURS.get(kind, KIND_COLOURS[None])
    return f'<span style="color:{colour}; font-weight:600">{escape(text or KIND_TITLES.get(kind, str(kind)))}</span>'


def muted(text: str) -> str:
    return f'<span style="color:{MUTED}">{escape(text)}</span>'

