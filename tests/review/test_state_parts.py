"""The review state's two parts, each alone on a small stand-in for the state it belongs to
(issue 35: parts that own their state, each tested alone): `OwnVotes` (the panelist's
votes, the writes on their way, undo) and `ChangeFollower` (what change records ask to
read again). The stand-in offers the services `ReviewState` offers its parts, records
what the parts ask of it, and runs reads and writes when the test says so."""

from __future__ import annotations

from types import SimpleNamespace

from reviewer.app.changes import Changes
from reviewer.items import Item
from reviewer.panel.votes import VoteState
from reviewer.review.protocols import ReviewEvent
from reviewer.review.state_sync import ChangeFollower
from reviewer.review.state_votes import OwnVotes
from reviewer.review.votes_in_flight import VoteStatus

ITEM, OTHER = Item(1, 5), Item(2, 7)


class Runner:
    def __init__(self):
        self.reads, self.writes = [], []

    def read(self, fn, *args, on_done=None, on_error=None, priority=0, **kwargs):
        self.reads.append((fn, args, kwargs, on_done, on_error))

    def write(self, fn, *args, on_done=None, on_error=None, **kwargs):
        self.writes.append((fn, args, kwargs, on_done, on_error))

    @staticmethod
    def run(tasks: list) -> None:
        while tasks:
            fn, args, kwargs, on_done, on_error = tasks.pop(0)
            try:
                result = fn(*args, **kwargs)
            except Exception as error:
                on_error(error)
            else:
                if on_done is not None:
                    on_done(result)


class Backend:
    """Records votes; `others` and `my_vote` answer from what the test set."""

    def __init__(self):
        self.cast, self.fail_next = [], None
        self.others_votes = ["ann's vote"]

    def vote(self, item, *, queue_order=None, **changes):
        if self.fail_next:
            error, self.fail_next = self.fail_next, None
            raise error
        self.cast.append((item, changes))
        fields = dict(verdict=None, problematic=False, severity=None, category=None, oov_name=None, note="",
                      retracted=False)
        row = SimpleNamespace(id=len(self.cast), image_id=item.image_id, predicted=item.predicted,
                              **{**fields, **changes})
        return SimpleNamespace(value=row, changes=f"change {len(self.cast)}")

    def others(self, item, *, blind):
        return list(self.others_votes)

    def my_vote(self, item):
        return VoteState()

    def item_votes(self, item, *, blind):
        return VoteState(verdict="unclear"), list(self.others_votes)

    def item_states(self, items):
        return SimpleNamespace(items={})


class Queue:
    """The queue's part the parts touch: each item's own verdict, and the states read again."""

    filter = SimpleNamespace(sort=SimpleNamespace(value="image"))

    def __init__(self):
        self.verdicts, self.taken = {}, []

    def entry(self, item):
        return SimpleNamespace(my_verdict=self.verdicts.get(item))

    def set_my_verdict(self, item, verdict):
        self.verdicts[item] = verdict

    def take_item_states(self, states):
        self.taken.append(states)
        return []


class State:
    """What `ReviewState` offers its parts: the backend, runner, queue, shown entry and
    services; records the events and the services asked for."""

    def __init__(self):
        self.backend, self.runner, self.blind = Backend(), Runner(), True
        self.queue, self.row, self.run_id, self.source = None, 0, 1, "source"
        self.details, self.others, self.events, self.asked = {}, {}, [], []
        self.entry = SimpleNamespace(item=ITEM)
        self.own = OwnVotes(self)
        self.sync = ChangeFollower(self)

    def current(self):
        return self.entry

    def current_item(self):
        return self.entry.item

    def notify(self, event, *args):
        self.events.append(event)

    def set_others(self, item, votes):
        self.others[item] = votes

    def refresh_others(self, item):
        self.asked.append(("refresh_others", item))

    def request_detail(self, item, *, priority=0):
        self.asked.append(("request_detail", item))

    def go_to(self, row):
        self.asked.append(("go_to", row))

    def fail(self, error):
        self.asked.append(("fail", str(error)))

    def names_loaded(self, names):
        self.asked.append(("names", names))


def test_own_votes_show_a_vote_at_once_and_record_it_when_written():
    state = State()
    vote = state.own.cast(verdict="wrong")
    assert vote.verdict == "wrong" and state.own.of(ITEM).verdict == "wrong"
    assert state.own.in_flight.status(ITEM, read=True, empty=False) == VoteStatus.SAVING
    assert state.events == [ReviewEvent.VOTE_CHANGED] and not state.backend.cast
    state.runner.run(state.runner.writes)
    assert state.backend.cast == [(ITEM, {"verdict": "wrong"})]
    assert state.own.in_flight.status(ITEM, read=True, empty=False) == VoteStatus.RECORDED
    assert state.others[ITEM] == ["ann's vote"]  # the last write reads the others back itself
    assert state.own.undo_available and ReviewEvent.UNDO_CHANGED in state.events


def test_own_votes_drop_a_read_older_than_a_vote_and_a_failed_write():
    state = State()
    version = state.own.in_flight.version(ITEM)
    state.own.cast(verdict="correct")
    assert not state.own.take(ITEM, version, VoteState(verdict="wrong"), [])  # begun before the vote: dropped
    assert state.own.of(ITEM).verdict == "correct"
    state.backend.fail_next = RuntimeError("disk full")
    state.runner.run(state.runner.writes)
    assert state.own.in_flight.failure(ITEM) == "not recorded" and ITEM not in state.own.votes
    assert ("refresh_others", ITEM) in state.asked
    assert ReviewEvent.MESSAGE in state.events


def test_the_change_follower_reads_again_only_what_a_record_names():
    state = State()
    state.own.votes[ITEM] = VoteState(verdict="wrong")
    state.others[OTHER] = []
    state.queue = Queue()
    state.sync.apply(Changes(votes=True, items=frozenset({ITEM, OTHER, Item(9, 9)})))
    # Votes changed elsewhere: the shown item's votes are read again, the others' when shown.
    assert state.sync.stale_votes == {OTHER}
    assert ("request_detail", ITEM) in state.asked
    reads = [task[0] for task in state.runner.reads]
    assert state.backend.item_states in reads and state.backend.item_votes in reads
    state.runner.run(state.runner.reads)
    assert state.own.of(ITEM).verdict == "unclear"  # what the read said: nothing of this page on its way
    assert state.queue.verdicts[ITEM] == "unclear" and state.queue.taken  # the row and the item states follow


def test_the_change_follower_keeps_a_vote_on_its_way():
    state = State()
    state.queue = Queue()
    state.own.cast(verdict="wrong")  # on its way
    state.sync.apply(Changes(votes=True, items=frozenset({ITEM})))
    assert ITEM not in state.sync.stale_votes  # the page's own write reads it back
    state.sync.stale_votes.add(ITEM)
    state.sync.refresh_votes(ITEM)
    state.runner.run(state.runner.reads)
    assert state.own.of(ITEM).verdict == "wrong"  # the read did not overwrite the vote being saved
    assert state.queue.verdicts[ITEM] == "wrong"
