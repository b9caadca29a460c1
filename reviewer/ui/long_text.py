"""Free text a panelist wrote (a note, a vote's note, a decision's reason) as the review page and
the meeting print it: never unbounded (issue 36: a vote's note may hold 131,072 characters, and a label
laid out with all of them froze the window), cut by `reviewer.panel.discussion.shown_text`
to a few lines (`PAGE_CHARS`), saying how much it left out, with a "show all" link that opens the whole text in a
dialog of its own (a read-only text box, which lays out a long text lazily).

`LongTexts` belongs to one rich label: each text it bounds gets a link key, forgotten when the
label's text is replaced (`clear`). The label's links work by mouse only and it never takes
the focus: the review keys stay with the page (issue 35, 1).
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from reviewer.app.panel import shown_text

LINK = "show-all:"
# What the page shows of one text: a few lines of its narrow column. `shown_text`'s own bound
# (2,000 characters, `reviewer show`'s) still filled the column and crushed the vote above it.
PAGE_CHARS = 160


def whole_text_dialog(parent: QWidget | None, title: str, text: str) -> QDialog:
    """A dialog with `text` whole in a read-only box (Esc or Close closes it); shown, not run."""
    dialog = QDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    layout = QVBoxLayout(dialog)
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setPlainText(text)
    box.setObjectName("whole_text")
    layout.addWidget(box)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    dialog.resize(640, 420)
    dialog.show()
    return dialog


class LongTexts(QObject):
    """The bounded texts of one label and their "show all" links."""

    def __init__(self, label: QLabel) -> None:
        super().__init__(label)
        self._label = label
        self._texts: dict[str, tuple[str, str]] = {}  # key -> (title, whole text)
        self.dialog: QDialog | None = None  # the last one opened (tests read it)
        label.setTextInteractionFlags(label.textInteractionFlags() | Qt.TextInteractionFlag.LinksAccessibleByMouse)
        label.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # after the flags, which would give it click focus
        label.linkActivated.connect(self._open)

    def clear(self) -> None:
        """The label's text is about to be replaced: the old links are gone."""
        self._texts.clear()

    def html(self, text: str, *, title: str) -> str:
        """`text` escaped and bounded, line breaks kept; where cut, a "show all" link to the
        whole in a dialog titled `title`."""
        shown = shown_text(text, PAGE_CHARS)
        out = escape(shown).replace("\n", "<br>")
        if shown != text:
            key = str(len(self._texts))
            self._texts[key] = (title, text)
            out += f' <a href="{LINK}{key}">show all</a>'
        return out

    def _open(self, link: str) -> None:
        if not link.startswith(LINK) or link[len(LINK):] not in self._texts:
            return
        title, text = self._texts[link[len(LINK):]]
        self.dialog = whole_text_dialog(self._label.window(), title, text)
