"""The group view's acts: what the votes pane's controls record for the shown item (a
vote, a note, the chair's lock, override and reopening) and the chair's lock of every
unanimous item.

A part of `QtGroupView` (a mixin of it), kept apart because it is one
responsibility: the panel's decisions as the meeting makes them, each an act of
`reviewer.app.panel` (what the command line runs) on the view's single writer, so
acts reach the database in the order they were made. The chair is shown what a lock
would record first (`confirm_lock`), and a reopening needs a reason (`ask_reason`).
It uses the view's `runner`, `_row`, `list`, `votes`, `status` and its `action_done`
signal; its only state is `_advance` (the item just locked: the list moves on).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMessageBox

from reviewer.app import panel as acts


class GroupViewActs:
    """The acts of `QtGroupView`: votes, notes, and the chair's decisions."""

    def _act(self, fn, message: str, **kwargs) -> None:
        """Run an app act; its change record reaches this view, the review page and the
        progress (the runner publishes it) before the message shows."""
        def done(_result) -> None:
            self.status.setText(message)
            self.action_done.emit(message)

        self.runner.act(fn, self.project, on_done=done, on_error=self._failed, **kwargs)

    def _cast(self, fields: dict) -> None:
        if self._row is not None:
            self._act(acts.vote, "your vote is recorded", panelist_id=self.panelist.id, item=self._row.item,
                      **fields)

    def _note(self, text: str) -> None:
        # Enter posted the note: the keys go back to the list (J/K, L to lock), as they do
        # after a note on the review page; the next E comes back to the box.
        self.list.setFocus(Qt.FocusReason.OtherFocusReason)
        if self._row is not None:
            self._act(acts.note, "note added", panelist_id=self.panelist.id, item=self._row.item, text=text)

    def _lock(self) -> None:
        """Show the chair what the lock would record (majority; 'unclear' on a tie; problematic
        by majority; an override it would replace) and lock on yes, or let the chair choose."""
        if self._row is not None:
            item = self._row.item
            self.runner.read(acts.lock_preview, self.project, chair_id=self.panelist.id, item=item,
                                on_done=lambda preview, i=item: self._lock_previewed(i, preview),
                                on_error=self._failed)

    def confirm_lock(self, preview) -> str:
        """'lock', 'choose' (the override dialog) or 'cancel': the chair's answer."""
        box = QMessageBox(self)
        box.setWindowTitle("Lock the panel's decision?")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(preview.text + (f"\n\n{preview.replaces}" if preview.replaces else ""))
        lock = box.addButton("Replace the override" if preview.replaces else "Lock", QMessageBox.ButtonRole.AcceptRole)
        choose = box.addButton("Choose instead…", QMessageBox.ButtonRole.ActionRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(lock)
        box.exec()
        return "lock" if box.clickedButton() is lock else "choose" if box.clickedButton() is choose else "cancel"

    def _lock_previewed(self, item, preview) -> None:
        if self._row is None or self._row.item != item:
            return
        answer = self.confirm_lock(preview)
        if answer == "lock":
            self._advance = item
            self._act(acts.lock, "decision locked", chair_id=self.panelist.id, item=item,
                      force=bool(preview.replaces))
        elif answer == "choose":
            self.votes._override()

    def _lock_unanimous(self) -> None:
        self._act(acts.lock_all, "unanimous decisions locked", chair_id=self.panelist.id, unanimous_only=True)

    def ask_reason(self, title: str, prompt: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, prompt)
        return text.strip() if ok and text.strip() else None

    def _reopen(self) -> None:
        if self._row is None:
            return
        reason = self.ask_reason("Reopen the item", "Why the panel votes it again (kept in its history):")
        if reason is None:
            self.status.setText("Not reopened: a reopening needs a reason.")
            return
        self._act(acts.reopen_item, "reopened: the panel votes it again", panelist_id=self.panelist.id,
                  item=self._row.item, reason=reason)

    def _override(self, decision: dict) -> None:
        if self._row is not None:
            self._act(acts.override, "decision overridden", chair_id=self.panelist.id, item=self._row.item,
                      **decision)
