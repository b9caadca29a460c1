"""The review page's votes: the panelist's own vote, the others' and the panel's decision.

A part of `QtReviewPage` (a mixin of it), kept apart because it is one
responsibility: what the vote panel shows of the shown mistake as votes change
(one's own, written or read back; another panelist's; the decision a unanimous
panel makes), and whether the published evidence waits for one's verdict. It uses
the page's `session`, `review`, `vote_panel`, `details`, `queue_panel` and
`_update_counts`; its state is `_decisions` (each item's decision as last read)
and `evidence_before_vote` (the preference).
"""

from __future__ import annotations

from reviewer.app import panel as acts
from reviewer.items import Item
from reviewer.review.votes_in_flight import VoteStatus


class ReviewPageVotes:
    """The vote panel of `QtReviewPage`, kept in step with the session's votes and decisions."""

    def _show_vote(self, key) -> None:
        review = self.review
        status = review.vote_status(key)  # the domain's enum (reviewer.review.votes_in_flight): shown, not worked out
        status = review.vote_failure(key) if status == VoteStatus.FAILED else str(status)
        self.vote_panel.show_vote(review.my_vote(key), status=status, judged_wrong=review.judged_wrong(key),
                                  decision=self._decision_of(key))
        if key == review.current_item():
            # Panels that want independent judgements see the published evidence after their verdict.
            self.details.set_evidence_hidden(not self.evidence_before_vote and review.my_vote(key).verdict is None)
            self.vote_panel.show_suggestion_of(getattr(review.detail(key), "suggestion", None),
                                               hidden=self.details.evidence_hidden)

    def set_evidence_before_vote(self, shown: bool) -> None:
        self.evidence_before_vote = shown
        key = self.review.current_item() if self.bridge else None
        if key is not None:
            self._show_vote(key)

    def _show_others(self, key) -> None:
        self.vote_panel.show_others(self.review.others.get(key), self.review.names, blind=self.review.blind)

    def _vote_changed(self, key) -> None:
        self.queue_panel.model.pending = set(self.review.pending)  # the items whose vote is SAVING
        self.queue_panel.refresh_items((key,))
        self._update_counts()
        if key == self.review.current_item():
            self._show_vote(key)

    def _others_changed(self, key) -> None:
        if key == self.review.current_item():
            self._show_others(key)
            # Votes changed (one's own, read back after its last write, or another's): the panel's
            # decision may have with them (a unanimous panel decides), so it is read again.
            self.bridge.reader.submit(acts.decision_of, self.bridge.project, item=Item(*key),
                                       on_done=lambda d, k=key: self._decision_read(k, d), priority=2)

    def _decision_read(self, key, decision) -> None:
        self._decisions[key] = decision
        self._drop_stale_facts([key], decision=decision)
        if key == self.review.current_item():
            self.vote_panel.show_decision(decision)

    def _drop_stale_facts(self, items, *, decision=False) -> None:
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

    def _decision_of(self, key):
        """The item's decision as last read: after a vote (`_decision_read`), else with its facts."""
        if key in self._decisions:
            return self._decisions[key]
        detail = self.review.details.get(key) if self.bridge is not None else None
        return detail.decision if detail is not None else None


def _decided(decision) -> tuple | None:
    """What a decision says (a `DecisionNote` with the facts, a `DecidedValue` in the queue), to
    tell whether the facts were read before it."""
    if decision is None:
        return None
    return (decision.verdict, decision.how, decision.severity, decision.category, bool(decision.problematic))
