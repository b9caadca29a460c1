"""What the panel's scope leaves out, said above the queue beside the panel's progress:

- when the queue is a run outside the scope: "Run #5 is outside the panel's scope: its
  mistakes count once the chair adds it" (the ones it shares with a scoped run are still
  under review, and take votes);
- when some items with votes or decisions count nowhere any more: "3 items with votes are
  no longer mistakes under the current labels; reviewer show gives their history" (and
  likewise the items only runs outside the scope make).

The rules are the domain's: which runs the scope takes in (`reviewer.app.scope.ScopeView`),
which items with history no longer count (`reviewer.app.panel_status.PanelStatus`:
`no_longer_mistakes`, `outside_scope`); `scope_lines` only words them, and is tested
without a window. Both lines stay hidden when there is nothing to say.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QVBoxLayout, QWidget

from reviewer.panel.lookup import NO_LONGER_A_MISTAKE
from reviewer.panel.scope import SCOPE_QUEUE
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.theme import WARNING, set_text_colour, style_muted


def _items(count: int) -> str:
    return f"{count:,} item{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class ScopeLines:
    outside: str = ""  # the queue's run is outside the scope
    outside_tip: str = ""
    history: str = ""  # items with history that count nowhere now
    history_tip: str = ""


def scope_lines(run_id: int | None, view, status) -> ScopeLines:
    """The lines for the queue of `run_id` (SCOPE_QUEUE: the scope's own) under the scope
    `view` (`panel_scope`) and the panel's `status` (`panel_status`); either may be None
    (not read yet)."""
    outside = outside_tip = history = history_tip = ""
    run = next((r for r in view.runs if r.run_id == run_id), None) if view is not None else None
    if run is not None and run_id != SCOPE_QUEUE and not run.in_scope:
        outside = f"Run #{run_id} is outside the panel's scope: its mistakes count once the chair adds it"
        outside_tip = (f"The panel reviews {view.describe()}. The mistakes run #{run_id} ({run.model}) shares with a "
                       "run of the scope are under review, and take votes here; the rest are shown without votes, "
                       "which would count nowhere. The chair adds the run with "
                       f"'reviewer panel-scope PROJECT --add {run_id}'.")
    retired = getattr(status, "no_longer_mistakes", 0) if status is not None else 0
    left_out = getattr(status, "outside_scope", 0) if status is not None else 0
    parts = []
    if retired:
        parts.append(f"{_items(retired)} with votes " + (f"is {NO_LONGER_A_MISTAKE}" if retired == 1 else
                                                         "are no longer mistakes under the current labels"))
    if left_out:
        parts.append(f"{_items(left_out)} with votes {'is a mistake' if left_out == 1 else 'are mistakes'} "
                     "only of runs outside the panel's scope")
    if parts:
        history = "; ".join(parts) + "; reviewer show gives their history"
        history_tip = ("Their votes, notes and decisions are kept (the panel's history is append-only), but they "
                       "leave every to-do and count: the progress, panel-status, the export and the report. "
                       + ("The labels imported since accept the prediction, or took the image out of the review. "
                          if retired else "")
                       + ("They count again if the chair adds one of their runs to the scope. " if left_out else "")
                       + "'reviewer show PROJECT --image FILE --predicted CLASS' gives an item's history; "
                       "'reviewer panel-status PROJECT' counts them.")
    return ScopeLines(outside, outside_tip, history, history_tip)


class QtScopeNotes(QWidget):
    """Two lines under the progress strip: the queue's run outside the scope, and the items
    with history that no longer count. Hidden while there is nothing to say."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.outside = text_label()
        self.outside.setObjectName("outside_scope")
        self.outside.setWordWrap(True)
        set_text_colour(self.outside, WARNING)
        self.history = text_label()
        self.history.setObjectName("no_longer_counted")
        self.history.setWordWrap(True)
        style_muted(self.history)
        layout.addWidget(self.outside)
        layout.addWidget(self.history)
        self.lines = ScopeLines()
        self._show(self.lines)

    def show_scope(self, run_id: int | None, view, status) -> None:
        lines = scope_lines(run_id, view, status)
        if lines != self.lines:  # laid out again only when it reads differently
            self._show(lines)

    def _show(self, lines: ScopeLines) -> None:
        self.lines = lines
        for label, text, tip in ((self.outside, lines.outside, lines.outside_tip),
                                 (self.history, lines.history, lines.history_tip)):
            label.setText(text)
            label.setToolTip(plain_tip(tip))
            label.setVisible(bool(text))
        self.setVisible(bool(lines.outside or lines.history))
