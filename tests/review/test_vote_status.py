"""A vote's status is an enum the headless review state computes from its votes in flight
(issue 35): LOADING, NONE, SAVING, RECORDED, FAILED (with why). The review page shows it; it
no longer reads the state's pending-write records to work it out."""

from __future__ import annotations

from reviewer.app import panel as acts
from reviewer.app.review import ReviewActs
from reviewer.items import Item
from reviewer.review.state import ReviewState
from reviewer.review.votes_in_flight import VotesInFlight, VoteStatus


def test_the_status_follows_the_writes_of_an_item():
    item, other = Item(1, 2), Item(3, 4)
    flight = VotesInFlight()
    assert flight.status(item, read=False, empty=True) == VoteStatus.LOADING
    assert flight.status(item, read=True, empty=True) == VoteStatus.NONE
    assert flight.status(item, read=True, empty=False) == VoteStatus.RECORDED
    first = flight.start(item)
    second = flight.start(item)  # two keys before the writer took the first
    assert second == first + 1 and flight.writes == {item: 2}
    assert flight.status(item, read=True, empty=False) == VoteStatus.SAVING
    assert not flight.landed(item) and flight.status(item, read=True, empty=False) == VoteStatus.SAVING
    assert flight.landed(item) and flight.status(item, read=True, empty=False) == VoteStatus.RECORDED
    assert not flight.writes and flight.failure(item) is None
    flight.start(other)
    flight.failed(other, "not recorded: the disk is full")
    assert flight.status(other, read=False, empty=True) == VoteStatus.FAILED  # until the next vote or undo
    assert flight.failure(other) == "not recorded: the disk is full"
    flight.undone(other, empty=True)
    assert flight.status(other, read=True, empty=True) == VoteStatus.NONE and flight.failure(other) is None


class _Held:
    """Reads and writes wait until run, on the calling thread (as the window's workers, later)."""

    def __init__(self):
        self.tasks = {"read": [], "write": []}

    def read(self, fn, *args, on_done=None, on_error=None, priority=0, **kwargs):
        self.tasks["read"].append((fn, args, kwargs, on_done, on_error))

    def write(self, fn, *args, on_done=None, on_error=None, **kwargs):
        self.tasks["write"].append((fn, args, kwargs, on_done, on_error))

    def soon(self, fn):
        fn()

    def run(self, kind):
        while self.tasks[kind]:
            fn, args, kwargs, on_done, on_error = self.tasks[kind].pop(0)
            try:
                result = fn(*args, **kwargs)
            except Exception as error:
                on_error(error)
            else:
                if on_done is not None:
                    on_done(result)


def test_the_headless_state_says_each_votes_status(review_project, monkeypatch):
    ann = acts.join_panel(review_project, "ann", join=True).value.id
    runner = _Held()
    state = ReviewState(ReviewActs(review_project, ann), runner)
    state.open_run(review_project.run_id)
    runner.run("read")
    item = state.current_item()
    assert state.vote_status(item) == VoteStatus.NONE  # read with the mistake: no vote
    state.vote(verdict="wrong")
    assert state.vote_status(item) == VoteStatus.SAVING
    runner.run("write")
    assert state.vote_status(item) == VoteStatus.RECORDED
    assert acts.my_vote(review_project, panelist_id=ann, item=item).verdict == "wrong"

    def full(*args, **kwargs):
        from reviewer.errors import UserError

        raise UserError("the disk is full (test)")

    monkeypatch.setattr(acts, "vote", full)
    state.vote(severity="major")
    runner.run("write")
    assert state.vote_status(item) == VoteStatus.FAILED
    assert state.vote_failure(item) == "not recorded: the disk is full (test)"
    monkeypatch.undo()
    state.undo()
    runner.run("write")
    assert state.vote_status(item) == VoteStatus.NONE  # the verdict undone: nothing left
