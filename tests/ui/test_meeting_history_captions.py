"""The meeting's History and Discussion tabs in the panel's words (issue 23's walk):
the vocabularies' captions, not stored values ("fine_grained", "- -> wrong"), and each
note with its time."""

from __future__ import annotations

import re

import pytest
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.items import Item

pytestmark = pytest.mark.gui


def test_history_shows_captions_and_notes_their_time(qtbot, review_project, monkeypatch):
    from reviewer.ui.app import create_app
    from reviewer.ui.meeting.qt_meeting_view import QtMeetingView

    project = review_project
    first = snapshot_of(project).items[0]
    item = Item(first.image_id, first.predicted)
    ann = acts.add_panelist(project, "ann", chair=True).value
    bob = acts.add_panelist(project, "bob").value
    acts.vote(project, panelist_id=ann.id, item=item, verdict="wrong", severity="major", category="fine_grained")
    acts.vote(project, panelist_id=bob.id, item=item, verdict="wrong", severity="minor",
              category="spurious_correlation")
    acts.vote(project, panelist_id=bob.id, item=item, severity="major")
    acts.note(project, panelist_id=bob.id, item=item, text="the background decides it")
    create_app()
    monkeypatch.setattr(QtMeetingView, "resamples", 50)
    view = QtMeetingView(project, ann)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    with qtbot.waitSignal(view.item_shown, timeout=20_000):
        view.show()
    assert view.selected_item() == item
    history = view.votes.history.toPlainText()
    assert "ann vote: verdict: Wrong, severity: Major, category: Fine-grained" in history
    assert "bob vote: severity: Minor → Major" in history
    assert "category: Spurious correlation" in history
    assert "fine_grained" not in history and "->" not in history and " - " not in history
    notes = view.votes.notes.toPlainText()
    assert re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} bob: the background decides it", notes), notes
