"""An overridden panelist is told when the chair overrides his vote, not when he happens to
reach the item (issue 35, 4): a notice above the vote says whose override, on which item,
what he said and what was decided, and goes there; on the item, nothing asks for what the
override settled (it asked "Phase 2: ... rate severity and category" beside a decision that
had rated it)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.items import Item

pytestmark = pytest.mark.gui


def plain(html: str) -> str:
    document = QTextDocument()
    document.setHtml(html)
    return document.toPlainText()


def test_the_override_is_told_at_once_and_the_item_asks_nothing_it_settled(qtbot, open_window, review_project):
    ann = acts.add_panelist(review_project, "ann", chair=True).value
    bob = acts.add_panelist(review_project, "bob").value
    acts.add_panelist(review_project, "cat")
    items = [Item(i.image_id, i.predicted) for i in snapshot_of(review_project).items]
    first = items[0]
    acts.vote(review_project, panelist_id=bob.id, item=first, verdict="correct")
    window = open_window(panelist_name="bob")
    page = window.page
    if window.bridge.state.current_item() == tuple(first):
        with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
            window.trigger("next")
    assert not page.override_notice.isVisible()
    # The chair overrides, elsewhere (another process: the window learns it from its poll).
    acts.override(review_project, chair_id=ann.id, item=first, verdict="wrong", severity="major",
                  category="fine_grained", reason="a finch, not a junco")
    notice = page.override_notice
    qtbot.waitUntil(notice.isVisible, timeout=15_000)
    text = notice.line.plain_text()
    file_name = window.bridge.state.queue.entry(first).file_name
    assert text.startswith(f"The chair (ann) overrode your vote on {file_name}")
    assert "you said Correct; decided Wrong · Major · Fine-grained: a finch, not a junco" in text
    assert window.bridge.state.current_item() != tuple(first)  # told, not moved
    with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
        qtbot.mouseClick(notice.open_button, Qt.MouseButton.LeftButton)
    assert window.bridge.state.current_item() == tuple(first) and not notice.isVisible()
    panel = page.vote_panel
    qtbot.waitUntil(lambda: "by the chair's override" in plain(panel.decision.text()), timeout=10_000)
    assert "Wrong · Major · Fine-grained".lower() in plain(panel.decision.text()).lower()
    assert not panel.asks_rating()
    assert "Phase 2" not in plain(panel.note.text())
    assert "phase 2" not in page.subheadline.plain_text()


def test_only_an_override_of_ones_own_vote_by_another_is_told(review_project):
    """The notice's read: the chair is not told of her own override; bob is told of an override
    that decided otherwise than he voted, not of one that agrees with him."""
    from reviewer.ui.review.qt_override_notice import read_overrides

    ann = acts.add_panelist(review_project, "ann", chair=True).value
    bob = acts.add_panelist(review_project, "bob").value
    items = [Item(i.image_id, i.predicted) for i in snapshot_of(review_project).items]
    acts.vote(review_project, panelist_id=bob.id, item=items[0], verdict="wrong")
    acts.vote(review_project, panelist_id=ann.id, item=items[1], verdict="correct")
    acts.vote(review_project, panelist_id=bob.id, item=items[2], verdict="correct")
    for item, reason in zip(items[:3], ("as bob says", "my own mind changed", "against bob")):
        acts.override(review_project, chair_id=ann.id, item=item, verdict="wrong", reason=reason)
    assert read_overrides(review_project, panelist_id=ann.id, name="ann", items=items) == []
    told = read_overrides(review_project, panelist_id=bob.id, name="bob", items=items)
    assert [(item, decision.reason) for item, decision, _vote in told] == [(items[2], "against bob")]


def test_a_decision_that_rated_the_item_leaves_no_rating_asked(qtbot):
    """The vote panel alone: an item standing wrong asks a panelist who voted 'correct' for
    severity and category, unless the decision settled them (then the decision says them)."""
    from reviewer.app.keymap import default_keymap
    from reviewer.panel.final import DecisionNote
    from reviewer.panel.state import DecidedHow
    from reviewer.panel.votes import VoteState
    from reviewer.ui.review.qt_vote_panel import QtVotePanel

    panel = QtVotePanel(default_keymap())
    qtbot.addWidget(panel)
    panel.show_vote(VoteState(verdict="correct"), status="recorded", judged_wrong=True)
    assert "Phase 2" in plain(panel.note.text())  # locked wrong, not rated: asked
    settled = DecisionNote(verdict="wrong", severity="major", category="fine_grained", problematic=False,
                           how=DecidedHow.OVERRIDE, by="ann", reason="a finch")
    panel.show_vote(VoteState(verdict="correct"), status="recorded", judged_wrong=True, decision=settled)
    assert "Phase 2" not in plain(panel.note.text())
