"""The main window's parts, each built alone on a small model (not through the whole window):
the status strip, the open-project holder, the runs, the rules in force, the opener from the
start screen, and the menus with their keys."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QMainWindow, QStackedWidget

from reviewer.app.keymap import ACTIONS, Keymap
from reviewer.app.preferences import Preferences
from reviewer.terms import RunStatus
from reviewer.ui.app import create_app
from reviewer.ui.qt_status_strip import MESSAGE_MSECS, QtStatusStrip
from reviewer.ui.theme import ERROR

pytestmark = pytest.mark.gui


class FakeHolder(QObject):
    """A ProjectHolder's signals and state, set by hand."""

    opened = Signal()
    open_failed = Signal(object, str)
    closing = Signal()
    closed = Signal()
    runs_changed = Signal()
    changed = Signal(object)

    def __init__(self, *, root: str = "/projects/birds", runs=(), run_id=None, chair: bool = True):
        super().__init__()
        self.project = SimpleNamespace(root=Path(root), check_integrity=lambda: None)
        self.panelist = SimpleNamespace(id=1, name="ann", is_chair=chair)
        self.runs = list(runs)
        self.rules = None
        self.bridge = SimpleNamespace(state=SimpleNamespace(run_id=run_id))
        self.watcher = SimpleNamespace(published=[], publish=lambda changes: self.watcher.published.append(changes))
        self.asked_open = []

    def set_runs(self, runs):
        self.runs = list(runs)
        self.runs_changed.emit()

    def open(self, root, name, *, join=False):
        self.asked_open.append((root, name, join))


class HeldWorker:
    """A worker whose jobs wait until the test finishes them (`done`)."""

    def __init__(self):
        self.jobs = []

    def submit(self, fn, *args, on_done=None, on_error=None, **kwargs):
        self.jobs.append(SimpleNamespace(fn=fn, args=args, kwargs=kwargs, on_done=on_done, on_error=on_error))

    def done(self, value=None, index: int = 0):
        job = self.jobs.pop(index)
        if job.on_done is not None:
            job.on_done(value)


def changes(**named):
    fields = dict(runs=False, panel=False, labels=False, votes=False, decisions=False)
    return SimpleNamespace(**{**fields, **named})


@pytest.fixture
def strip(qtbot):
    create_app()
    strip = QtStatusStrip()
    qtbot.addWidget(strip)
    strip.show()
    return strip


def test_the_status_strip_says_a_message_and_scrubs_a_password(strip):
    strip.show_message("Cannot reach postgresql://ann:secret@db/panel", error=True)
    assert "secret" not in strip.text.text()
    assert strip.text.palette().windowText().color().name() == ERROR.lower() and strip.message_is_error
    assert strip._message_timer.interval() == MESSAGE_MSECS and strip._message_timer.isActive()


def test_a_vote_clears_a_note_but_not_an_error(strip):
    strip.show_message("Undone: a vote")
    strip.clear_note()
    assert strip.text.text() == ""
    strip.show_message("The vote was not recorded", error=True)
    strip.clear_note()
    assert strip.text.text() == "The vote was not recorded"
    strip.clear_refusal()  # a refusal about a name typed before no longer holds
    assert strip.text.text() == ""
    strip.show_message("Keys saved.")
    strip.clear_refusal()
    assert strip.text.text() == "Keys saved."


def test_the_undo_key_shows_while_there_is_a_vote_to_undo(strip):
    strip.show_undo(True, ["Ctrl+Z", "U"])
    assert strip.undo_label.text() == "Undo: Ctrl+Z"
    strip.show_undo(True, [])
    assert strip.undo_label.text() == "Undo: Review menu"
    strip.show_undo(False, ["Ctrl+Z"])
    assert strip.undo_label.text() == ""


def test_a_finished_run_is_offered_then_taken_or_withdrawn(qtbot, strip):
    strip.offer_run(3, model="resnet50", current=1)
    assert strip.show_run_button.isVisible() and strip.show_run_button.text() == "Show run #3"
    assert "you are still reviewing run #1" in strip.text.text()
    with qtbot.waitSignal(strip.offered_run_chosen) as chosen:
        strip.show_run_button.click()
    assert chosen.args == [3] and not strip.show_run_button.isVisible() and strip.offered_run is None
    strip.offer_run(4, model="vit", current=1)
    strip.run_opened(2)  # another run opened: the offer stands
    assert strip.show_run_button.isVisible()
    strip.run_opened(4)  # the offered run chosen in the toolbar's list: no longer an offer
    assert not strip.show_run_button.isVisible() and strip.offered_run is None


