"""A panelist the chair overrode while his window was closed is told as it opens (issue 35, 4):
the notice above the vote names the first override not shown yet, says how many more, goes to
each and steps to the next; once he has voted since, the next opening tells nothing."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.items import Item

pytestmark = pytest.mark.gui


def test_overrides_made_while_away_are_told_on_opening(qtbot, open_window, review_project):
    ann = acts.add_panelist(review_project, "ann", chair=True).value
    bob = acts.add_panelist(review_project, "bob").value
    items = [Item(i.image_id, i.predicted) for i in snapshot_of(review_project).items]
    for item in items[:3]:
        acts.vote(review_project, panelist_id=bob.id, item=item, verdict="correct")
    acts.override(review_project, chair_id=ann.id, item=items[2], verdict="wrong", reason="first overridden")
    acts.override(review_project, chair_id=ann.id, item=items[0], verdict="wrong", reason="then this one")
    window = open_window(panelist_name="bob")
    page, notice = window.page, window.page.override_notice
    qtbot.waitUntil(notice.isVisible, timeout=15_000)
    assert notice.waiting() == [items[2], items[0]]  # oldest first
    file_name = window.bridge.state.queue.entry(items[2]).file_name
    qtbot.waitUntil(lambda: file_name in notice.line.plain_text(), timeout=5_000)  # named once the queue is read
    assert notice.line.plain_text().startswith(f"The chair (ann) overrode your vote on {file_name}")
    assert "first overridden" in notice.line.plain_text()
    assert notice.count.text() == "1 more override of your votes after this one"
    assert notice.dismiss_button.text() == "Next"
    assert "overrode 2 of your votes since you last voted" in window.status_text.text()
    notice.dismiss_button.click()  # the next one
    assert notice.waiting() == [items[0]] and "then this one" in notice.line.plain_text()
    assert notice.dismiss_button.text() == "Dismiss"
    if window.bridge.state.current_item() != tuple(items[0]):
        with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
            qtbot.mouseClick(notice.open_button, Qt.MouseButton.LeftButton)
    else:
        qtbot.mouseClick(notice.open_button, Qt.MouseButton.LeftButton)
    assert window.bridge.state.current_item() == tuple(items[0]) and not notice.isVisible()


def test_nothing_is_told_of_an_override_he_has_acted_since(qtbot, open_window, review_project):
    ann = acts.add_panelist(review_project, "ann", chair=True).value
    bob = acts.add_panelist(review_project, "bob").value
    items = [Item(i.image_id, i.predicted) for i in snapshot_of(review_project).items]
    acts.vote(review_project, panelist_id=bob.id, item=items[0], verdict="correct")
    acts.override(review_project, chair_id=ann.id, item=items[0], verdict="wrong", reason="seen already")
    acts.vote(review_project, panelist_id=bob.id, item=items[1], verdict="wrong")  # he has acted since
    window = open_window(panelist_name="bob")
    notice = window.page.override_notice
    # Waited on: the notice's read on opening, done (it found nothing to tell).
    qtbot.waitUntil(lambda: notice.opening_read, timeout=15_000)
    assert not notice.isVisible() and notice.waiting() == []
