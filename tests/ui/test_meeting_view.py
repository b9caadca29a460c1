"""The meeting on a real 3-panelist project, offscreen: exactly the split
images, the chair's lock (majority, unclear on a tie), the kappa-matrix
filter, one's own vote changed, and other panelists' votes arriving."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt
from review_data import read_with, snapshot_of

from reviewer.app import panel as acts
from reviewer.items import Item
from reviewer.panel.state import latest_decisions
from reviewer.panel.votes import vote_history

pytestmark = pytest.mark.gui

SCREENSHOTS = os.environ.get("REVIEWER_SCREENSHOTS", "/tmp")


@pytest.fixture
def panel_project(review_project):
    """Three panelists' votes on the review project's seven mistakes."""
    project = review_project
    items = snapshot_of(project).items
    ann, bob, cy = (acts.add_panelist(project, n, chair=n == "ann").value for n in ("ann", "bob", "cy"))
    plan = {
        0: [dict(verdict="wrong")] * 3,  # unanimous
        1: [dict(verdict="wrong"), dict(verdict="wrong"), dict(verdict="correct")],  # 2:1
        2: [dict(verdict="correct"), dict(verdict="wrong"), dict(verdict="unclear")],  # three-way tie
        3: [dict(verdict="correct"), dict(verdict="correct"), dict(verdict="correct", problematic=True)],
        4: [dict(verdict="correct")] * 3,  # unanimous
        5: [dict(verdict="wrong", severity=s, category="fine_grained") for s in ("major", "major", "minor")],
        6: [dict(verdict="wrong"), None, dict(verdict="correct")],  # bob has not voted: not for the group yet
    }
    for k, votes in plan.items():
        for who, fields in zip((ann, bob, cy), votes):
            if fields:
                acts.vote(project, panelist_id=who.id, item=Item(items[k].image_id, items[k].predicted),
                          note=f"{who.name} thinks {fields['verdict']}", **fields)
    return project, (ann, bob, cy), items


@pytest.fixture
def open_view(qtbot, monkeypatch):
    from reviewer.ui.app import create_app
    from reviewer.ui.meeting.qt_meeting_view import QtMeetingView

    create_app()
    monkeypatch.setattr(QtMeetingView, "resamples", 50)
    monkeypatch.setattr("reviewer.ui.watcher.POLL_MS", 150)
    # The chair's confirmation of a lock: what it showed is kept, the answer is "lock".
    previews = []
    monkeypatch.setattr(QtMeetingView, "confirm_lock", lambda self, preview: previews.append(preview) or "lock")

    def make(project, reviewer):
        view = QtMeetingView(project, reviewer)
        qtbot.addWidget(view)
        view.resize(1280, 800)
        with qtbot.waitSignal(view.item_shown, timeout=20_000):
            view.show()
        return view

    make.previews = previews
    return make


def select(qtbot, view, item):
    if view.selected_item() == item:
        return
    row = [r.item for r in view.rows].index(item)
    with qtbot.waitSignal(view.item_shown, timeout=10_000):
        view.list.selectRow(row)


def test_lists_exactly_the_split_images_with_their_votes(qtbot, panel_project, open_view):
    project, (ann, bob, cy), items = panel_project
    # bob rates a severity ann has not rated: neither the table nor the history shows it to her.
    acts.vote(project, panelist_id=bob.id, item=items[1],
              severity="major")
    view = open_view(project, ann)
    assert [r.item for r in view.rows] == [items[1], items[2], items[3], items[5]]
    history = view.votes.history.toPlainText()
    assert "bob vote: verdict: Wrong" in history and "major" not in history.lower()
    assert view.title.text() == "4 images without unanimity: 0 decided · 4 disputed"
    split = [view.model.index(r, 1).data() for r in range(view.model.rowCount())]
    assert split == ["verdict", "verdict", "problematic", "severity"]
    # The votes side by side, the panelists' notes, and the majority a lock would record.
    table = view.votes.table
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == [
        "ann (you) ★", "bob", "cy", "Majority"]
    assert [table.item(0, c).text() for c in range(4)] == ["wrong", "wrong", "correct", "wrong"]
    assert table.item(5, 2).text() == "cy thinks correct"
    assert table.verticalHeaderItem(0).text() == "⚠ Verdict"
    view.set_field_filter("severity")
    qtbot.waitUntil(lambda: [r.item for r in view.rows] == [items[5]], timeout=10_000)
    # The image and its facts (the review window's widgets) load on their own threads.
    qtbot.waitUntil(lambda: view.image.has_image() or bool(view.image.message != "Loading…"), timeout=20_000)
    qtbot.waitUntil(lambda: "Original label" in view.facts.ground_truth.text(), timeout=20_000)
    view.grab().save(f"{SCREENSHOTS}/meeting_votes.png")


def test_chair_locks_majority_and_unclear_on_a_tie(qtbot, panel_project, open_view, monkeypatch):
    project, (ann, bob, cy), items = panel_project
    bobs = open_view(project, bob)
    assert not bobs.votes.lock.isEnabled() and "Only the chair" in bobs.votes.lock.toolTip()
    view = open_view(project, ann)
    for item, verdict in ((items[1], "wrong"), (items[2], "unclear")):
        select(qtbot, view, item)
        with qtbot.waitSignal(view.action_done, timeout=10_000):
            qtbot.mouseClick(view.votes.lock, Qt.MouseButton.LeftButton)
        decision = read_with(project, latest_decisions, items=[item]).get(item)
        assert (decision.verdict, decision.method, decision.decided_by) == (verdict, "majority", ann.id)
    # The chair was shown what each lock records before it was made: the 2:1 majority, and the tie's unclear.
    assert open_view.previews[0].text.startswith("Lock “wrong” · not problematic")
    assert open_view.previews[1].text.startswith("Lock “unclear” (the verdicts tie: 'unclear', the paper's rule)")
    assert "verdict: correct 1, unclear 1, wrong 1 (tie)" in open_view.previews[1].text
    qtbot.waitUntil(lambda: view.model.index(1, 2).data() == "unclear", timeout=10_000)
    qtbot.waitUntil(lambda: view.selected_item() == items[3], timeout=10_000)  # moved on to the next dispute
    select(qtbot, view, items[2])
    qtbot.waitUntil(lambda: "Decision:" in view.votes.decision.text(), timeout=10_000)
    assert "unclear" in view.votes.decision.text()

    # The chair overrides the tie, with a reason, through the override dialog.
    from reviewer.ui.meeting.qt_meeting_votes import QtOverrideDialog

    def fill_and_accept(dialog):
        dialog.verdict.setCurrentIndex(dialog.verdict.findData("correct"))
        dialog.reason.setPlainText("the panel agreed in the meeting: the dog is a Chihuahua")
        return QtOverrideDialog.DialogCode.Accepted

    monkeypatch.setattr(QtOverrideDialog, "exec", fill_and_accept)
    with qtbot.waitSignal(view.action_done, timeout=10_000):
        qtbot.mouseClick(view.votes.override, Qt.MouseButton.LeftButton)
    decision = read_with(project, latest_decisions, items=[items[2]]).get(items[2])
    assert (decision.verdict, decision.method, decision.reason) == (
        "correct", "override", "the panel agreed in the meeting: the dog is a Chihuahua")
    qtbot.waitUntil(lambda: "override" in view.votes.history.toPlainText(), timeout=10_000)
    view.votes.tabs.setCurrentIndex(1)
    view.grab().save(f"{SCREENSHOTS}/meeting_history.png")


def test_clicking_a_kappa_cell_lists_where_those_two_disagree(qtbot, panel_project, open_view):
    project, (ann, bob, cy), items = panel_project
    view = open_view(project, ann)
    view.tabs.setCurrentWidget(view.agreement)
    qtbot.waitUntil(lambda: view.agreement.matrix.rowCount() == 3, timeout=30_000)
    matrix = view.agreement.matrix
    assert view.agreement.stats.horizontalHeaderItem(0).text() == "Verdict"
    cell = matrix.visualItemRect(matrix.item(1, 2))  # bob's row, cy's column
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        qtbot.mouseClick(matrix.viewport(), Qt.MouseButton.LeftButton, pos=cell.center())
    # Bob and cy differ on 1 (wrong/correct) and 2 (wrong/unclear); ann has voted 6 but bob has not.
    assert [r.item for r in view.rows] == [items[1], items[2]]
    assert view.title.text() == "2 images where bob and cy disagree"
    view.tabs.setCurrentWidget(view.agreement)
    view.grab().save(f"{SCREENSHOTS}/meeting_agreement.png")
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        qtbot.mouseClick(view.clear_pair, Qt.MouseButton.LeftButton)
    assert len(view.rows) == 4


def test_own_vote_changes_and_others_votes_arrive_without_restart(qtbot, panel_project, open_view):
    project, (ann, bob, cy), items = panel_project
    view = open_view(project, bob)
    select(qtbot, view, items[1])
    editor = view.votes
    editor.verdict.setCurrentIndex(editor.verdict.findData("correct"))
    editor.my_note.setText("the stripes decide it")
    with qtbot.waitSignal(view.action_done, timeout=10_000):
        qtbot.mouseClick(editor.save, Qt.MouseButton.LeftButton)
    mine = [v for v in read_with(project, vote_history, item=items[1])
            if v.panelist_id == bob.id]
    assert [(v.verdict, v.note) for v in mine] == [("wrong", "bob thinks wrong"),
                                                   ("correct", "the stripes decide it")]  # history kept
    # Another panelist, elsewhere, changes a vote: it shows at the next poll.
    acts.vote(project, panelist_id=cy.id, item=items[1],
              verdict="unclear")
    qtbot.waitUntil(lambda: editor.table.item(0, 2).text() == "unclear", timeout=10_000)
    assert "History" in editor.tabs.tabText(1)


def test_enter_posts_a_note_and_hands_the_keys_back_to_lock(qtbot, panel_project, open_view):
    """E, a note, Enter: the note is posted and L then locks (it used to type an "l" into the box)."""
    from PySide6.QtWidgets import QApplication

    project, (ann, bob, cy), items = panel_project
    view = open_view(project, ann)
    select(qtbot, view, items[1])  # 2:1 wrong: a majority the chair may lock
    view.activateWindow()
    qtbot.waitUntil(view.votes.new_note.isEnabled, timeout=5_000)

    def press(key):
        qtbot.keyClick(QApplication.focusWidget() or view, key)

    press(Qt.Key.Key_E)
    assert view.votes.new_note.hasFocus()
    qtbot.keyClicks(view.votes.new_note, "two of us see a husky")
    with qtbot.waitSignal(view.action_done, timeout=10_000):
        press(Qt.Key.Key_Return)
    assert not view.votes.new_note.hasFocus() and view.votes.new_note.text() == ""
    with qtbot.waitSignal(view.action_done, timeout=10_000):
        press(Qt.Key.Key_L)
    decision = read_with(project, latest_decisions, items=[items[1]]).get(items[1])
    assert (decision.verdict, decision.method) == ("wrong", "majority")
    assert view.votes.new_note.text() == ""


def test_the_override_dialog_keeps_what_was_entered_until_the_rules_accept_it(qtbot):
    """OK without a reason: the dialog stays open with the chosen verdict and says why (it used
    to close, dropping the chair's input); severity and category are for "wrong" only."""
    from reviewer.ui.app import create_app
    from reviewer.ui.meeting.qt_meeting_votes import QtOverrideDialog

    create_app()
    dialog = QtOverrideDialog("n01440764_tench.JPEG, predicted goldfish")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.verdict.setCurrentIndex(dialog.verdict.findData("wrong"))
    dialog.severity.setCurrentIndex(dialog.severity.findData("major"))
    dialog.category.setCurrentIndex(dialog.category.findData("fine_grained"))
    dialog.accept()
    assert dialog.isVisible() and dialog.result() != QtOverrideDialog.DialogCode.Accepted
    assert dialog.error.isVisible() and "needs a reason" in dialog.error.text()
    assert dialog.verdict.currentData() == "wrong" and dialog.severity.currentData() == "major"
    dialog.reason.setPlainText("a husky by the panel's reading of the ears")
    dialog.accept()
    assert dialog.result() == QtOverrideDialog.DialogCode.Accepted
    assert dialog.decision() == {"verdict": "wrong", "problematic": False, "severity": "major",
                                 "category": "fine_grained", "oov_name": None,
                                 "reason": "a husky by the panel's reading of the ears"}
    # A "correct" decision has no severity or category, whatever the boxes held.
    dialog.verdict.setCurrentIndex(dialog.verdict.findData("correct"))
    assert not dialog.severity.isEnabled() and not dialog.category.isEnabled()
    assert dialog.decision()["severity"] is None and dialog.decision()["category"] is None


def test_the_chair_reopens_and_a_lock_moves_on_and_asks_before_replacing_an_override(
        qtbot, panel_project, open_view, monkeypatch):
    """Issue 23, the meeting: after a lock the view moves to the next open dispute; the chair
    reopens (undoes) a lock from the view, with a reason; a lock that would replace the chair's
    override says so and is made only as the chair's explicit answer."""
    from reviewer.ui.meeting.qt_meeting_view import QtMeetingView

    project, (ann, bob, cy), items = panel_project
    view = open_view(project, ann)
    select(qtbot, view, items[1])
    with qtbot.waitSignal(view.action_done, timeout=10_000):
        qtbot.mouseClick(view.votes.lock, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.selected_item() == items[2], timeout=10_000)  # the next one still open
    # Reopen the lock of items[1]: asked for a reason; none given, nothing written.
    select(qtbot, view, items[1])
    qtbot.waitUntil(view.votes.reopen.isEnabled, timeout=10_000)
    monkeypatch.setattr(QtMeetingView, "ask_reason", lambda self, title, prompt: None)
    qtbot.mouseClick(view.votes.reopen, Qt.MouseButton.LeftButton)
    assert read_with(project, latest_decisions, items=[items[1]])[items[1]].method == "majority"
    monkeypatch.setattr(QtMeetingView, "ask_reason", lambda self, title, prompt: "bob changed his mind")
    with qtbot.waitSignal(view.action_done, timeout=10_000):
        qtbot.mouseClick(view.votes.reopen, Qt.MouseButton.LeftButton)
    reopened = read_with(project, latest_decisions, items=[items[1]])[items[1]]
    assert (reopened.method, reopened.reason, reopened.decided_by) == ("reopened", "bob changed his mind", ann.id)
    qtbot.waitUntil(lambda: "reopened" in view.votes.history.toPlainText().lower(), timeout=10_000)
    # An override, reopened, then a lock: the chair is told what it replaces, and "cancel" keeps it.
    acts.override(project, chair_id=ann.id, item=items[1], verdict="correct", reason="a husky, said the meeting")
    acts.reopen_item(project, panelist_id=ann.id, item=items[1], reason="one more look")
    answers = iter(["cancel", "lock"])
    shown = []
    monkeypatch.setattr(QtMeetingView, "confirm_lock", lambda self, p: shown.append(p) or next(answers))
    select(qtbot, view, items[1])
    qtbot.mouseClick(view.votes.lock, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(shown), timeout=10_000)
    assert "replace the chair's override (correct" in shown[0].replaces
    assert read_with(project, latest_decisions, items=[items[1]])[items[1]].method == "reopened"
    with qtbot.waitSignal(view.action_done, timeout=10_000):
        qtbot.mouseClick(view.votes.lock, Qt.MouseButton.LeftButton)
    replaced = read_with(project, latest_decisions, items=[items[1]])[items[1]]
    assert (replaced.verdict, replaced.method) == ("wrong", "majority")


def test_with_unanimity_not_final_the_chair_locks_all_unanimous_from_the_view(qtbot, panel_project, open_view):
    """The chair turned "unanimous is final" off: the view offers "Lock all unanimous (N)"."""
    project, (ann, bob, cy), items = panel_project
    acts.set_panel_rules(project, chair_id=ann.id, unanimous_final=False)
    view = open_view(project, ann)
    qtbot.waitUntil(view.lock_unanimous.isVisible, timeout=10_000)
    # Items 0 and 4, and 5 (unanimously wrong; its split severity waits for the meeting).
    assert view.lock_unanimous.text() == "Lock all unanimous (3)"
    with qtbot.waitSignal(view.action_done, timeout=10_000):
        view.lock_unanimous.click()
    locked = read_with(project, latest_decisions, items=[items[0], items[4], items[5]])
    assert {i: d.verdict for i, d in locked.items()} == {items[0]: "wrong", items[4]: "correct", items[5]: "wrong"}
    qtbot.waitUntil(lambda: not view.lock_unanimous.isVisible(), timeout=10_000)


def test_agreement_tab_shows_ac1_and_each_panelist_against_the_decisions(qtbot, panel_project, open_view):
    """Decided: items 0 and 5 (unanimously wrong), 4 (unanimously correct) and 1, which the chair locks
    wrong (2:1); cy voted it correct, so cy's verdict is the decision's on 3 of 4, ann's and bob's on 4 of 4."""
    project, (ann, bob, cy), items = panel_project
    acts.lock(project, chair_id=ann.id, item=items[1])
    view = open_view(project, ann)
    view.tabs.setCurrentWidget(view.agreement)
    panel = view.agreement
    qtbot.waitUntil(lambda: panel.panelists.rowCount() == 3, timeout=30_000)
    names = [panel.panelists.verticalHeaderItem(r).text() for r in range(3)]
    verdicts = {name: panel.panelists.item(r, 0).text() for r, name in enumerate(names)}
    assert verdicts == {"ann": "100% (4/4)", "bob": "100% (4/4)", "cy": "75% (3/4)"}
    accuracy = {name: panel.panelists.item(r, 3).text() for r, name in enumerate(names)}
    assert all(text != "–" for text in accuracy.values())
    rows = [panel.stats.verticalHeaderItem(r).text() for r in range(panel.stats.rowCount())]
    ac1 = panel.stats.item(rows.index("Gwet AC1"), 0).text()
    assert ac1 != "–" and "[" in ac1  # a value and its bootstrap interval
    view.grab().save(f"{SCREENSHOTS}/meeting_reliability.png")