# -- the open-project holder, on the review project ------------------------------------------
def test_the_holder_opens_a_project_says_so_and_closes_it_after_its_views(qtbot, review_project):
    from reviewer.app import panel as acts
    from reviewer.ui.project_holder import ProjectHolder
    from reviewer.ui.workers import Worker

    create_app()
    acts.join_panel(review_project, "ann", join=True)
    review_project.close()
    worker = Worker(threads=1, name="test")
    holder = ProjectHolder(worker, blind=True)
    said = []
    for name in ("opened", "closing", "closed", "runs_changed"):
        getattr(holder, name).connect(lambda n=name: said.append((n, holder.bridge is not None)))
    with qtbot.waitSignal(holder.opened, timeout=20_000):
        holder.open(str(review_project.root), "ann")
    assert said == [("opened", True)]
    assert holder.panelist.name == "ann" and [r[0] for r in holder.runs] == [review_project.run_id]
    assert holder.rules is not None and holder.watcher is not None and holder.bridge.state.blind
    holder.set_blind(False)
    assert not holder.bridge.state.blind
    from reviewer.app.changes import Changes

    records = []
    holder.changed.connect(records.append)
    holder.watcher.publish(Changes(runs=frozenset({7})))
    assert records and records[0].runs == {7}
    holder.set_runs([])
    holder.close()
    # The views let go of the bridge while it is still there; then nothing is open.
    assert said[1:] == [("runs_changed", True), ("closing", True), ("closed", False)]
    assert holder.project is None and holder.watcher is None and holder.runs == []
    holder.close()  # nothing open: nothing said
    assert len(said) == 4
    worker.shutdown()


def test_the_holder_says_why_a_project_did_not_open(qtbot, tmp_path):
    from reviewer.ui.project_holder import ProjectHolder
    from reviewer.ui.workers import Worker

    create_app()
    worker = Worker(threads=1, name="test")
    holder = ProjectHolder(worker, blind=False)
    with qtbot.waitSignal(holder.open_failed, timeout=20_000) as failed:
        holder.open(str(tmp_path / "nothing"), "ann")
    assert failed.args[1] == str(tmp_path / "nothing") and holder.project is None
    worker.shutdown()


# -- the runs ------------------------------------------------------------------------------
RUNS = [(3, "vit", RunStatus.COMPLETE, 50), (2, "resnet50", RunStatus.COMPLETE, 50)]


@pytest.fixture
def runs_part(qtbot, monkeypatch):
    from reviewer.ui.project_runs import ProjectRuns
    from reviewer.ui.qt_run_selector import QtRunSelector

    create_app()
    holder, worker, selector = FakeHolder(runs=RUNS), HeldWorker(), QtRunSelector()
    qtbot.addWidget(selector)
    part = ProjectRuns(holder, worker, selector, Preferences(), dialog_parent=selector)
    return SimpleNamespace(part=part, holder=holder, worker=worker, selector=selector)


def test_the_runs_part_fills_its_selector_and_opens_the_remembered_queue(qtbot, runs_part):
    part, holder, selector = runs_part.part, runs_part.holder, runs_part.selector
    holder.opened.emit()
    assert selector.runs == RUNS and selector.findData(2) >= 0
    part._prefs.last_run[str(holder.project.root)] = 2
    assert part.default_run() == 2
    with qtbot.waitSignal(part.queue_chosen) as chosen:
        selector.run_chosen.emit(3)  # chosen in the toolbar's list
    assert chosen.args == [3, False] and part._prefs.last_run[str(holder.project.root)] == 3
    holder.bridge = None  # no review page model: nothing opens
    with qtbot.assertNotEmitted(part.queue_chosen):
        part.open_run(2)


def test_the_scope_is_read_once_the_first_mistake_shows_one_read_at_a_time(qtbot, runs_part):
    part, holder, worker = runs_part.part, runs_part.holder, runs_part.worker
    holder.runs = []  # (the selector's scope entry reads a real scope)
    holder.opened.emit()
    assert worker.jobs == []  # not while the queue itself is read
    part.first_mistake_shown()
    assert [job.fn.__name__ for job in worker.jobs] == ["read_scope", "<lambda>"]  # and the integrity check
    worker.jobs.pop()
    holder.changed.emit(changes(labels=True))  # asked again meanwhile: one more read afterwards
    assert len(worker.jobs) == 1
    scope = SimpleNamespace(runs=[])
    with qtbot.waitSignal(part.scope_read):
        worker.done((scope, "status"))
    assert (part.scope_view, part.scope_status) == (scope, "status") and len(worker.jobs) == 1
    part.first_mistake_shown()  # once only
    assert len(worker.jobs) == 1


