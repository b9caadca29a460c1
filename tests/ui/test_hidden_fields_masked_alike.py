"""Another's vote under the blind rule: every field the viewer may not see yet reads "hidden
until you vote", whether the other voted it or not (issue 36, H3), as `reviewer show --json`
says it. The vote panel said "verdict hidden until you give yours" of a panelist who voted a
verdict and "no verdict yet" of one who had not: the blank told who voted."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.app.keymap import default_keymap
from reviewer.items import Item
from reviewer.ui.review.qt_vote_panel import QtVotePanel

pytestmark = pytest.mark.gui


def test_a_hidden_field_reads_alike_whether_voted_or_not(qtbot, review_project):
    ann = acts.add_panelist(review_project, "ann", chair=True).value
    bob = acts.add_panelist(review_project, "bob").value
    cat = acts.add_panelist(review_project, "cat").value
    first = snapshot_of(review_project).items[0]
    item = Item(first.image_id, first.predicted)
    acts.vote(review_project, panelist_id=cat.id, item=item, verdict="wrong", severity="major")
    acts.vote(review_project, panelist_id=ann.id, item=item, note="later")  # a vote of no verdict
    acts.vote(review_project, panelist_id=bob.id, item=item, problematic=True)  # bob flags, votes no verdict
    seen = acts.others(review_project, viewer_id=bob.id, item=item, blind=True)
    assert seen is not None  # bob has voted a field: the others' votes show, masked
    panel = QtVotePanel(default_keymap())
    qtbot.addWidget(panel)
    panel.resize(420, 600)
    panel.show()
    panel.show_others(seen, acts.names(review_project), blind=True)
    document = QTextDocument()
    document.setHtml(panel.others.text())
    lines = dict(line.split(": ", 1) for line in document.toPlainText().splitlines())
    assert lines["ann"] == lines["cat"], lines  # the one who voted wrong reads as the one who did not
    assert "hidden until you vote" in lines["cat"]
    assert "verdict" in lines["cat"] and "severity" in lines["cat"] and "category" in lines["cat"]
    assert "no verdict yet" not in document.toPlainText()
