"""The panel's rules and who is on it (issue 23), in the domain, without a window:
a new name asks before joining and a closed panel refuses it; the chair's blind rule
hides others' votes from every panelist (whatever their own setting) until they vote
or the item is decided, in the review page's read and in `reviewer show`."""

from __future__ import annotations

import json

import pytest

from reviewer.app import panel as acts
from reviewer.cli import main
from reviewer.panel.chair import NotTheChair
from reviewer.panel.membership import NotOnPanel


def test_a_new_name_asks_before_joining_and_a_closed_panel_refuses_it(panel):
    project, (ann, bob, cy), _ = panel
    assert acts.join_panel(project, "bob").value.id == bob
    with pytest.raises(NotOnPanel, match=r"carol is not on this panel \(panelists: ann, bob, cy\): join") as asked:
        acts.join_panel(project, "carol")
    assert asked.value.can_join
    with pytest.raises(NotOnPanel, match="did you mean bob") as typo:
        acts.join_panel(project, "Bob")
    assert typo.value.can_join
    assert [p for p in acts.names(project).values()] == ["ann", "bob", "cy"]  # asking added nobody
    for who in (ann, bob, cy):  # a unanimous item: a new panelist would undecide it, and is told so
        acts.vote(project, panelist_id=who, item=panel[2][0], verdict="correct")
    with pytest.raises(NotOnPanel, match="the 1 item the panel decided unanimously becomes undecided until you "
                                         "vote it"):
        acts.join_panel(project, "carol")
    carol = acts.join_panel(project, "carol", join=True).value
    assert carol.name == "carol" and not carol.is_chair
    with pytest.raises(NotTheChair, match="bob is not the chair"):
        acts.set_panel_rules(project, chair_id=bob, panel_closed=True)
    acts.set_panel_rules(project, chair_id=ann, panel_closed=True)
    with pytest.raises(NotOnPanel, match="the chair has closed it: the chair adds a panelist with "
                                         "'reviewer panelist PROJECT dee'") as closed:
        acts.join_panel(project, "dee", join=True)
    assert not closed.value.can_join
    assert "dee" not in acts.names(project).values()


def test_the_first_name_founds_an_empty_panel(project):
    assert acts.join_panel(project, "ann").value.name == "ann"
    with pytest.raises(NotOnPanel):
        acts.join_panel(project, "bob")


def test_the_chairs_blind_rule_holds_for_every_panelist_until_they_vote_or_it_is_decided(panel):
    project, (ann, bob, cy), items = panel
    a, b = items[0], items[1]
    acts.vote(project, panelist_id=ann, item=a, verdict="wrong", note="looks like a bagel")
    # A new panel is blind: bob's own setting cannot show ann's vote before he votes.
    assert acts.others(project, viewer_id=bob, item=a, blind=False) is None
    # Without the rule (the chair turned it off), a panelist who turned blind review off sees it.
    acts.set_panel_rules(project, chair_id=ann, blind=False)
    others = acts.others(project, viewer_id=bob, item=a, blind=False)
    assert [o.verdict for o in others] == ["wrong"]
    acts.set_panel_rules(project, chair_id=ann, blind=True)
    assert acts.others(project, viewer_id=bob, item=a, blind=False) is None  # hidden until bob votes
    acts.vote(project, panelist_id=bob, item=a, verdict="correct")
    assert [o.verdict for o in acts.others(project, viewer_id=bob, item=a, blind=False)] == ["wrong"]
    # A decided item shows every vote, to those who did not vote too.
    for who in (ann, bob, cy):
        acts.vote(project, panelist_id=who, item=b, verdict="unclear")
    dee = acts.join_panel(project, "dee", join=True).value.id
    assert acts.others(project, viewer_id=dee, item=a, blind=False) is None
    acts.override(project, chair_id=ann, item=a, verdict="unclear", reason="both readings hold")
    assert sorted(o.verdict for o in acts.others(project, viewer_id=dee, item=a, blind=False)) == [
        "correct", "wrong"]


def test_show_masks_others_votes_under_the_blind_rule(panel, capsys):
    project, (ann, bob, cy), items = panel
    a = items[0]
    acts.vote(project, panelist_id=ann, item=a, verdict="wrong", severity="major", category="fine_grained",
              note="a bagel")
    acts.set_panel_rules(project, chair_id=ann, blind=True)
    image = f"ILSVRC2012_val_{a.image_id:08d}.JPEG"
    args = ["show", str(project.root), "--image", image, "--predicted", str(a.predicted)]
    assert main(args + ["--json", "--panelist", "bob"]) == 0
    votes = json.loads(capsys.readouterr().out)["panel"]["votes"]
    assert votes == [{**votes[0], "panelist": "ann", "verdict": "hidden until you vote",
                      "severity": "hidden until you vote", "category": "hidden until you vote",
                      "note": "hidden until you vote"}]
    acts.vote(project, panelist_id=ann, item=a, problematic=True)
    assert main(args + ["--panelist", "bob"]) == 0
    text = capsys.readouterr().out
    assert "    vote of ann: hidden until you vote\n" in text and "problematic" not in text  # not even the flag
    acts.vote(project, panelist_id=bob, item=a, verdict="wrong")  # bob's verdict shows him ann's, not her severity
    assert main(args + ["--json", "--panelist", "bob"]) == 0
    seen = {v["panelist"]: v for v in json.loads(capsys.readouterr().out)["panel"]["votes"]}
    assert seen["ann"]["verdict"] == "wrong" and seen["ann"]["severity"] == "hidden until you vote"
    assert main(args + ["--json", "--panelist", "ann"]) == 0  # one's own vote is never hidden
    assert json.loads(capsys.readouterr().out)["panel"]["votes"][0]["severity"] == "major"