def test_a_run_finished_beside_the_one_under_review_is_offered(qtbot, runs_part, monkeypatch):
    import reviewer.app.runs

    part, holder = runs_part.part, runs_part.holder
    holder.bridge.state.run_id = 2
    holder.opened.emit()
    newer = [(4, "convnext", RunStatus.COMPLETE, 50), *RUNS]
    monkeypatch.setattr(reviewer.app.runs, "run_list", lambda project: newer)
    with qtbot.assertNotEmitted(part.queue_chosen), qtbot.waitSignal(part.run_offered) as offered:
        part._run_finished(4)
    assert offered.args == [4, "convnext", 2] and holder.runs == newer
    with qtbot.waitSignal(part.queue_chosen) as chosen:
        part.open_offered_run(4)
    assert chosen.args == [4, False]
    with qtbot.assertNotEmitted(part.queue_chosen):
        part.open_offered_run(9)  # no longer listed


def test_a_change_record_naming_runs_lists_them_and_opens_the_first_when_none_was(qtbot, runs_part):
    part, holder, worker = runs_part.part, runs_part.holder, runs_part.worker
    holder.runs = []
    holder.opened.emit()
    holder.changed.emit(changes(runs=True))
    assert worker.jobs[0].fn.__name__ == "run_list"
    with qtbot.waitSignal(part.queue_chosen) as chosen:
        worker.done(RUNS)
    assert chosen.args == [3, False] and holder.runs == RUNS
    assert worker.jobs[0].fn.__name__ == "read_scope"


# -- the rules in force ---------------------------------------------------------------------
def rules_of(*, blind: bool):
    return SimpleNamespace(blind=blind, unanimous_final=True, panel_closed=False,
                           describe=lambda: "blind review" if blind else "open review")


@pytest.fixture
def rules_part(qtbot):
    from reviewer.ui.rules_in_force import RulesInForce

    create_app()
    holder, worker, box = FakeHolder(chair=False), HeldWorker(), QCheckBox("Blind")
    qtbot.addWidget(box)
    action = QAction("Rules…", box)
    part = RulesInForce(holder, worker, blind_box=box, rules_action=action, own_blind=False, dialog_parent=box)
    return SimpleNamespace(part=part, holder=holder, worker=worker, box=box, action=action)


def test_the_chairs_blind_rule_holds_the_switch_and_keeps_the_panelists_own(qtbot, rules_part):
    part, holder, box = rules_part.part, rules_part.holder, rules_part.box
    holder.rules = rules_of(blind=True)
    with qtbot.waitSignal(part.applied) as applied, qtbot.assertNotEmitted(part.blind_switched):
        holder.opened.emit()
    assert applied.args[0].blind and box.isChecked() and not box.isEnabled()
    with qtbot.waitSignal(part.message) as said:
        part.toggle_blind()
    assert "chair's rule" in said.args[0] and box.isChecked()
    part.apply(rules_of(blind=False))  # the chair lifts it: the panelist's own switch (off) again
    assert box.isEnabled() and not box.isChecked()
    with qtbot.waitSignal(part.blind_switched) as switched:
        part.toggle_blind()
    assert switched.args == [True]


def test_rules_are_the_chairs_to_change_and_read_again_on_a_panel_change(qtbot, rules_part, monkeypatch):
    import reviewer.app.panel

    part, holder, worker, action = rules_part.part, rules_part.holder, rules_part.worker, rules_part.action
    assert not action.isEnabled() and action.toolTip() == "Only the chair sets the panel's rules"  # none read yet
    holder.rules = rules_of(blind=False)
    holder.opened.emit()
    assert not action.isEnabled() and "Only the chair" in action.toolTip() and "open review" in action.toolTip()
    holder.changed.emit(changes(votes=True))
    assert worker.jobs == []
    holder.changed.emit(changes(panel=True))
    monkeypatch.setattr(reviewer.app.panel, "panel_rules", lambda project: rules_of(blind=True))
    assert worker.jobs[0].args == (holder.project,)
    with qtbot.waitSignal(part.applied):
        worker.done(rules_of(blind=True))
    assert part.rules.blind
    holder.panelist.is_chair = True
    part.apply(part.rules)
    assert action.isEnabled()
    holder.project = None
    holder.closed.emit()
    assert not action.isEnabled() and "Open a project first" in action.toolTip()


