"""The meeting's acts: what the votes pane's controls record for the item shown (a vote, a
note, the chair's lock, override and reopening) and the chair's lock of every unanimous item.

A part of the meeting (`QtMeetingView`) that owns the item it acts on (`item`, set as the
meeting shows one). It takes the project, the panelist, the meeting's `OpRunner` and two
questions in its constructor: `confirm_lock` (shown what a lock would record: 'lock', 'choose'
or 'cancel') and `ask_reason` (a reopening's reason, None when none was given). Each act is one
of `reviewer.app.panel` (what the command line runs) on the runner's single writer, so acts
reach the database in the order they were made; its change record reaches every view before
`done` says so. It also says `locking` (the list moves on from that item), `choose_override`
(the chair chose the override dialog over the lock), `said` (a word for the status line) and
`failed`.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Signal

from reviewer.app import panel as acts
from reviewer.items import Item


class MeetingActs(QObject):
    """The panel's decisions as the meeting makes them on `item`."""

    done = Signal(str)  # an act was recorded (what to say)
    failed = Signal(object)  # BaseException
    said = Signal(str)  # nothing was recorded, and why
    locking = Signal(object)  # Item: the chair locks it
    choose_override = Signal()  # the chair chose to override rather than lock

    def __init__(self, project, panelist, runner, *, confirm_lock: Callable[[object], str],
                 ask_reason: Callable[[str, str], str | None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project, self._panelist, self._runner = project, panelist, runner
        self._confirm_lock, self._ask_reason = confirm_lock, ask_reason
        self.item: Item | None = None

    def set_item(self, item: Item | None) -> None:
        self.item = item

    def _act(self, fn, message: str, **kwargs) -> None:
        self._runner.act(fn, self._project, on_done=lambda _result: self.done.emit(message),
                         on_error=self.failed.emit, **kwargs)

    def vote(self, fields: dict) -> None:
        if self.item is not None:
            self._act(acts.vote, "your vote is recorded", panelist_id=self._panelist.id, item=self.item, **fields)

    def note(self, text: str) -> None:
        if self.item is not None:
            self._act(acts.note, "note added", panelist_id=self._panelist.id, item=self.item, text=text)

    def lock(self) -> None:
        """Show the chair what the lock would record (majority; 'unclear' on a tie; problematic
        by majority; an override it would replace) and lock on yes, or let the chair choose."""
        item = self.item
        if item is not None:
            self._runner.read(acts.lock_preview, self._project, chair_id=self._panelist.id, item=item,
                              on_done=lambda preview: self._lock_previewed(item, preview),
                              on_error=self.failed.emit)

    def _lock_previewed(self, item: Item, preview) -> None:
        if self.item != item:
            return  # another item is shown by now
        answer = self._confirm_lock(preview)
        if answer == "lock":
            self.locking.emit(item)
            self._act(acts.lock, "decision locked", chair_id=self._panelist.id, item=item,
                      force=bool(preview.replaces))
        elif answer == "choose":
            self.choose_override.emit()

    def lock_unanimous(self) -> None:
        self._act(acts.lock_all, "unanimous decisions locked", chair_id=self._panelist.id, unanimous_only=True)

    def reopen(self) -> None:
        if self.item is None:
            return
        reason = self._ask_reason("Reopen the item", "Why the panel votes it again (kept in its history):")
        if reason is None:
            self.said.emit("Not reopened: a reopening needs a reason.")
            return
        self._act(acts.reopen_item, "reopened: the panel votes it again", panelist_id=self._panelist.id,
                  item=self.item, reason=reason)

    def override(self, decision: dict) -> None:
        if self.item is not None:
            self._act(acts.override, "decision overridden", chair_id=self._panelist.id, item=self.item, **decision)
