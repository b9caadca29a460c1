"""The review page's state without a window: keys pressed while the writer is busy,
a failed write, a read older than a vote. The runner here holds every read and
write until the test lets it through, so each interleaving is chosen, not timed;
the backend is the app layer's real acts on a real project."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from db.tables import ProjectSetting
from reviewer.app import panel as acts
from reviewer.app.review import ReviewActs
from reviewer.errors import UserError
from reviewer.review.protocols import ReviewEvent
from reviewer.review.state import ReviewState
from reviewer.review.votes_in_flight import VoteStatus
from reviewer.terms import Verdict


class HeldRunner:
    """Reads and writes wait in lists until `reads()` / `writes(n)` run them, on the
    calling thread, callbacks included (as the window's workers would, later)."""

    def __init__(self):
        self.read_queue, self.write_queue, self.later = [], [], []

    def read(self, fn, *args, on_done=None, on_error=None, priority=0, **kwargs):
        self.read_queue.append((fn, args, kwargs, on_done, on_error))

    def write(self, fn, *args, on_done=None, on_error=None, **kwargs):
        self.write_queue.append((fn, args, kwargs, on_done, on_error))

    def soon(self, fn):
        self.later.append(fn)

    @staticmethod
    def _run(task):
        fn, args, kwargs, on_done, on_error = task
        try:
            result = fn(*args, **kwargs)
        except Exception as error:  # delivered like the worker delivers it
            if on_error is None:
                raise
            on_error(error)
        else:
            if on_done is not None:
                on_done(result)

    def reads(self) -> int:
        """Run every read, and the reads those ask for, until none waits."""
        done = 0
        while self.read_queue or self.later:
            while self.later:
                self.later.pop(0)()
            if self.read_queue:
                self._run(self.read_queue.pop(0))
                done += 1
        return done

    def writes(self, count: int | None = None) -> None:
        for _ in range(len(self.write_queue) if count is None else count):
            self._run(self.write_queue.pop(0))


class CountingActs(ReviewActs):
    """The real acts, counting which item each read asks about."""

    def __init__(self, project, panelist_id):
        super().__init__(project, panelist_id)
        object.__setattr__(self, "calls", Counter())

    def others(self, item, *, blind):
        self.calls["others", item] += 1
        return super().others(item, blind=blind)

    def item_states(self, items):
        self.calls["item_states", tuple(items)] += 1
        return super().item_states(items)


@pytest.fixture
def review(review_project):
    """ann's review of the project's run, shown at its first mistake; bob voted wrong on it."""
    ann = acts.join_panel(review_project, "ann", join=True).value.id
    bob = acts.add_panelist(review_project, "bob").value.id
    # A panel starts blind (issue 35); this one's rule is off, so the page's own switch (off) decides.
    review_project.write(lambda s: s.merge(ProjectSetting(key="blind", value="off")))
    runner, events = HeldRunner(), []
    backend = CountingActs(review_project, ann)
    state = ReviewState(backend, runner, blind=False)

    def notify(event, *args):
        events.append((event, args))
        if event == ReviewEvent.PUBLISHED:  # what the window's watcher does with an act's record
            state.apply_changes(args[0])

    state._notify = notify
    state.open_run(review_project.run_id)
    runner.reads()
    item = state.current_item()
    acts.vote(review_project, panelist_id=bob, item=item, verdict="wrong")
    state.refresh_others(item)
    runner.reads()
    backend.calls.clear()
    state.bob = bob
    return state, runner, backend, events, item


def test_the_state_and_its_acts_load_without_qt():
    code = ("import sys, reviewer.review.state, reviewer.app.review; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_three_keys_while_the_writer_is_held_show_at_once_and_read_back_once(review):
    state, runner, backend, events, item = review
    events.clear()
    for changes in ({"verdict": "wrong"}, {"severity": "major"}, {"category": "fine_grained"}):
        state.vote(**changes)
    # Shown at once, as saving, before any write ran.
    assert state.pending[item] == 3 and state.vote_status(item) == VoteStatus.SAVING
    mine = state.my_vote(item)
    assert (mine.verdict, mine.severity, mine.category) == ("wrong", "major", "fine_grained")
    assert state.queue.entry(item).my_verdict == Verdict.WRONG
    runner.writes(2)
    runner.reads()
    # The first two writes read nothing back: the last one will.
    assert backend.calls["others", item] == 0 and not any(k[0] == "item_states" for k in backend.calls)
    assert state.pending[item] == 1 and state.vote_status(item) == VoteStatus.SAVING
    runner.writes(1)
    runner.reads()
    assert not state.pending and state.vote_status(item) == VoteStatus.RECORDED
    assert backend.calls["others", item] == 1
    assert backend.calls["item_states", (item,)] == 1
    assert state.queue.entry(item).stands_wrong  # both voted wrong: the panel's state was read after
    assert [v.panelist_id for v in state.others[item]] == [state.bob]
    recorded = acts.my_vote(state.backend.project, panelist_id=backend.panelist_id, item=item)
    assert (recorded.verdict, recorded.severity, recorded.category) == ("wrong", "major", "fine_grained")
    assert sum(1 for event, _ in events if event == ReviewEvent.PUBLISHED) == 3
    assert state.undo_available
    # Each key showed the vote at once; of the writes only the last changed what is shown.
    assert [args[0] for event, args in events if event == ReviewEvent.VOTE_CHANGED].count(item) == 4
    assert [args[0] for event, args in events if event == ReviewEvent.OTHERS_CHANGED].count(item) == 1


def test_a_failed_last_write_reads_back_what_the_database_holds(review, monkeypatch):
    state, runner, backend, events, item = review
    real_vote = acts.vote

    def vote(project, **fields):
        if fields.get("severity"):
            raise UserError("the disk is full (test)")
        return real_vote(project, **fields)

    monkeypatch.setattr(acts, "vote", vote)
    state.vote(verdict="wrong")
    state.vote(severity="major")
    assert state.my_vote(item).severity == "major"
    runner.writes()
    assert not state.pending and state.vote_status(item) == VoteStatus.FAILED \
        and state.vote_failure(item) == "not recorded: the disk is full (test)"
    assert (ReviewEvent.MESSAGE, ("Your vote was NOT recorded: the disk is full (test)", True)) in events
    runner.reads()
    # The first write's read-back waited for the second; the failure asked it itself.
    assert backend.calls["item_states", (item,)] == 1 and backend.calls["others", item] == 1
    mine = state.my_vote(item)
    assert mine.verdict == Verdict.WRONG and mine.severity is None  # what is on disk, not the optimistic vote
    assert state.queue.entry(item).stands_wrong


def test_a_read_begun_before_a_vote_does_not_overwrite_it(review):
    state, runner, backend, events, item = review
    state.sync.stale_votes.add(item)
    state.refresh_votes(item)  # a read of my vote (none yet) is on its way...
    state.vote(verdict="correct")  # ...when the panelist votes
    runner.reads()  # the old read arrives: dropped (the item's version moved on)
    assert state.my_vote(item).verdict == Verdict.CORRECT and state.vote_status(item) == VoteStatus.SAVING
    runner.writes()
    runner.reads()
    assert state.my_vote(item).verdict == Verdict.CORRECT and state.vote_status(item) == VoteStatus.RECORDED


def test_the_page_shows_a_vote_as_the_panel_records_it(review):
    """The object's name goes with a category that names none, as `cast_vote` records it."""
    state, runner, backend, events, item = review
    state.vote(verdict="wrong", category="fine_grained_oov", oov_name="a dough hook")
    assert state.my_vote(item).oov_name == "a dough hook"
    state.vote(category="fine_grained")
    assert state.my_vote(item).oov_name is None
    runner.writes()
    runner.reads()
    assert acts.my_vote(state.backend.project, panelist_id=backend.panelist_id, item=item).oov_name is None


def test_undo_goes_back_to_the_item_and_says_what_it_undid(review):
    state, runner, backend, events, item = review
    state.vote(verdict="unclear")
    runner.writes()
    runner.reads()
    state.next()
    runner.reads()
    assert state.current_item() != item
    state.undo()
    runner.writes()
    runner.reads()
    assert state.current_item() == item and state.my_vote(item).empty and state.vote_status(item) == VoteStatus.NONE
    assert any(event == ReviewEvent.MESSAGE and args[0].startswith("Undone") for event, args in events)


def test_facts_read_ahead_announce_a_coming_item_only_when_its_votes_changed(review, review_project):
    """A fast panelist's every key reads the next mistakes' facts: a coming item whose votes
    are as the queue says needs no repaint of its row; one with a vote cast elsewhere does."""
    state, runner, backend, events, item = review
    queue_items = [entry.item for entry in state.queue.shown()]
    ahead, voted_elsewhere = queue_items[1], queue_items[2]
    ann = backend.panelist_id
    # ann voted on the third item from another window since the queue was read.
    acts.vote(review_project, panelist_id=ann, item=voted_elsewhere, verdict="correct")
    state.details.clear()  # as if not read ahead yet
    events.clear()
    state.next()
    runner.reads()  # the shown item's facts and the ones ahead
    announced = [args[0] for event, args in events if event == ReviewEvent.VOTE_CHANGED]
    assert ahead in announced  # now the shown one
    assert voted_elsewhere in announced
    quiet = [i for i in queue_items[3:] if i in state.details]
    assert quiet and not set(quiet) & set(announced)
    assert state.queue.entry(voted_elsewhere).my_verdict == Verdict.CORRECT


def test_each_vote_records_the_queue_order_it_was_cast_in(review):
    """The page's votes carry the queue's sort at the key press; bob's, cast by the act directly (as the
    command line does), carry none."""
    from reviewer.panel.votes import vote_history
    from reviewer.review.queue_filter import QueueFilter

    state, runner, backend, events, item = review
    state.vote(verdict="wrong")
    state.set_filter(QueueFilter(sort="informative"))
    runner.reads()
    assert state.current_item() == item
    state.vote(severity="major")
    runner.writes()
    runner.reads()
    with state.backend.project.read() as session:
        rows = vote_history(session=session, item=item)
    assert [(r.panelist_id, r.queue_order) for r in rows] == [
        (state.bob, None), (backend.panelist_id, "image"), (backend.panelist_id, "informative")]


def test_the_others_read_again_are_announced_only_when_they_changed(review, review_project):
    """Showing a mistake reads the others' votes again (they may have voted since the facts
    were read ahead); the same votes announce nothing (the page would show them and read the
    item's decision again at every key), a new one does."""
    state, runner, backend, events, item = review
    events.clear()
    state.refresh_others(item)
    runner.reads()
    assert not [args for event, args in events if event == ReviewEvent.OTHERS_CHANGED]
    carol = acts.add_panelist(review_project, "carol").value.id
    acts.vote(review_project, panelist_id=carol, item=item, verdict="correct")
    state.refresh_others(item)
    runner.reads()
    # Announced (again once carol's name is read: she joined after the queue was loaded).
    assert set(args[0] for event, args in events if event == ReviewEvent.OTHERS_CHANGED) == {item}
    assert carol in [v.panelist_id for v in state.others[item]]
