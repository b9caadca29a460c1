"""The review page's actions: a keymap action, by name, turned into a session call.

A part of `QtReviewPage` (a mixin of it), kept apart because it is one
responsibility: what a key or a vote button does on the page (move, zoom and pan,
vote, ask for a note or an out-of-vocabulary name) and the auto-advance after a
vote. It uses the page's `review`, `image`, `zoom`, `vote_panel`, `auto_advance`
and its `voted` and `status_message` signals; it holds no state of its own.
"""

from __future__ import annotations

from reviewer.app.panel import shown_text
from reviewer.panel.votes import VoteError, implied_changes
from reviewer.terms import Category, Severity, Verdict

VOTE_ACTIONS = {
    **{f"verdict_{v}": {"verdict": v} for v in Verdict},
    **{f"severity_{s}": {"severity": s} for s in Severity.panel()},
    **{f"category_{c}": {"category": c} for c in Category if not c.needs_name},
}


class ReviewPageActions:
    """The keymap actions of `QtReviewPage`, whether a key or a button asked for them."""

    def trigger(self, name: str) -> bool:
        """Carry out a keymap action; False when it does not apply here."""
        review = self.review
        if review is None:
            return False
        moves = {"next": review.next, "previous": review.previous, "next_unvoted": review.next_unvoted,
                 "undo": review.undo, "zoom_in": self.image.zoom_in, "zoom_out": self.image.zoom_out,
                 "zoom_fit": self.image.zoom_fit, "zoom_actual": self.image.zoom_actual,
                 "pan_left": lambda: self.image.pan(-0.2, 0), "pan_right": lambda: self.image.pan(0.2, 0),
                 "pan_up": lambda: self.image.pan(0, -0.2), "pan_down": lambda: self.image.pan(0, 0.2),
                 "zoom_probe": self.zoom.probe_or_toggle, "zoom_scale_smaller": lambda: self.zoom.step_scale(-1),
                 "zoom_scale_larger": lambda: self.zoom.step_scale(1)}
        if name in moves:
            moves[name]()
            return True
        key = review.current_item()
        if key is None:
            return False
        if self.vote_panel.closed_reason:  # votes on it would count nowhere: say why, record nothing
            if name in VOTE_ACTIONS or name in ("toggle_problematic", "edit_note", f"category_{Category.FINE_GRAINED_OOV}"):
                self.status_message.emit(self.vote_panel.closed_reason, False)
                return True
            return False
        state = review.my_vote(key)
        if name == "toggle_problematic":
            self.voted.emit()
            review.vote(problematic=not state.problematic)
            return True
        if name == "edit_note":
            self.vote_panel.ask_text("note", "Note on this mistake (Enter records, Esc cancels):", state.note,
                                     name="the note")
            return True
        judged_wrong = review.judged_wrong(key)
        if name == f"category_{Category.FINE_GRAINED_OOV}":
            try:  # the rules of the act, asked before the name is
                implied_changes(state, judged_wrong=judged_wrong, category=Category.FINE_GRAINED_OOV, oov_name="?")
            except VoteError as exc:
                self.status_message.emit(f"{str(exc).capitalize()}.", True)
                return False
            self.vote_panel.ask_text("oov_name", "Name of the out-of-vocabulary object (Enter records, Esc "
                                                 "cancels):", state.oov_name or "", name="the object's name")
            return True
        if name not in VOTE_ACTIONS:
            return False
        try:
            changes = implied_changes(state, judged_wrong=judged_wrong, **VOTE_ACTIONS[name])
        except VoteError as exc:
            self.status_message.emit(f"{str(exc).capitalize()}.", True)
            return False
        self.voted.emit()
        self._after_vote(review.vote(**changes), verdict_key=name.startswith("verdict_"))
        return True

    def _text_entered(self, field: str, text: str) -> None:
        self.setFocus()
        if self.review is None or self.review.current_item() is None:
            return
        if field == "note":
            self.review.vote(note=text)
        elif field == "oov_name":
            key = self.review.current_item()
            try:
                changes = implied_changes(self.review.my_vote(key), judged_wrong=self.review.judged_wrong(key),
                                          category=Category.FINE_GRAINED_OOV, oov_name=text)
            except VoteError as exc:
                if not text:  # an empty name is no answer: ask again, saying why (Esc cancels)
                    self.vote_panel.ask_text("oov_name", "A name is needed: type the name of the out-of-vocabulary "
                                                         "object (Enter records, Esc cancels the category):",
                                             name="the object's name")
                self.status_message.emit(f"{str(exc).capitalize()}.", True)
                return
            self._after_vote(self.review.vote(**changes), verdict_key=False)

    def _text_cancelled(self, field: str) -> None:
        self.setFocus()
        if field == "oov_name":
            self.status_message.emit("Not recorded: the out-of-vocabulary category needs the object's name; "
                                     "choose the category again to name it.", False)

    def _drop_text_field(self) -> None:
        """The shown mistake changed while the inline field was open (the field left with Tab or
        a click, then J): what it asked for belonged to the mistake before, so it closes, and text
        typed there is said not recorded rather than recorded on the new one."""
        field = self.vote_panel.asking()
        typed = self.vote_panel.drop_text()
        if typed:
            what = "note" if field == "note" else "object's name"
            self.status_message.emit(f"Your {what} on the previous mistake was not recorded (Enter records it): "
                                     f"{shown_text(typed, 80)}", True)

    def _after_vote(self, state, *, verdict_key: bool) -> None:
        if state is None or self.auto_advance == "off":
            return
        key = self.review.current_item()
        judged_wrong = key is not None and self.review.judged_wrong(key)
        if state.is_complete(judged_wrong=judged_wrong) or (self.auto_advance == "verdict" and verdict_key):
            self.review.next()
