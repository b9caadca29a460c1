"""The meeting's parts, each built alone on a runner whose reads and acts the test finishes by
hand (no project, no threads): the list of split items, the item shown, the acts, and the
agreement's computation. The meeting wired whole is tested in tests/ui/test_meeting_view.py."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from reviewer.app import panel as acts
from reviewer.items import Item
from reviewer.panel.meeting import ItemPanel, MeetingRow, MeetingState
from reviewer.panel.standing import Standing
from reviewer.ui.app import create_app
from reviewer.ui.meeting._meeting_layout import lay_out_top

pytestmark = pytest.mark.gui

ANN = SimpleNamespace(id=1, name="ann", is_chair=True)
BOB = SimpleNamespace(id=2, name="bob", is_chair=False)
SNAPSHOT = SimpleNamespace(panelists=[ANN, BOB])


class HeldRunner:
    """An OpRunner whose reads and acts wait until the test finishes them."""

    def __init__(self):
        self.jobs = []

    def read(self, fn, *args, on_done=None, on_error=None, lane="read", **kwargs):
        self.jobs.append(SimpleNamespace(kind="read", fn=fn, args=args, kwargs=kwargs, lane=lane,
                                         on_done=on_done, on_error=on_error))

    def act(self, fn, *args, on_done=None, on_error=None, **kwargs):
        self.jobs.append(SimpleNamespace(kind="act", fn=fn, args=args, kwargs=kwargs, lane="write",
                                         on_done=on_done, on_error=on_error))

    def shutdown(self, *, writes_msecs: int = -1):
        self.jobs.clear()

    def take(self, fn):
        job = next(j for j in self.jobs if j.fn is fn)
        self.jobs.remove(job)
        return job


def row(image_id: int, *, standing=Standing.DISPUTED, decision="", run_id=None) -> MeetingRow:
    return MeetingRow(item=Item(image_id, 42), file_name=f"val_{image_id:05d}.JPEG", predicted_name="tabby cat",
                    run_id=run_id, split_fields=("verdict",), phases=(1,), decision=decision, standing=standing)


def state(rows, *, hidden=0, unanimous_to_lock=0) -> MeetingState:
    return MeetingState(snapshot=SNAPSHOT, rows=list(rows), hidden=hidden, unanimous_to_lock=unanimous_to_lock)


# -- the list ---------------------------------------------------------------------------------
@pytest.fixture
def listed(qtbot):
    from reviewer.ui.meeting.meeting_list import MeetingList

    create_app()
    runner = HeldRunner()
    part = MeetingList("PROJECT", ANN, runner)
    # Its widgets placed as the meeting places them (alone, a button shown would be a window of its own).
    host = QWidget()
    layout = QVBoxLayout(host)
    layout.addLayout(lay_out_top(title=part.title, field_filter=part.field_filter, pair_label=part.pair_label,
                                 clear_pair=part.clear_pair, lock_unanimous=part.lock_unanimous, status=QLabel()))
    layout.addWidget(part.list)
    qtbot.addWidget(host)
    chosen = []
    part.row_chosen.connect(lambda r, snapshot: chosen.append((r.item.image_id, snapshot)))
    return SimpleNamespace(part=part, runner=runner, chosen=chosen, host=host)


def test_the_list_reads_lists_and_chooses_the_first_row(qtbot, listed):
    part, runner = listed.part, listed.runner
    part.reload()
    job = runner.take(acts.meeting_state)
    assert job.args == ("PROJECT",) and job.kwargs == dict(viewer_id=1, field=None, pair=None)
    rows = [row(1, standing=Standing.DECIDED, decision="wrong (majority)"), row(2), row(3)]
    with qtbot.waitSignal(part.loaded):
        job.on_done(state(rows, unanimous_to_lock=4))
    assert listed.chosen == [(1, SNAPSHOT)] and part.selected == rows[0] and part.model.rowCount() == 3
    assert part.title.text() == "3 images without unanimity: 1 decided · 2 disputed"
    assert part.lock_unanimous.text() == "Lock all unanimous (4)" and part.lock_unanimous.isEnabled()
    part.step(1)
    assert listed.chosen[-1] == (2, SNAPSHOT) and part.selected == rows[1]
    part.step(5)  # past the end: stays
    assert part.selected == rows[1]
    part.reload()  # read again: the row chosen stays chosen, shown again
    runner.take(acts.meeting_state).on_done(state(rows))
    assert listed.chosen[-1] == (2, SNAPSHOT) and len(listed.chosen) == 3 and not part.lock_unanimous.isVisible()


def test_after_a_lock_the_list_moves_on_to_the_next_open_item(listed):
    part, runner = listed.part, listed.runner
    rows = [row(1), row(2), row(3)]
    part.reload()
    runner.take(acts.meeting_state).on_done(state(rows))
    part.advance_after(Item(1, 42))
    part.reload()
    decided = [row(1, standing=Standing.DECIDED), row(2, standing=Standing.DECIDED), row(3)]
    runner.take(acts.meeting_state).on_done(state(decided))
    assert part.selected.item == Item(3, 42)  # the next still open, past the decided one


def test_an_empty_list_says_why(qtbot, listed):
    part, runner = listed.part, listed.runner
    part.reload()
    with qtbot.waitSignal(part.emptied) as emptied:
        runner.take(acts.meeting_state).on_done(state([]))
    assert emptied.args[0] == "Nothing to discuss" and part.selected is None and listed.chosen == []
    assert part.title.text() == "0 images without unanimity"


def test_a_pair_filter_lists_where_two_disagree_and_is_cleared(qtbot, listed):
    part, runner = listed.part, listed.runner
    with qtbot.waitSignal(part.pair_changed):
        part.set_pair_filter("severity", 1, 2)
    job = runner.take(acts.meeting_state)
    assert job.kwargs == dict(viewer_id=1, field="severity", pair=(1, 2))
    job.on_done(state([row(5)], hidden=2))
    assert part.title.text() == "1 image where ann and bob disagree"
    assert part.pair_label.text() == "(and 2 you have not voted yet)" and not part.clear_pair.isHidden()
    assert part.clear_pair.window() is not part.clear_pair
    part.clear_pair.click()
    job = runner.take(acts.meeting_state)
    assert job.kwargs == dict(viewer_id=1, field=None, pair=None) and part.field_filter.currentData() is None
    part.set_pair_filter("verdict", 1, 2)
    runner.take(acts.meeting_state)
    part.set_field_filter(None)  # every field: the pair goes with it
    assert runner.take(acts.meeting_state).kwargs["pair"] is None


def test_a_failed_read_is_said(qtbot, listed):
    listed.part.reload()
    with qtbot.waitSignal(listed.part.failed) as failed:
        listed.runner.take(acts.meeting_state).on_error(RuntimeError("database gone"))
    assert str(failed.args[0]) == "database gone"


# -- the item shown ---------------------------------------------------------------------------
@pytest.fixture
def item_pane(qtbot):
    from reviewer.ui.image_loader import ImageLoader
    from reviewer.ui.meeting.qt_meeting_item import QtMeetingItem

    create_app()
    runner, loader = HeldRunner(), ImageLoader(threads=1)
    pane = QtMeetingItem("PROJECT", ANN, runner, loader)
    qtbot.addWidget(pane)
    yield SimpleNamespace(pane=pane, runner=runner)
    loader.shutdown()


def panel_of(image_id: int) -> ItemPanel:
    return ItemPanel(item=Item(image_id, 42), columns=[], viewer_fields=frozenset(), unanimity={}, majority=None,
                     decision=None, notes=[], history=[])


def test_the_item_reads_its_panel_and_facts_and_shows_only_the_item_chosen(qtbot, item_pane):
    pane, runner = item_pane.pane, item_pane.runner
    shown = []
    pane.panel_loaded.connect(lambda panel, chair, text: shown.append((panel.item.image_id, chair, text)))
    pane.show_row(row(1, run_id=7), SNAPSHOT)
    assert "tabby cat" in pane.headline.text() and "val_00001.JPEG" in pane.headline.text()
    assert pane.image.message == "Loading…" and pane.selected_item() == Item(1, 42)
    first = runner.take(acts.meeting_item)
    assert first.kwargs == dict(snapshot=SNAPSHOT, item=Item(1, 42), viewer_id=1)
    facts = next(j for j in runner.jobs if j.lane == "facts")
    runner.jobs.remove(facts)
    pane.show_row(row(2), SNAPSHOT)  # another row chosen before the first item's reads came back
    assert not any(j.lane == "facts" for j in runner.jobs)  # no run: no facts to read
    first.on_done(panel_of(1))
    facts.on_error(RuntimeError("gone"))
    assert shown == [] and pane.image.message == "Loading…"  # the first item's replies are not shown
    with qtbot.waitSignal(pane.item_shown) as item_shown:
        runner.take(acts.meeting_item).on_done(panel_of(2))
    assert item_shown.args == [Item(2, 42)]
    assert shown == [(2, True, "val_00002.JPEG: predicted tabby cat (class 42)")]  # ann chairs the panel


def test_the_item_says_when_its_facts_fail_and_clears(item_pane):
    pane, runner = item_pane.pane, item_pane.runner
    pane.show_row(row(3, run_id=7), SNAPSHOT)
    facts = next(j for j in runner.jobs if j.lane == "facts")
    facts.on_error(RuntimeError("no such run"))
    assert pane.image.message == "No facts for this mistake"
    pane.read_facts()  # a decision elsewhere: the facts are read again
    assert sum(j.lane == "facts" for j in runner.jobs) == 2
    pane.clear("Nothing to discuss", "Every image voted by the whole panel is unanimous here.")
    assert pane.selected_item() is None and pane.headline.text() == "" and pane.image.message == "Nothing to discuss"
    pane.read_facts()
    assert sum(j.lane == "facts" for j in runner.jobs) == 2


# -- the acts ---------------------------------------------------------------------------------
@pytest.fixture
def meeting_acts(qtbot):
    from reviewer.ui.meeting.meeting_acts import MeetingActs

    create_app()
    runner, answers, reasons = HeldRunner(), [], []
    part = MeetingActs("PROJECT", ANN, runner, confirm_lock=lambda preview: answers.pop(0),
                       ask_reason=lambda title, prompt: reasons.pop(0))
    return SimpleNamespace(part=part, runner=runner, answers=answers, reasons=reasons)


def test_acts_record_on_the_item_shown_and_say_so(qtbot, meeting_acts):
    part, runner = meeting_acts.part, meeting_acts.runner
    part.vote({"verdict": "wrong"})
    part.note("hello")
    assert runner.jobs == []  # no item shown: nothing to act on
    part.set_item(Item(1, 42))
    part.vote({"verdict": "wrong"})
    job = runner.take(acts.vote)
    assert job.kind == "act" and job.kwargs == dict(panelist_id=1, item=Item(1, 42), verdict="wrong")
    with qtbot.waitSignal(part.done) as done:
        job.on_done(None)
    assert done.args == ["your vote is recorded"]
    part.note("hello")
    assert runner.take(acts.note).kwargs == dict(panelist_id=1, item=Item(1, 42), text="hello")
    part.override({"verdict": "correct", "reason": "seen it"})
    assert runner.take(acts.override).kwargs["reason"] == "seen it"
    part.lock_unanimous()
    assert runner.take(acts.lock_all).kwargs == dict(chair_id=1, unanimous_only=True)
    with qtbot.waitSignal(part.failed):
        part.vote({})
        runner.take(acts.vote).on_error(RuntimeError("refused"))


def test_the_lock_asks_the_chair_first_and_follows_the_answer(qtbot, meeting_acts):
    part, runner, answers = meeting_acts.part, meeting_acts.runner, meeting_acts.answers
    preview = SimpleNamespace(text="lock wrong", replaces="")
    part.set_item(Item(1, 42))
    part.lock()
    answers.append("lock")
    with qtbot.waitSignal(part.locking) as locking:
        runner.take(acts.lock_preview).on_done(preview)
    assert locking.args == [Item(1, 42)] and runner.take(acts.lock).kwargs == dict(chair_id=1, item=Item(1, 42),
                                                                                   force=False)
    part.lock()
    answers.append("choose")
    with qtbot.waitSignal(part.choose_override):
        runner.take(acts.lock_preview).on_done(preview)
    part.lock()
    part.set_item(Item(2, 42))  # another item shown before the preview came back: not asked
    runner.take(acts.lock_preview).on_done(preview)
    assert answers == [] and runner.jobs == []


def test_a_reopening_needs_a_reason(qtbot, meeting_acts):
    part, runner, reasons = meeting_acts.part, meeting_acts.runner, meeting_acts.reasons
    part.set_item(Item(1, 42))
    reasons.append(None)
    with qtbot.waitSignal(part.said) as said:
        part.reopen()
    assert said.args == ["Not reopened: a reopening needs a reason."] and runner.jobs == []
    reasons.append("bob changed his mind")
    part.reopen()
    assert runner.take(acts.reopen_item).kwargs == dict(panelist_id=1, item=Item(1, 42), reason="bob changed his mind")


# -- the agreement ----------------------------------------------------------------------------
class FakeAgreementPanel:
    def __init__(self):
        self.busy, self.reports = 0, []

    def set_busy(self):
        self.busy += 1

    def set_report(self, report, matrices, *, resamples, reliability=None):
        self.reports.append((report, resamples))


def test_the_agreement_runs_one_at_a_time_and_one_more_at_most(qtbot):
    from reviewer.ui.meeting.meeting_agreement import MeetingAgreement

    create_app()
    runner, panel = HeldRunner(), FakeAgreementPanel()
    part = MeetingAgreement("PROJECT", runner, panel, resamples=50)
    part.reload()
    part.reload()
    part.reload()
    job = runner.take(acts.agreement)
    assert job.lane == "stats" and job.kwargs == dict(resamples=50) and runner.jobs == [] and part.wanted
    summary = SimpleNamespace(report=["verdict"], matrices={}, resamples=50, reliability=None)
    with qtbot.waitSignal(part.shown):
        job.on_done(summary)
    assert panel.reports == [(["verdict"], 50)] and part.running and not part.wanted  # the one queued runs
    with qtbot.waitSignal(part.failed):
        runner.take(acts.agreement).on_error(RuntimeError("bootstrap failed"))
    assert not part.running and panel.busy == 2
    part.reload()
    assert part.running and len(runner.jobs) == 1


def test_the_meeting_wires_its_parts(qtbot, monkeypatch):
    """The meeting's parts as it builds them: their state is theirs, read through it by name."""
    from reviewer.ui.meeting import qt_meeting_view

    create_app()
    monkeypatch.setattr(qt_meeting_view, "OpRunner", lambda *a, **k: HeldRunner())
    watcher = SimpleNamespace(changed=SimpleNamespace(connect=lambda fn: None, disconnect=lambda fn: None))
    view = qt_meeting_view.QtMeetingView(SimpleNamespace(name="birds"), ANN, watcher=watcher)
    qtbot.addWidget(view)
    runner = view.runner
    job = runner.take(acts.meeting_state)
    rows = [row(1), row(2)]
    with qtbot.waitSignal(view.loaded):
        job.on_done(state(rows))
    assert view.rows == rows and view.list is view.meeting_list.list and view._state is view.meeting_list.state
    assert view.acts.item == Item(1, 42) and view.status.text().startswith("updated ")
    with qtbot.waitSignal(view.item_shown):
        runner.take(acts.meeting_item).on_done(panel_of(1))
    assert view.votes.lock.isEnabled()  # ann chairs: the votes pane was given the panel
    view.meeting_list.step(1)
    assert view.acts.item == Item(2, 42) and view.selected_item() == Item(2, 42)
    view.votes.note_requested.emit("a note")
    assert runner.take(acts.note).kwargs["item"] == Item(2, 42)
    view.tabs.setCurrentWidget(view.agreement)
    view.agreement.pair_chosen.emit("verdict", 1, 2)
    assert view.tabs.currentWidget() is view.votes
