"""The review page's notice that the chair overrode one of your votes, said when it happens.

An overridden panelist learnt of it only on reaching the item (issue 35, 4). This part
listens to the project's change records itself (`reviewer.ui.watcher`: the window polls them
once a second, so an override made in another window, process or machine arrives within
about a second), reads the decisions the records name on a worker of its own, and shows one
line above the vote, "The chair (ann) overrode your vote on …", with a button that goes to
the item and one that dismisses the notice (or shows the next). Several overrides wait their
turn ("2 more overrides of your votes after this one").

A panelist who opens the window (or switches to his name) after the chair overrode him is told
at once too: the overrides of his votes made since his last vote or note (what
`reviewer.panel.overridden` counts as not shown yet), oldest first.

A vote is overridden where the chair's override, made after it, decides what the vote said
otherwise: the verdict, or a severity or category both gave (`reviewer.panel.overridden`). The
chair's own overrides are not announced to the chair.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from reviewer.app.overrides import overrides_of_my_votes, overrides_to_tell
from reviewer.app.panel import shown_text
from reviewer.items import Item
from reviewer.terms import Category, Severity, Verdict
from reviewer.ui.qt_elided_label import QtElidedLabel
from reviewer.ui.theme import WARNING, set_text_colour
from reviewer.ui.workers import Worker

MAX_ITEMS_READ = 200  # a change record naming more (a bulk import) is not a chair's override at a time
REASON_CHARS = 300  # of the chair's reason in the line (its tooltip); the vote panel has it whole


def read_overrides(project, *, panelist_id: int, name: str = "", items) -> list[tuple[Item, object, object]]:
    """[(item, decision, the panelist's vote)] for the items whose standing decision is an
    override by someone else of the panelist's vote (read on the notice's worker; the rule is
    `reviewer.panel.overridden`'s, `name` is not needed by it)."""
    found = overrides_of_my_votes(project, panelist_id=panelist_id, items=sorted(items)[:MAX_ITEMS_READ])
    return [(o.item, o.decision, o.vote) for o in found]


def read_overrides_not_shown(project, *, panelist_id: int) -> list[tuple[Item, object, object]]:
    """On opening: the overrides of the panelist's votes made since his last act (not shown yet)."""
    return [(o.item, o.decision, o.vote) for o in overrides_to_tell(project, panelist_id=panelist_id)]


def _words(verdict: str | None, severity: str | None, category: str | None) -> str:
    parts = [Verdict(verdict).caption if verdict else "no verdict"]
    parts += [Severity(severity).caption] if severity else []
    parts += [Category(category).caption] if category else []
    return " · ".join(parts)


def notice_text(where: str, decision, vote) -> str:
    """'The chair (ann) overrode your vote on X: you said Correct; decided Wrong · Major: reason'."""
    who = f"The chair ({decision.by})" if decision.by else "The chair"
    text = (f"{who} overrode your vote on {where}: you said {_words(vote.verdict, vote.severity, vote.category)}; "
            f"decided {_words(decision.verdict, decision.severity, decision.category)}")
    return text + (f": {shown_text(decision.reason, REASON_CHARS)}" if decision.reason else "")


class QtOverrideNotice(QFrame):
    """`set_source` once a project is open; hidden while no override waits to be told."""

    go_to = Signal(object)  # the Item the panelist asked to see
    told = Signal(str)  # a short line as a new override arrives, for the status bar (the notice has the rest)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("override_notice")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.project = None
        self.panelist_id: int | None = None
        self.name = ""
        self._watcher = None
        self._describe: Callable[[Item], str] = lambda item: f"image #{item.image_id}"
        self._waiting: list[tuple[Item, object, object]] = []  # told, not yet gone to or dismissed
        self._seen: set = set()  # (item, decision) already told
        self._asked = 0
        self.opening_read = True  # the overrides not shown yet are read (on opening: set_source)
        self._worker = Worker(threads=1, name="overrides", parent=self)
        self.line = QtElidedLabel()
        self.line.setTextFormat(Qt.TextFormat.PlainText)  # names and the reason are stored strings
        set_text_colour(self.line, WARNING)
        self.open_button = QPushButton("Go to it")
        self.open_button.clicked.connect(self._open)
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.clicked.connect(self.dismiss)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        self.count = QtElidedLabel()
        buttons.addWidget(self.count, 1)
        for button in (self.open_button, self.dismiss_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the review keys stay with the page
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(2)
        layout.addWidget(self.line)
        layout.addLayout(buttons)
        self.setVisible(False)

    def set_source(self, project, panelist_id: int | None, name: str = "", *, watcher=None,
                   describe: Callable[[Item], str] | None = None) -> None:
        """The open project and its panelist (None: none); `watcher` brings the change records;
        `describe` names an item in words (its file and predicted class)."""
        if self._watcher is not None:
            self._watcher.changed.disconnect(self._changed)
        self.project, self.panelist_id, self.name, self._watcher = project, panelist_id, name, watcher
        if describe is not None:
            self._describe = describe
        if watcher is not None:
            watcher.changed.connect(self._changed)
        self._asked += 1
        self._waiting.clear()
        self._seen.clear()
        self._show()
        self.opening_read = project is None or panelist_id is None
        if not self.opening_read:
            asked = self._asked
            self._worker.submit(read_overrides_not_shown, project, panelist_id=panelist_id,
                                on_done=lambda found: self._found(asked, found, on_opening=True),
                                on_error=lambda _error: self._found(asked, [], on_opening=True))

    def describe_again(self) -> None:
        """Items are named anew (the queue, which knows their files, has loaded)."""
        self._show()

    def _changed(self, changes) -> None:
        if not changes.decisions or not changes.items or self.project is None or self.panelist_id is None:
            return
        asked = self._asked
        self._worker.submit(read_overrides, self.project, panelist_id=self.panelist_id, name=self.name,
                            items=changes.items, on_done=lambda found: self._found(asked, found),
                            on_error=lambda _error: None)

    def _found(self, asked: int, found, *, on_opening: bool = False) -> None:
        if asked != self._asked:
            return  # another project since
        self.opening_read = self.opening_read or on_opening
        new = []
        for item, decision, vote in found:
            key = (item, decision)
            if key in self._seen:
                continue
            self._seen.add(key)
            self._waiting = [w for w in self._waiting if w[0] != item] + [(item, decision, vote)]
            new.append(decision)
        if new:
            chairs = sorted({d.by for d in new if d.by})
            who = f"The chair ({', '.join(chairs)})" if chairs else "The chair"
            if on_opening:
                count = f"{len(new)} of your votes" if len(new) > 1 else "one of your votes"
                self.told.emit(f"{who} overrode {count} since you last voted: see above your vote")
            else:
                self.told.emit(f"{who} overrode one of your votes: see above your vote")
        self._show()

    def _show(self) -> None:
        if not self._waiting:
            self.setVisible(False)
            return
        item, decision, vote = self._waiting[0]
        text = notice_text(self._describe(item), decision, vote)
        self.line.setText(text)  # where cut with "…", its tooltip has it whole (the reason bounded)
        more = len(self._waiting) - 1
        self.count.setText(f"{more} more override{'s' if more != 1 else ''} of your votes after this one"
                           if more else "")
        self.dismiss_button.setText("Next" if more else "Dismiss")
        self.dismiss_button.setToolTip("Read: show the next override" if more else "Read: hide this notice")
        self.setVisible(True)

    def waiting(self) -> list[Item]:
        """The items whose override is told and not yet gone to or dismissed."""
        return [item for item, _decision, _vote in self._waiting]

    def text(self) -> str:
        return self.line.text() if self.isVisible() else ""

    def _open(self) -> None:
        if self._waiting:
            item = self._waiting.pop(0)[0]
            self._show()
            self.go_to.emit(item)

    def dismiss(self) -> None:
        """The shown override is read: the next one, if any."""
        if self._waiting:
            self._waiting.pop(0)
        self._show()

    def shutdown(self) -> None:
        self._worker.shutdown()
