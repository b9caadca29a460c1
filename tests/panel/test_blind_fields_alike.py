"""`reviewer show` under the blind rule (issue 36, H3 and H2): every field the viewer may not
see yet reads as hidden, whether the other panelist's value is a blank or not (a hidden severity
beside a blank one told who voted wrong), and a note is never printed unbounded."""

from __future__ import annotations

import json

from reviewer.app import panel as acts
from reviewer.cli import main


def test_hidden_fields_are_masked_alike_null_or_not(panel, capsys):
    project, (ann, bob, cy), items = panel
    a = items[0]
    acts.vote(project, panelist_id=ann, item=a, verdict="wrong", severity="major", category="fine_grained")
    acts.vote(project, panelist_id=cy, item=a, verdict="correct")  # no severity, no category: blanks
    acts.set_panel_rules(project, chair_id=ann, blind=True)
    acts.vote(project, panelist_id=bob, item=a, verdict="wrong")  # bob sees verdicts, not the ratings
    image = f"ILSVRC2012_val_{a.image_id:08d}.JPEG"
    assert main(["show", str(project.root), "--image", image, "--predicted", str(a.predicted), "--json",
                 "--panelist", "bob"]) == 0
    seen = {v["panelist"]: v for v in json.loads(capsys.readouterr().out)["panel"]["votes"]}
    assert seen["ann"]["verdict"] == "wrong" and seen["cy"]["verdict"] == "correct"
    for who in ("ann", "cy"):
        assert [seen[who][f] for f in ("severity", "category", "oov_name")] == ["hidden until you vote"] * 3, who


def test_show_cuts_a_huge_note_and_says_so(panel, capsys):
    project, (ann, bob, cy), items = panel
    a = items[0]
    acts.vote(project, panelist_id=ann, item=a, verdict="wrong", note="n" * 100_000)
    acts.vote(project, panelist_id=bob, item=a, verdict="wrong")  # a panel starts blind: bob reads ann's once voted
    image = f"ILSVRC2012_val_{a.image_id:08d}.JPEG"
    assert main(["show", str(project.root), "--image", image, "--predicted", str(a.predicted),
                 "--panelist", "bob"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("    vote of ann"))
    assert len(line) < 2_200 and line.endswith("… [cut: 98,000 more characters]")
