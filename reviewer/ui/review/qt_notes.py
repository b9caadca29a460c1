"""The panel's discussion notes on the mistake on screen, for the review page's facts.

Notes were readable in the meeting only while an item is disputed (its list holds the
items without unanimity) and with `reviewer show`; a note on a unanimous, decided or
still open item was marked in the queue (✎) and nowhere to be read in the window. This
section reads them (`reviewer.app.panel.item_notes`) on a worker of its own, under blind
review as the votes are: another panelist's notes wait until you have voted on the item,
or it is decided, and say how many wait. It re-reads when a change record names the item
(a note written in the meeting, another window, another machine).

Hidden while the item has no note, so it takes no room from the facts.
"""

from __future__ import annotations

from html import escape
from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from reviewer.app import panel as acts
from reviewer.app.panel import shown_text
from reviewer.items import Item
from reviewer.ui.long_text import PAGE_CHARS, LongTexts
from reviewer.ui.theme import MUTED, section_title
from reviewer.ui.workers import Worker

NOTES_LINES = 6  # shown before the notes' box scrolls


def notes_html(shown, texts: LongTexts | None = None) -> str:
    """The notes as the section shows them: who, when, the text (as typed), bounded by
    `reviewer.panel.discussion.shown_text` (issue 36; `texts` links each cut one whole)."""
    lines = []
    for note in shown.notes:
        when = note.when.strftime("%Y-%m-%d %H:%M") if note.when else ""
        who = escape(note.who) + (" (you)" if note.mine else "")
        lines.append(f'<p style="margin:0 0 4px 0"><b>{who}</b> <span style="color:{MUTED}">{when}</span><br>'
                     f'{_bounded(note.text, note.who, texts)}</p>')
    if shown.hidden:
        plural = "s" if shown.hidden != 1 else ""
        lines.append(f'<p style="margin:0; color:{MUTED}">{shown.hidden} note{plural} by other panelists hidden until '
                     "you vote (blind review)</p>")
    return "".join(lines)


def _bounded(text: str, who: str, texts: LongTexts | None) -> str:
    if texts is not None:
        return texts.html(text, title=f"{who}'s note")
    return escape(shown_text(text, PAGE_CHARS)).replace(chr(10), "<br>")


class QtNotesPanel(QWidget):
    """`set_source` once a project is open, then `show_item` for each mistake shown."""

    notes_shown = Signal(object)  # the Item whose notes are on screen (or found to be none)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.project = None
        self.viewer_id: int | None = None
        self.blind: bool | Callable[[], bool] = True
        self._watcher = None
        self.item: Item | None = None
        self._asked = 0
        self._worker = Worker(threads=1, name="notes", parent=self)
        self.title = section_title("Panel's notes")
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self._texts = LongTexts(self.body)  # a long note cut, "show all" opens it whole
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 0, 12, 4)  # in line with the facts below it (QtDetailPanel's margins)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        # Its own scrolling box of a few lines: the notes of a busy item filled the column and
        # crushed the vote above them on a 720 px screen (the wheel scrolls it; keys stay).
        self.box = QScrollArea()
        self.box.setWidget(self.body)
        self.box.setWidgetResizable(True)
        self.box.setFrameShape(QFrame.Shape.NoFrame)
        self.box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.box.setMaximumHeight(self.body.fontMetrics().lineSpacing() * NOTES_LINES + 6)
        self.box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.box.viewport().setAutoFillBackground(False)
        self.body.setAutoFillBackground(False)
        layout.addWidget(self.box)
        self.setVisible(False)

    def set_source(self, project, viewer_id: int | None, *, blind: bool | Callable[[], bool] = True,
                   watcher=None) -> None:
        """The open project and who reads (None: none); `blind` the viewer's own blind review,
        or a callable asked at each read (the review state's switch: `lambda: state.blind`);
        `watcher` (reviewer.ui.watcher) brings the change records naming the item."""
        if self._watcher is not None:
            self._watcher.changed.disconnect(self._changed)
        self.project, self.viewer_id, self.blind, self._watcher = project, viewer_id, blind, watcher
        if watcher is not None:
            watcher.changed.connect(self._changed)
        self.show_item(None)

    def set_blind(self, blind: bool) -> None:
        self.blind = blind
        self.show_item(self.item)

    def show_item(self, item: Item | None) -> None:
        """Read and show the notes on `item` (None: nothing shown)."""
        self.item = item
        self._asked += 1
        if item is None or self.project is None or self.viewer_id is None:
            self.setVisible(False)
            return
        asked = self._asked
        blind = self.blind() if callable(self.blind) else self.blind
        self._worker.submit(acts.item_notes, self.project, viewer_id=self.viewer_id, item=item, blind=blind,
                            on_done=lambda shown: self._shown(asked, item, shown),
                            on_error=lambda error: self._shown(asked, item, None))

    def text(self) -> str:
        """The section's text as shown ('' while hidden: the item has no note)."""
        return "" if self.isHidden() else self.body.text()

    def _shown(self, asked: int, item: Item, shown) -> None:
        if asked != self._asked:
            return  # another mistake is on screen since
        if shown is None or (not shown.notes and not shown.hidden):
            self.body.setText("")
            self.setVisible(False)
        else:
            self._texts.clear()
            self.body.setText(notes_html(shown, self._texts))
            self.setVisible(True)
        self.notes_shown.emit(item)

    def _changed(self, changes) -> None:
        if self.item is not None and (self.item in changes.items or changes.panel or changes.labels):
            self.show_item(self.item)

    def shutdown(self) -> None:
        self._worker.shutdown()
