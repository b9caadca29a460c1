"""A new panel starts blind (issue 35, 7): `reviewer panel-rules P` on a new project says
blind review is on; a project with no rule stored (one made before the default changed)
is blind as well, as the README promises; the chair may turn it off."""

from __future__ import annotations

from db.tables import ProjectSetting
from reviewer.app import panel as acts
from reviewer.cli import main
from reviewer.panel.rules import read_rules
from reviewer.project import Project


def test_panel_rules_on_a_new_project_says_blind_is_on(tmp_path, capsys):
    Project.create(tmp_path / "p").close()
    assert main(["panel-rules", str(tmp_path / "p")]) == 0
    assert capsys.readouterr().out.startswith("blind review: on, for every panelist")


def test_no_rule_stored_is_blind_and_the_chair_may_turn_it_off(panel, capsys):
    project, (ann, bob, cy), items = panel
    with project.read() as session:
        assert session.get(ProjectSetting, "blind") is None  # nothing stored, as in an older project
        assert read_rules(session).blind
    acts.vote(project, panelist_id=ann, item=items[0], verdict="wrong")
    # bob's own preference cannot show what the panel's rule hides
    assert acts.others(project, viewer_id=bob, item=items[0], blind=False) is None
    assert main(["panel-rules", str(project.root), "--chair", "ann", "--blind", "off"]) == 0
    assert capsys.readouterr().out.startswith("blind review: each panelist's own choice")
    assert [v.verdict for v in acts.others(project, viewer_id=bob, item=items[0], blind=False)] == ["wrong"]
    assert acts.others(project, viewer_id=bob, item=items[0], blind=True) is None  # his own choice still hides
