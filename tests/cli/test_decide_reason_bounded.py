"""`reviewer decide --override` echoes the decision it recorded; its reason, which the database
holds up to 131,072 characters, is printed bounded as `reviewer show` prints it (issue 36, H2)."""

from __future__ import annotations

from reviewer.app import panel as acts
from reviewer.cli import main
from reviewer.panel.discussion import SHOWN_MAX_CHARS
from reviewer.project import Project


def test_an_overrides_long_reason_is_echoed_bounded(tmp_path, add_mistakes, capsys):
    project = Project.create(tmp_path / "p")
    item = add_mistakes(project, [(1, True)])[0]
    for name in ("ann", "bob"):
        acts.add_panelist(project, name, chair=name == "ann")
    for name, verdict in (("ann", "wrong"), ("bob", "correct")):
        acts.vote(project, panelist_id=acts.ByName(name), item=item, verdict=verdict, problematic=False)
    project.close()
    reason = "the beak " * 5_000  # 45,000 characters
    assert main(["decide", str(tmp_path / "p"), "--chair", "ann", "--override", "--image", str(item.image_id),
                 "--predicted", str(item.predicted), "--verdict", "correct", "--reason", reason]) == 0
    out = capsys.readouterr().out
    assert len(out) < SHOWN_MAX_CHARS + 300
    assert f"[cut: {len(reason.strip()) - SHOWN_MAX_CHARS:,} more characters]" in out
