"""The review page's votes: the keys that vote, and what the vote panel shows as votes change.

A part of `QtReviewPage` that owns the vote panel's display of the shown item: one's own
vote with its status (`ReviewState.vote_status`, the domain's enum, shown as it is), the
others' votes, the panel's decision (each item's as last read, read again when votes
change: a unanimous panel decides) and whether the published evidence waits for one's
verdict. It also carries out the keys (or buttons) that vote: a verdict, a severity, a
category, the problematic flag, a note or an out-of-vocabulary name asked inline, and the
auto-advance after a vote. It takes the vote panel and the facts panel in its constructor
and the review's bridge in `set_bridge`; `voted`, `message` and `text_closed` tell the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from reviewer.app import panel as acts
from reviewer.app.panel import shown_text
from reviewer.items import Item
from reviewer.panel.votes import VoteError, implied_changes
from reviewer.review.votes_in_flight import VoteStatus
from reviewer.terms import Category, Severity, Verdict

if TYPE_CHECKING:
    from reviewer.app.mistake_detail import MistakeDetail
    from reviewer.review.state import ReviewState
    from reviewer.ui.review.qt_detail_panel import QtDetailPanel
    from reviewer.ui.review.qt_vote_panel import QtVotePanel
    from reviewer.ui.review.review_bridge import ReviewBridge

VOTE_ACTIONS = {
    **{f"verdict_{v}": {"verdict": v} for v in Verdict},
    **{f"severity_{s}": {"severity": s} for s in Severity.panel()},
    **{f"category_{c}": {"category": c} for c in Category if not c.needs_name},
}
OOV_ACTION = f"category_{Category.FINE_GRAINED_OOV}"
# The keymap actions that record something on the shown item (refused, saying why, where it takes no votes).
VOTING_ACTIONS = frozenset({*VOTE_ACTIONS, "toggle_problematic", "edit_note", OOV_ACTION})


class ReviewPageVotes(QObject):
    """The vote panel of the review page, kept in step with the review's votes and decisions."""

    voted = Signal()  # a key or button changed the panelist's vote
    message = Signal(str, bool)  # text, is an error
    text_closed = Signal()  # the inline field closed (Enter or Esc): the keys go back to the page

    def __init__(self, vote_panel: QtVotePanel, details: QtDetailPanel, *, auto_advance: str = "complete",
                 evidence_before_vote: bool = True, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.vote_panel, self.details = vote_panel, details
        self.auto_advance = auto_advance  # after a vote: "complete", "verdict" or "off"
        self.evidence_before_vote = evidence_before_vote  # the preference: published evidence before my verdict
        self.bridge: ReviewBridge | None = None
        self.review: ReviewState | None = None
        self._decisions: dict = {}  # item -> the panel's decision as last read (DecisionNote or None)
        vote_panel.text_entered.connect(self._text_entered)
        vote_panel.text_cancelled.connect(self._text_cancelled)

    def set_bridge(self, bridge: ReviewBridge | None) -> None:
        """The review whose votes are shown and cast (None: none); the decisions read before are forgotten."""
        self._decisions.clear()
        self.bridge = bridge
        self.review = bridge.state if bridge is not None else None

    # -- showing ------------------------------------------------------------------------
    def show_vote(self, item) -> None:
        """One's own vote on `item` and its status, the decision, and (for the shown item)
        whether the evidence and the suggestion wait for one's verdict."""
        review = self.review
        status = review.vote_status(item)  # the domain's enum (reviewer.review.votes_in_flight): shown, not worked out
        status = review.vote_failure(item) if status == VoteStatus.FAILED else str(status)
        self.vote_panel.show_vote(review.my_vote(item), status=status, judged_wrong=review.judged_wrong(item),
                                  decision=self.decision_of(item))
        if item == review.current_item():
            # Panels that want independent judgements see the published evidence after their verdict.
            self.details.set_evidence_hidden(not self.evidence_before_vote and review.my_vote(item).verdict is None)
            self.vote_panel.show_suggestion_of(getattr(review.detail(item), "suggestion", None),
                                               hidden=self.details.evidence_hidden)

    def show_facts(self, detail: MistakeDetail) -> None:
        """The shown item's facts just read: the evidence (hidden until one's verdict where the
        preference says so), the suggestion and the decision read with them."""
        item = (detail.image_id, detail.predicted.index)
        self.details.set_evidence_hidden(not self.evidence_before_vote and self.review.my_vote(item).verdict is None)
        self.details.show_detail(detail)
        self.vote_panel.show_suggestion_of(detail.suggestion, hidden=self.details.evidence_hidden)  # never a vote
        # The decision read with the facts, unless one read since is newer (after a vote: a
        # unanimous panel decides). Not read again as the mistake is shown: a decision made
        # since the facts were read comes with its change record, which reads the facts again.
        self.vote_panel.show_decision(self.decision_of(item))

    def set_evidence_before_vote(self, shown: bool) -> None:
        self.evidence_before_vote = shown
        item = self.review.current_item() if self.review is not None else None
        if item is not None:
            self.show_vote(item)

    def show_others(self, item) -> None:
        self.vote_panel.show_others(self.review.others.get(item), self.review.names, blind=self.review.blind)

    def vote_changed(self, item) -> None:
        """One's own vote on `item` changed (cast, saved, failed, read back)."""
        if item == self.review.current_item():
            self.show_vote(item)

    def others_changed(self, item) -> None:
        """The votes on `item` were read again (one's own after its last write, or another's)."""
        if item == self.review.current_item():
            self.show_others(item)
            # The panel's decision may have changed with them (a unanimous panel decides), so it is read again.
            bridge = self.bridge
            bridge.reader.submit(acts.decision_of, bridge.project, item=Item(*item),
                                 on_done=lambda d, i=item: self._decision_read(i, d), priority=2)

    def _decision_read(self, item, decision) -> None:
        self._decisions[item] = decision
        self.drop_stale_facts([item], decision=decision)
        if item == self.review.current_item():
            self.vote_panel.show_decision(decision)

    def facts_read(self, item) -> None:
        """The facts just read carry the decision as it stands: the one read before is dropped."""
        self._decisions.pop(item, None)

    def drop_stale_facts(self, items, *, decision=False) -> None:
        """Facts read before the decision that now stands (the queue row's, or `decision` just
        read) are read again: a unanimous panel decides with its last vote, whose change record
        names votes, not a decision, so the top-5 statuses read "unreviewed" beside the panel's
        decision, and kept doing so from the cache after moving away and back (issue 35, 5)."""
        review = self.review
        for item in items:
            detail = review.details.get(item)
            if detail is None:
                continue
            if decision is False:
                entry = review.queue.entry(item) if review.queue is not None else None
                if entry is None:
                    continue
                decision_now = entry.decision
            else:
                decision_now = decision
            if _decided(detail.decision) != _decided(decision_now):
                review.details.pop(item, None)
                self._decisions.pop(item, None)
                if item == review.current_item():
                    review.request_detail(item, priority=2)

    def decision_of(self, item):
        """The item's decision as last read: after a vote (`_decision_read`), else with its facts."""
        if item in self._decisions:
            return self._decisions[item]
        detail = self.review.details.get(item) if self.review is not None else None
        return detail.decision if detail is not None else None

    # -- the keys that vote ----------------------------------------------------------------
    def trigger(self, name: str) -> bool:
        """Carry out a keymap action that votes on the shown item; False when it does not apply."""
        review = self.review
        item = review.current_item() if review is not None else None
        if item is None:
            return False
        if self.vote_panel.closed_reason:  # votes on it would count nowhere: say why, record nothing
            if name in VOTING_ACTIONS:
                self.message.emit(self.vote_panel.closed_reason, False)
                return True
            return False
        state = review.my_vote(item)
        if name == "toggle_problematic":
            self.voted.emit()
            review.vote(problematic=not state.problematic)
            return True
        if name == "edit_note":
            self.vote_panel.ask_text("note", "Note on this mistake (Enter records, Esc cancels):", state.note,
                                     name="the note")
            return True
        judged_wrong = review.judged_wrong(item)
        if name == OOV_ACTION:
            try:  # the rules of the act, asked before the name is
                implied_changes(state, judged_wrong=judged_wrong, category=Category.FINE_GRAINED_OOV, oov_name="?")
            except VoteError as exc:
                self.message.emit(f"{str(exc).capitalize()}.", True)
                return False
            self.vote_panel.ask_text("oov_name", "Name of the out-of-vocabulary object (Enter records, Esc "
                                                 "cancels):", state.oov_name or "", name="the object's name")
            return True
        if name not in VOTE_ACTIONS:
            return False
        try:
            changes = implied_changes(state, judged_wrong=judged_wrong, **VOTE_ACTIONS[name])
        except VoteError as exc:
            self.message.emit(f"{str(exc).capitalize()}.", True)
            return False
        self.voted.emit()
        self._after_vote(review.vote(**changes), verdict_key=name.startswith("verdict_"))
        return True

    def _text_entered(self, field: str, text: str) -> None:
        self.text_closed.emit()
        review = self.review
        if review is None or review.current_item() is None:
            return
        if field == "note":
            review.vote(note=text)
        elif field == "oov_name":
            item = review.current_item()
            try:
                changes = implied_changes(review.my_vote(item), judged_wrong=review.judged_wrong(item),
                                          category=Category.FINE_GRAINED_OOV, oov_name=text)
            except VoteError as exc:
                if not text:  # an empty name is no answer: ask again, saying why (Esc cancels)
                    self.vote_panel.ask_text("oov_name", "A name is needed: type the name of the out-of-vocabulary "
                                                         "object (Enter records, Esc cancels the category):",
                                             name="the object's name")
                self.message.emit(f"{str(exc).capitalize()}.", True)
                return
            self._after_vote(review.vote(**changes), verdict_key=False)

    def _text_cancelled(self, field: str) -> None:
        self.text_closed.emit()
        if field == "oov_name":
            self.message.emit("Not recorded: the out-of-vocabulary category needs the object's name; "
                              "choose the category again to name it.", False)

    def drop_text_field(self) -> None:
        """The shown item changed while the inline field was open (the field left with Tab or
        a click, then J): what it asked for belonged to the item before, so it closes, and text
        typed there is said not recorded rather than recorded on the new one."""
        field = self.vote_panel.asking()
        typed = self.vote_panel.drop_text()
        if typed:
            what = "note" if field == "note" else "object's name"
            self.message.emit(f"Your {what} on the previous mistake was not recorded (Enter records it): "
                              f"{shown_text(typed, 80)}", True)

    def _after_vote(self, state, *, verdict_key: bool) -> None:
        if state is None or self.auto_advance == "off":
            return
        item = self.review.current_item()
        judged_wrong = item is not None and self.review.judged_wrong(item)
        if state.is_complete(judged_wrong=judged_wrong) or (self.auto_advance == "verdict" and verdict_key):
            self.review.next()


def _decided(decision) -> tuple | None:
    """What a decision says (a `DecisionNote` with the facts, a `DecidedValue` in the queue), to
    tell whether the facts were read before it."""
    if decision is None:
        return None
    return (decision.verdict, decision.how, decision.severity, decision.category, bool(decision.problematic))
