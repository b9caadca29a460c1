"""A report's progress: each step heard as it starts, in order, to the last; on a terminal
`reviewer report` draws it on stderr from its first moment, and piped it writes nothing
there, so `--json` stays pure JSON on stdout."""

from __future__ import annotations

import io
import json
import sys

from project_data import new_project
from review_data import add_images, add_run, decide

from reviewer.app.report import build_report
from reviewer.cli import main
from reviewer.cli.progress import StepProgress
from reviewer.project import Project


def _project(tmp_path) -> Project:
    project = new_project(tmp_path / "p")
    ids = add_images(project, [1, 2, 3, 4, 5, 6])
    add_run(project, "model-A", dict(zip(ids, [1, 2, 3, 40, 50, 60])), probs=dict.fromkeys(ids, 0.8))
    add_run(project, "model-B", dict(zip(ids, [1, 20, 3, 4, 50, 6])), probs=dict.fromkeys(ids, 0.7))
    decide(project, ids[3], 40, "wrong", severity="minor", category="fine_grained")
    return project


def test_every_step_is_heard_in_order_to_the_last(tmp_path):
    project = _project(tmp_path)
    heard = []
    build_report(project, keep=False, progress=lambda what, done, total: heard.append((what, done, total)))
    total = heard[0][2]
    assert [done for _, done, _ in heard] == list(range(total + 1))  # one call a step, the last at the total
    assert {t for _, _, t in heard} == {total}
    names = " ".join(what for what, _, _ in heard)
    assert "run 1 (model-A)" in names and "run 2 (model-B)" in names and "agreement" in names


def test_piped_the_json_is_alone_on_stdout_and_stderr_says_nothing(tmp_path, capsys):
    project = _project(tmp_path)
    assert main(["report", str(project.root), "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["runs"][0]["model"] == "model-A"
    assert out.err == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_bar_is_drawn_and_cleared(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    progress = StepProgress("report")
    progress("loading", 0, 0)  # before the total is known: at once
    progress("labels", 0, 3)
    progress("run 1 (m): metrics and calibration", 2, 3)
    progress.close()
    written = terminal.getvalue()
    assert "report" in written and "loading" in written and "run 1 (m)" in written
    assert progress.ticker is not None and not progress.ticker.is_alive()  # the redrawing thread has ended
