"""One chair check, one error (issue 35): every chair-only act (a lock, locking all, an
override, a reopening, the rules, the scope) refuses anyone else with NotTheChair, saying
who the chair is; the command line run under a name not on the panel (by default the login
name) is told to pass the chair's name, not to add a panelist."""

from __future__ import annotations

import pytest

from reviewer.app import panel as acts
from reviewer.app.scope import set_panel_scope
from reviewer.cli import main
from reviewer.panel.chair import NotTheChair

CHAIR_ACTS = {
    "lock": lambda p, who, item: acts.lock(p, chair_id=who, item=item),
    "lock all": lambda p, who, item: acts.lock_all(p, chair_id=who),  # nothing to lock: still refused
    "override": lambda p, who, item: acts.override(p, chair_id=who, item=item, verdict="correct", reason="x"),
    "reopen": lambda p, who, item: acts.reopen_item(p, panelist_id=who, item=item, reason="x"),
    "rules": lambda p, who, item: acts.set_panel_rules(p, chair_id=who, blind=False),
    "scope": lambda p, who, item: set_panel_scope(p, chair_id=who, every_run=True),
}


@pytest.mark.parametrize("act", list(CHAIR_ACTS))
def test_every_chair_only_act_refuses_a_panelist_with_one_error(panel, act):
    project, (ann, bob, cy), items = panel
    with pytest.raises(NotTheChair, match=r"^bob is not the chair: only the chair .* \(the panel's chair is ann\)$"):
        CHAIR_ACTS[act](project, bob, items[6])
    # by name, as the command line names who acts: told which name to pass
    with pytest.raises(NotTheChair, match=r"^bob is not the chair: only the chair .*; pass --(chair|panelist) ann"):
        CHAIR_ACTS[act](project, acts.ByName("bob"), items[6])


def test_panel_rules_as_the_readme_writes_it_says_to_pass_the_chairs_name(panel, capsys, monkeypatch):
    project, _, _ = panel
    monkeypatch.setattr("getpass.getuser", lambda: "root")  # the login name, not on the panel
    assert main(["panel-rules", str(project.root), "--blind", "on"]) == 2
    err = capsys.readouterr().err
    assert err == ("error: only the chair sets the panel's rules, and your login name 'root' is not on this panel "
                   "(panelists: ann, bob, cy); pass --chair ann (the panel's chair)\n")
    assert main(["panel-rules", str(project.root), "--blind", "on", "--chair", "bob"]) == 2
    assert capsys.readouterr().err == ("error: bob is not the chair: only the chair sets the panel's rules; "
                                       "pass --chair ann (the panel's chair)\n")
    assert main(["panel-rules", str(project.root), "--blind", "off", "--chair", "ann"]) == 0


def test_a_panel_without_a_chair_is_told_how_to_name_one(project, capsys):
    acts.add_panelist(project, "bob")
    assert main(["decide", str(project.root), "--chair", "bob"]) == 2
    assert ("bob is not the chair: only the chair locks or overrides decisions; this panel has no chair yet: "
            "name one with 'reviewer panelist PROJECT NAME --chair'") in capsys.readouterr().err
