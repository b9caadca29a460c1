"""State at a glance in the window (issue 23): the queue's rows mark the panel's standing
(the decided value in its verdict's colour, a dispute, my phase-2 rating, problematic,
notes) with a tooltip each, its filters find them, and its header's counts add up and
follow a vote made elsewhere. The real window, offscreen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor, QFontMetrics, QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from reviewer.app import panel as acts
from reviewer.terms import Verdict
from reviewer.ui.review.qt_queue_panel import _lines, _mark_rects, row_marks
from reviewer.ui.theme import KIND_COLOURS

pytestmark = pytest.mark.gui


@pytest.fixture
def panel(review_project):
    """ann (the chair) and bob voted: 0 both correct · 1 correct/unclear, locked (a tie: unclear)
    · 2 correct/wrong (disputed) · 3 both wrong and problematic (ann's rating to give) · 4 a note."""
    ann = acts.add_panelist(review_project, "ann", chair=True).value.id
    bob = acts.add_panelist(review_project, "bob").value.id
    items = [e.item for e in acts.review_queue(review_project, run_id=review_project.run_id,
                                               panelist_id=ann).shown()]
    for item, mine, his in [(items[0], "correct", "correct"), (items[1], "correct", "unclear"),
                            (items[2], "correct", "wrong"), (items[3], "wrong", "wrong")]:
        problematic = item == items[3]
        acts.vote(review_project, panelist_id=ann, item=item, verdict=mine, problematic=problematic)
        acts.vote(review_project, panelist_id=bob, item=item, verdict=his, problematic=problematic)
    acts.lock(review_project, chair_id=ann, item=items[1])
    acts.note(review_project, panelist_id=bob, item=items[4], text="the label looks right to me")
    review_project.items, review_project.bob = items, bob
    return review_project


def _marks(window, item):
    return [(m.text, m.colour) for m in row_marks(window.bridge.state.queue.entry(item))]


def _mark_rect(window, item, index):
    """The viewport rectangle of a row's mark, as the delegate lays it out."""
    panel = window.page.queue_panel
    row = window.bridge.state.queue.row_of(item)
    top, _ = _lines(panel.view.visualRect(panel.model.index(row)))
    marks = row_marks(window.bridge.state.queue.entry(item))
    return _mark_rects(top, QFontMetrics(panel.view.font()), marks)[index]


def _near(colour: QColor, wanted: QColor) -> bool:
    return abs(colour.red() - wanted.red()) + abs(colour.green() - wanted.green()) \
        + abs(colour.blue() - wanted.blue()) < 60


def test_rows_mark_the_panels_standing_and_the_header_adds_up(qtbot, open_window, panel, monkeypatch):
    monkeypatch.setattr("reviewer.ui.watcher.POLL_MS", 200)
    window = open_window()
    items, counts = panel.items, window.page.queue_panel.counts
    assert counts.text() == "8 mistakes: 3 decided · 1 disputed · 4 open; 4 voted by me"
    unclear, correct = KIND_COLOURS[Verdict.UNCLEAR], KIND_COLOURS[Verdict.CORRECT]
    # My green "correct" dot beside the panel's locked "unclear": the row says both.
    assert _marks(window, items[1]) == [("Unclear", unclear)]
    assert "tied" in row_marks(window.bridge.state.queue.entry(items[1]))[0].tip
    assert [text for text, _ in _marks(window, items[2])] == ["≠ disputed"]
    assert [text for text, _ in _marks(window, items[3])] == ["Wrong", "② rate", "⚑"]
    assert [text for text, _ in _marks(window, items[4])] == ["✎1"]
    # Painted: the decided value's badge in its verdict's colour.
    view = window.page.queue_panel.view
    box = _mark_rect(window, items[1], 0)
    image = view.viewport().grab().toImage()
    dpr = image.devicePixelRatio()
    assert any(_near(image.pixelColor(int(x * dpr), int((box.y() + box.height() // 2) * dpr)), QColor(unclear))
               for x in range(box.left(), box.right() + 1))
    # Each mark says what it means over it.
    note = _mark_rect(window, items[4], 0)
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, note.center(),
                                                       view.viewport().mapToGlobal(note.center())))
    qtbot.waitUntil(lambda: "1 discussion note " in QToolTip.text(), timeout=5_000)
    # The filters find each standing.
    panel_widget = window.page.queue_panel
    for status, wanted in [("disputed", [items[2]]), ("problematic", [items[3]]), ("noted", [items[4]]),
                           ("phase2", [items[3]])]:
        panel_widget.set_status(status)
        qtbot.waitUntil(lambda w=wanted: [e.item for e in window.bridge.state.queue.shown()] == w, timeout=5_000)
    assert counts.text() == "1 of 8 mistakes shown: 1 decided · 0 disputed · 0 open; " \
                            "1 voted by me"
    panel_widget.set_status("all")
    # bob agrees elsewhere (the CLI): the disputed row turns decided "correct" and the counts follow.
    acts.vote(panel, panelist_id=panel.bob, item=items[2], verdict="correct")
    qtbot.waitUntil(lambda: counts.text() == "8 mistakes: 4 decided · 0 disputed · 4 open; 4 voted by me",
                    timeout=10_000)
    assert _marks(window, items[2]) == [("Correct", correct)]
