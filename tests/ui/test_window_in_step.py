"""The window agrees with the database: a panelist's own vote after reopening, a vote
changed elsewhere, a chair's lock in the top-5 statuses, phase 2 after a lock, and
the progress strip. Each drives the real window (offscreen) as a panelist would."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.app import panel as acts

pytestmark = pytest.mark.gui


def press(qtbot, window, key):
    from PySide6.QtWidgets import QApplication

    qtbot.keyClick(QApplication.focusWidget() or window, key)


def checked(window) -> set[str]:
    return {name for name, button in window.page.vote_panel.buttons.items() if button.isChecked()}


def status_text(window) -> str:
    return window.page.vote_panel.status.text()


def panelists(project, *names) -> dict[str, int]:
    """The panelists, the first of them the chair."""
    return {name: acts.add_panelist(project, name, chair=i == 0 or None).value.id for i, name in enumerate(names)}


def test_reopening_shows_my_own_vote_on_the_first_mistake(qtbot, open_window, review_project):
    """Everything voted before: the window opens at mistake 1, lit as voted (no second vote)."""
    ann = panelists(review_project, "ann")["ann"]
    queue = acts.review_queue(review_project, run_id=review_project.run_id, panelist_id=ann)
    for entry in queue.shown():
        acts.vote(review_project, panelist_id=ann, item=entry.item, verdict="correct", problematic=False)
    window = open_window()
    assert window.bridge.state.row == 0
    qtbot.waitUntil(lambda: "verdict_correct" in checked(window), timeout=10_000)
    assert "recorded" in status_text(window) and "not voted" not in status_text(window)


def test_reopening_resumes_at_the_first_mistake_still_to_do(qtbot, open_window, review_project):
    ann = panelists(review_project, "ann")["ann"]
    queue = acts.review_queue(review_project, run_id=review_project.run_id, panelist_id=ann)
    for entry in queue.shown()[:3]:
        acts.vote(review_project, panelist_id=ann, item=entry.item, verdict="wrong", problematic=False,
                  severity="minor", category="fine_grained")
    window = open_window()
    assert window.bridge.state.row == 3
    assert window.bridge.state.current_item() == queue.shown()[3].item


def test_my_vote_changed_elsewhere_shows_within_the_poll(qtbot, open_window, review_project, monkeypatch):
    """Changed by another process (the CLI): the buttons, the status and the queue dot follow."""
    monkeypatch.setattr("reviewer.ui.watcher.POLL_MS", 200)
    window = open_window()
    key = window.bridge.state.current_item()
    press(qtbot, window, Qt.Key.Key_1)  # correct; the window moves on
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    acts.vote(review_project, panelist_id=window.panelist.id, item=key, verdict="unclear")  # "elsewhere"
    qtbot.waitUntil(lambda: window.bridge.state.queue.entry(key).my_verdict == "unclear", timeout=5_000)
    press(qtbot, window, Qt.Key.Key_K)  # back to it
    assert window.bridge.state.current_item() == key
    qtbot.waitUntil(lambda: "verdict_unclear" in checked(window), timeout=5_000)
    assert "verdict_correct" not in checked(window)


def test_a_lock_shows_in_the_top5_statuses_and_opens_phase_2(qtbot, open_window, review_project, monkeypatch):
    """bob voted unclear; the chair locks "wrong" (ann and cy voted wrong): bob's window marks
    the prediction wrong by the panel, enables rating, badges the row and filters it as phase 2."""
    monkeypatch.setattr("reviewer.ui.watcher.POLL_MS", 200)
    who = panelists(review_project, "ann", "bob", "cy")
    window = open_window(panelist_name="bob")
    key = window.bridge.state.current_item()
    press(qtbot, window, Qt.Key.Key_3)  # unclear
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    press(qtbot, window, Qt.Key.Key_K)
    assert window.bridge.state.current_item() == key
    ratings = [b for name, b in window.page.vote_panel.buttons.items() if name.startswith(("severity", "category"))]
    assert not any(b.isEnabled() for b in ratings)  # unclear: nothing to rate
    for name in ("ann", "cy"):
        acts.vote(review_project, panelist_id=who[name], item=key, verdict="wrong", problematic=False)
    acts.lock(review_project, chair_id=who["ann"], item=key)

    qtbot.waitUntil(lambda: all(b.isEnabled() for b in ratings), timeout=5_000)
    assert "verdict_unclear" in checked(window)  # my verdict is not changed by the lock
    assert "Phase 2" in window.page.vote_panel.note.text()

    def top1_reads_wrong_by_the_panel() -> bool:
        row = next(r for r in window.page.details.topk._rows if r.cls.index == key.predicted)
        return row.decided and row.label_kind == "wrong"

    qtbot.waitUntil(top1_reads_wrong_by_the_panel, timeout=5_000)
    assert 2 in window.bridge.state.queue.entry(key).to_do
    strip = window.page.queue_panel.progress.text_lines()
    assert strip[1] == "Phase 2: me 0/1 · panel 0/1"

    press(qtbot, window, Qt.Key.Key_M)  # rating needs no change of verdict
    press(qtbot, window, Qt.Key.Key_F)
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)
    state = acts.my_vote(review_project, panelist_id=who["bob"], item=key)
    assert (state.verdict, state.severity, state.category) == ("unclear", "major", "fine_grained")
    qtbot.waitUntil(lambda: 2 not in window.bridge.state.queue.entry(key).to_do, timeout=5_000)
    qtbot.waitUntil(lambda: window.page.queue_panel.progress.text_lines()[1].startswith(
        "Phase 2: me 1/1"), timeout=5_000)


def test_the_phase_2_filter_lists_what_waits_for_my_rating(qtbot, open_window, review_project):
    who = panelists(review_project, "ann", "bob")
    queue = acts.review_queue(review_project, run_id=review_project.run_id, panelist_id=who["bob"])
    first, second = (e.item for e in queue.shown()[:2])
    for item in (first, second):
        for name in who:
            acts.vote(review_project, panelist_id=who[name], item=item, verdict="wrong", problematic=False)
    acts.lock(review_project, chair_id=who["ann"], item=first)
    window = open_window(panelist_name="bob")
    panel = window.page.queue_panel
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        panel.status.setCurrentIndex(panel.status.findData("phase2"))
    # Unanimously wrong (second) or locked wrong (first): both stand wrong, both wait for bob's rating.
    assert [e.item for e in window.bridge.state.queue.shown()] == [first, second]


def test_the_meeting_follows_a_lock_made_elsewhere(qtbot, open_window, review_project, monkeypatch):
    """ann and bob split on an item; the chair's lock (made in another process: a tie is
    unclear) shows in the meeting's top-5 without touching it."""
    monkeypatch.setattr("reviewer.ui.watcher.POLL_MS", 200)
    who = panelists(review_project, "ann", "bob")
    item = acts.review_queue(review_project, run_id=review_project.run_id, panelist_id=who["ann"]).shown()[0].item
    for name, verdict in (("ann", "correct"), ("bob", "wrong")):
        acts.vote(review_project, panelist_id=who[name], item=item, verdict=verdict, problematic=False)
    window = open_window()
    qtbot.keyClick(window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    view = window._meeting_view
    qtbot.waitUntil(lambda: view.selected_item() == item, timeout=10_000)
    qtbot.waitUntil(lambda: len(view.facts.topk._rows) == 5, timeout=10_000)
    assert not any(r.decided for r in view.facts.topk._rows)
    acts.lock(review_project, chair_id=who["ann"], item=item)
    qtbot.waitUntil(lambda: any(r.decided and r.label_kind == "unclear" for r in view.facts.topk._rows
                                if r.cls.index == item.predicted), timeout=5_000)