# -- the way in: the start screen to an open project -----------------------------------------
@pytest.fixture
def opener(qtbot, tmp_path):
    from reviewer.ui.dialogs.qt_start_screen import QtStartScreen
    from reviewer.ui.project_opener import ProjectOpener

    create_app()
    start, holder, worker = QtStartScreen(), FakeHolder(root=str(tmp_path)), HeldWorker()
    qtbot.addWidget(start)
    asked = []
    part = ProjectOpener(start, holder, worker, Preferences(),
                         confirm_join=lambda question: asked.append(question) or part.answer, dialog_parent=start)
    part.answer = True
    return SimpleNamespace(part=part, start=start, holder=holder, worker=worker, asked=asked)


def test_the_opener_asks_for_a_name_before_it_opens(qtbot, opener):
    part, start, holder = opener.part, opener.start, opener.holder
    with qtbot.waitSignal(part.start_wanted), qtbot.waitSignal(part.message) as said:
        start.open_project.emit("/projects/birds")
    assert "Enter your name first" in said.args[0] and said.args[1] and holder.asked_open == []
    start.set_name("bob")
    part.open_project("/projects/birds")
    assert holder.asked_open == [("/projects/birds", "bob", False)]


def test_a_new_name_joins_only_when_it_says_yes(qtbot, opener):
    from reviewer.panel.membership import NotOnPanel

    part, start, holder = opener.part, opener.start, opener.holder
    start.set_name("dan")
    holder.open_failed.emit(NotOnPanel("dan is not on this panel", name="dan", can_join=True), "/p")
    assert opener.asked == ["dan is not on this panel"] and holder.asked_open == [("/p", "dan", True)]
    part.answer = False
    with qtbot.waitSignal(part.start_wanted), qtbot.waitSignal(part.message) as said:
        holder.open_failed.emit(NotOnPanel("dan is not on this panel", name="dan", can_join=True), "/p")
    assert "dan did not join the panel" in said.args[0] and "did not join" in start.error.text()


def test_an_opened_project_is_remembered_but_not_a_one_off_name(opener):
    part, holder, prefs = opener.part, opener.holder, opener.part._prefs
    part.one_off_panelist = "ann"
    holder.opened.emit()
    assert prefs.panelist_name is None or prefs.panelist_name != "ann"
    assert prefs.recent_projects == [str(holder.project.root)]
    part.one_off_panelist = None
    holder.opened.emit()
    assert prefs.panelist_name == "ann"


def test_the_demo_without_a_run_asks_for_one_once_it_is_shown(qtbot, opener):
    part, holder, worker = opener.part, opener.holder, opener.worker
    opener.start.set_name("ann")
    part.open_demo()
    assert worker.jobs[0].fn.__name__ == "_prepare_demo"
    worker.done(("/demo", False))
    assert holder.asked_open == [("/demo", "ann", False)]
    with qtbot.waitSignal(part.demo_needs_run):
        part.project_shown()
    with qtbot.assertNotEmitted(part.demo_needs_run):
        part.project_shown()  # once


# -- the menus and the keys -------------------------------------------------------------------
class FakeHelp:
    def __init__(self):
        self.shown = False

    def isVisible(self):  # noqa: N802
        return self.shown

    def show_overlay(self):
        self.shown = True

    def hide_overlay(self):
        self.shown = False


@pytest.fixture
def menus(qtbot):
    from reviewer.ui.main_menus import MainMenus

    create_app()
    window = QMainWindow()
    qtbot.addWidget(window)
    done = []
    names = ("start_screen", "open_project", "new_project", "open_demo", "run_model", "export", "edit_keys",
             "group_view", "group_review", "analysis_view", "toggle_blind")
    acts = {name: (lambda n=name: done.append(n)) for name in names}
    acts.update(enlarge_small=lambda on: done.append(("enlarge", on)),
                evidence_before_vote=lambda on: done.append(("evidence", on)))
    keymap = Keymap(bindings={a.name: a.keys for a in ACTIONS})
    help_ = FakeHelp()
    part = MainMenus(window, keymap, acts=acts, help=help_, page=lambda: None, stack=QStackedWidget(),
                     enlarge_small=True, evidence_before_vote=False)
    return SimpleNamespace(part=part, window=window, done=done, help=help_, keymap=keymap)


