"""Discussion notes as a panelist may read them (reviewer.panel.discussion.visible_notes):
blind review holds another's note back as it holds back their vote (issue 23)."""

from __future__ import annotations

from project_data import new_project

from reviewer.app import panel as acts
from reviewer.panel.discussion import visible_notes


def test_without_blind_review_the_notes_show_before_a_vote(tmp_path, add_mistakes):
    project = new_project(tmp_path / "p")
    (item,) = add_mistakes(project, [(10, True)])
    ann = acts.add_panelist(project, "ann", chair=True).value.id
    bob = acts.add_panelist(project, "bob").value.id
    acts.note(project, panelist_id=bob, item=item, text="see the tail")
    acts.set_panel_rules(project, chair_id=ann, blind=False)  # a new panel is blind: the chair turns it off
    with project.read() as session:
        open_view = visible_notes(session=session, viewer_id=ann, item=item, blind=False)
    assert [(n.who, n.text, n.mine) for n in open_view.notes] == [("bob", "see the tail", False)]
    assert open_view.hidden == 0
    acts.set_panel_rules(project, chair_id=ann, blind=True)  # the chair's rule hides them all the same
    with project.read() as session:
        ruled = visible_notes(session=session, viewer_id=ann, item=item, blind=False)
    assert ruled.notes == () and ruled.hidden == 1
    project.close()
