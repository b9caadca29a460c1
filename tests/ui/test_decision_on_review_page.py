"""An overridden panelist is told the decision, the chair and the reason on the review
page, and their superseded vote is marked as such (issue 23: they were asked to rate with
their old "Correct" button lit and no word of the override)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.items import Item

pytestmark = pytest.mark.gui


def test_the_overridden_panelist_sees_the_decision_who_and_why(qtbot, open_window, review_project):
    ann = acts.add_panelist(review_project, "ann", chair=True).value
    bob = acts.add_panelist(review_project, "bob").value
    first = snapshot_of(review_project).items[0]
    item = Item(first.image_id, first.predicted)
    acts.vote(review_project, panelist_id=bob.id, item=item, verdict="correct")
    acts.vote(review_project, panelist_id=ann.id, item=item, verdict="wrong")
    acts.override(review_project, chair_id=ann.id, item=item, verdict="unclear", reason="both readings <hold>")
    window = open_window(panelist_name="bob")
    page = window.page
    for _ in range(len(snapshot_of(review_project).items)):
        if window.bridge.state.current_item() == tuple(item):
            break
        with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
            window.trigger("previous")
    qtbot.waitUntil(lambda: "Panel's decision" in page.vote_panel.decision.text(), timeout=10_000)
    doc = QTextDocument()
    doc.setHtml(page.vote_panel.decision.text())
    text = doc.toPlainText()
    assert "Panel's decision: unclear by the chair's override (ann): both readings <hold>" in text
    assert "Your vote (correct) is superseded by it" in text
    assert "superseded" in page.vote_panel.status.text()


def test_a_decision_is_the_shown_mistakes_never_the_previous_ones(qtbot, open_window, review_project):
    """The X11 walk: moving from an item whose decision superseded bob's vote to one decided as bob
    voted still said 'superseded'; and a vote that made the panel unanimous showed no decision."""
    ann = acts.add_panelist(review_project, "ann", chair=True).value
    bob = acts.add_panelist(review_project, "bob").value
    items = [Item(i.image_id, i.predicted) for i in snapshot_of(review_project).items]
    first, second, third = items[0], items[1], items[2]
    acts.vote(review_project, panelist_id=bob.id, item=first, verdict="correct")
    acts.override(review_project, chair_id=ann.id, item=first, verdict="wrong", reason="a finch")
    for who in (ann, bob):
        acts.vote(review_project, panelist_id=who.id, item=second, verdict="correct")
    acts.vote(review_project, panelist_id=ann.id, item=third, verdict="unclear")
    window = open_window(panelist_name="bob")
    window.prefs.auto_advance = window.page.auto_advance = "off"  # stay on the mistake voted
    page = window.page

    def show(item):
        while window.bridge.state.current_item() != tuple(item):
            key = "previous" if items.index(Item(*window.bridge.state.current_item())) > items.index(item) else "next"
            with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
                window.trigger(key)

    show(first)
    qtbot.waitUntil(lambda: "superseded" in page.vote_panel.status.text(), timeout=10_000)
    show(second)
    qtbot.waitUntil(lambda: "whole panel, unanimously" in page.vote_panel.decision.text(), timeout=10_000)
    assert "superseded" not in page.vote_panel.status.text()
    show(third)
    qtbot.waitUntil(lambda: not page.vote_panel.decision.isVisible(), timeout=10_000)
    window.trigger("verdict_unclear")  # bob's vote makes the panel unanimous: decided, and said so at once
    qtbot.waitUntil(lambda: "whole panel, unanimously" in page.vote_panel.decision.text(), timeout=10_000)