def test_the_menus_carry_out_the_acts_they_were_given(menus):
    part, done = menus.part, menus.done
    titles = [action.text() for action in menus.window.menuBar().actions()]
    assert titles == ["&File", "&Review", "&View", "&Panel"]
    assert part.trigger("group_view") and part.trigger("toggle_blind") and part.trigger("open_project")
    part.export_action.trigger()
    part.enlarge_action.toggle()
    assert done == ["group_view", "toggle_blind", "open_project", "export", ("enlarge", False)]
    assert part.enlarge_action.isChecked() is False and part.evidence_action.isChecked() is False
    assert not part.trigger("next")  # a review page's key, with no page: nothing here


def test_help_takes_the_keys_while_it_shows(menus):
    part, done = menus.part, menus.done
    assert part.trigger("help") and menus.help.shown
    assert not part.trigger("group_view") and done == []
    assert part._key_pressed("Esc") and not menus.help.shown


def test_a_new_keymap_is_shown_in_the_menus_and_passed_on(qtbot, menus):
    part = menus.part
    bindings = dict(menus.keymap.bindings, group_view=("F9",))
    with qtbot.waitSignal(part.keymap_changed) as changed:
        part.apply_keymap(Keymap(bindings=bindings))
    assert changed.args[0].keys("group_view") == ("F9",)
    assert part.actions_by_name["group_view"].text().endswith("\tF9")
    assert part._key_pressed("F9") and menus.done == ["group_view"]


# -- the export, on a fake holder and a held worker --------------------------------------------
@pytest.fixture
def exporter(qtbot, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QWidget

    from reviewer.ui.project_export import ProjectExport

    create_app()
    parent = QWidget()
    qtbot.addWidget(parent)
    holder, worker, said = FakeHolder(), HeldWorker(), []
    asked = []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: asked.append(a[2]) or "/exports"))
    part = ProjectExport(holder, worker, lambda text, error=False: said.append((text, error)), dialog_parent=parent)
    return SimpleNamespace(part=part, holder=holder, worker=worker, said=said, asked=asked)


def test_the_export_runs_on_the_worker_and_shows_its_summary(qtbot, exporter, monkeypatch):
    import reviewer.app.export
    from reviewer.app.export import export_project

    part, said = exporter.part, exporter.said
    running = []
    part.running_changed.connect(running.append)
    part.export_project()
    assert exporter.asked == ["/projects/birds"]  # the folder dialog starts beside the project
    job = exporter.worker.jobs[0]
    assert job.fn is export_project and job.args == (exporter.holder.project, "/exports")
    assert part.running and running == [True] and said == [("Exporting into /exports…", False)]
    part.export_project()  # a second start while one runs: nothing
    assert len(exporter.worker.jobs) == 1
    summary = SimpleNamespace(headline="Exported to /exports/export-0001: 3 decisions of the panel",
                              lines=["3 decisions", "1 item left out"], files=["manifest.json", "labels.csv"])
    monkeypatch.setattr(reviewer.app.export, "export_summary", lambda result: summary)
    with qtbot.waitSignal(part.exported) as exported:
        exporter.worker.done(SimpleNamespace(value=SimpleNamespace(path="/exports/export-0001")))
    assert exported.args == ["/exports/export-0001"] and running == [True, False] and not part.running
    assert said[-1] == (summary.headline, False)
    box = part.summary
    assert box.isVisible() and box.informativeText() == "3 decisions\n1 item left out"
    assert box.detailedText() == "manifest.json\nlabels.csv"
    box.close()


def test_the_export_says_why_it_failed_and_needs_a_project(qtbot, exporter):
    from reviewer.errors import UserError

    part, said = exporter.part, exporter.said
    part.export_project()
    with qtbot.waitSignal(part.failed) as failed:
        job = exporter.worker.jobs.pop()
        job.on_error(UserError("/exports is a file"))
    assert failed.args == ["/exports is a file"] and not part.running
    assert said[-1] == ("Export failed (no export folder was made): /exports is a file", True)
    exporter.holder.project = None
    part.export_project()
    assert said[-1] == ("Open a project first.", True) and exporter.worker.jobs == [] and part.summary is None
