"""`reviewer show` says how a decision was made as the export's manifest does (issue 35, 8): a
unanimous panel's decision read "(majority, locked by the chair): unanimous: all 3 panelists"
beside the manifest's `decided_how: unanimous`. One function (reviewer.panel.state.decided_how)
decides how, and `describe_decision` words it."""

from __future__ import annotations

import json

from reviewer.app import panel as acts
from reviewer.cli import main
from reviewer.panel.final import decided_how as final_decided_how
from reviewer.panel.state import DecidedHow, decided_how


def _show(project, item, capsys, *more):
    assert main(["show", str(project.root), "--image", f"ILSVRC2012_val_{item.image_id:08d}.JPEG",
                 "--predicted", str(item.predicted), "--panelist", "ann", *more]) == 0
    return capsys.readouterr().out


def test_show_says_unanimous_tie_and_override_as_the_manifest_does(panel, capsys):
    project, (ann, bob, cy), items = panel
    unanimous, tie, overridden = items[:3]
    for who in (ann, bob, cy):
        acts.vote(project, panelist_id=who, item=unanimous, verdict="correct")
    for who, verdict in ((ann, "wrong"), (bob, "correct"), (cy, "unclear")):
        acts.vote(project, panelist_id=who, item=tie, verdict=verdict)
        acts.vote(project, panelist_id=who, item=overridden, verdict=verdict)
    acts.lock(project, chair_id=ann, item=tie)
    acts.override(project, chair_id=ann, item=overridden, verdict="wrong", reason="a bagel, not a dough")
    assert "decision    correct (unanimous): all 3 panelists\n" in _show(project, unanimous, capsys)
    assert json.loads(_show(project, unanimous, capsys, "--json"))["panel"]["decision"] == (
        "correct (unanimous): all 3 panelists")
    assert "decision    unclear ('unclear' on a tie, locked by the chair): verdict: " in _show(project, tie, capsys)
    assert ("decision    wrong (chair's override): a bagel, not a dough\n"
            in _show(project, overridden, capsys))
    assert final_decided_how is decided_how and DecidedHow.UNANIMOUS == "unanimous"  # one home
