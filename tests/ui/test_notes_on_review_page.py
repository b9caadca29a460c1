"""The panel's notes on the mistake on screen (issue 23): a discussion note on an item that
is not disputed (so not in the meeting's list) is read beside the review page's facts,
blind as the votes are, and follows a note written elsewhere."""

from __future__ import annotations

from project_data import new_project

from reviewer.app import panel as acts
from reviewer.ui.review.qt_notes import QtNotesPanel


def test_notes_show_beside_the_facts_blind_until_you_vote(qtbot, tmp_path, add_mistakes):
    from reviewer.ui.app import create_app
    from reviewer.ui.watcher import ProjectWatcher

    create_app()
    project = new_project(tmp_path / "p")
    item, other = add_mistakes(project, [(10, True), (11, True)])
    ann = acts.add_panelist(project, "ann", chair=True).value.id
    bob = acts.add_panelist(project, "bob").value.id
    acts.note(project, panelist_id=bob, item=item, text="The bird on the left <is> a junco, not a finch.")

    watcher = ProjectWatcher(project, poll_ms=60_000)  # only what this test publishes
    panel = QtNotesPanel()
    qtbot.addWidget(panel)
    panel.set_source(project, ann, blind=True, watcher=watcher)
    with qtbot.waitSignal(panel.notes_shown, timeout=10_000):
        panel.show_item(item)
    # Blind: ann has not voted, so bob's note waits as his vote does; its count says so.
    assert not panel.isHidden() and "junco" not in panel.text()
    assert "1 note by other panelists hidden until you vote (blind review)" in panel.text()

    acts.vote(project, panelist_id=ann, item=item, verdict="correct", problematic=False)
    with qtbot.waitSignal(panel.notes_shown, timeout=10_000):
        panel.show_item(item)
    assert "<b>bob</b>" in panel.text() and "The bird on the left &lt;is&gt; a junco, not a finch." in panel.text()
    assert "hidden until you vote" not in panel.text()

    # A note written elsewhere arrives with its change record; the item stays on screen.
    done = acts.note(project, panelist_id=ann, item=item, text="Agreed: the crop shows its white belly.")
    with qtbot.waitSignal(panel.notes_shown, timeout=10_000):
        watcher.publish(done.changes)
    assert "<b>ann (you)</b>" in panel.text() and "white belly" in panel.text()

    # An item without notes: the section takes no room.
    with qtbot.waitSignal(panel.notes_shown, timeout=10_000):
        panel.show_item(other)
    assert panel.isHidden() and panel.text() == ""
    panel.shutdown()
    watcher.stop()
    project.close()

