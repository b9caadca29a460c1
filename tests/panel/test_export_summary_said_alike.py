"""File > Export and `reviewer export` say the same (issue 35, 9): one app function
(reviewer.app.export.export_summary) builds the summary; its headline names the panel's
decisions and what was left out ("10 decisions … 2 left out"), which the window's status bar
did not."""

from __future__ import annotations

from reviewer.app import panel as acts
from reviewer.app.export import export_project, export_summary
from reviewer.cli import main


def test_the_command_line_prints_the_summary_the_window_shows(panel, tmp_path, capsys):
    project, (ann, bob, cy), items = panel
    for who in (ann, bob, cy):
        acts.vote(project, panelist_id=who, item=items[0], verdict="correct")
        acts.vote(project, panelist_id=who, item=items[1], verdict="wrong" if who == ann else "correct")
    acts.lock(project, chair_id=ann, item=items[1])
    for who in (ann, bob):  # cy has not voted: no decision, left out
        acts.vote(project, panelist_id=who, item=items[2], verdict="correct")
    assert main(["export", str(project.root), str(tmp_path / "cli")]) == 0
    printed = capsys.readouterr().out.splitlines()
    # (the command line also offers its --split option where no split slice was found)
    summary = export_summary(export_project(project, tmp_path / "window").value, split_option="--split")
    assert summary.headline.startswith(f"Exported to {tmp_path / 'window' / 'export-0001'}: 2 decisions of the panel "
                                       "(1 majority, 1 unanimous); 1 item with votes but no decision left out")
    cli = [line.replace(str(tmp_path / "cli"), "OUT") for line in printed]
    window = [line.replace(str(tmp_path / "window"), "OUT") for line in [summary.headline]
              + [f"  {line}" for line in summary.lines]]
    assert cli == window
