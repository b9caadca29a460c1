"""The command line reads through reviewer.app too: a command parses its arguments, calls
an app function and prints what it returns. None opens a unit of work of its own or
composes the domain's reads (a figure computed by the command line one way and by the
window another drifts apart unseen), so a command module neither opens a project's
snapshot (`project.read()`, `project.write(...)`), nor passes a session, nor imports a
domain function that takes a session or a panel snapshot. Vocabularies, constants and
checks of a command's own options may still be imported from the domain."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest
from project_data import new_project

from reviewer.app.leaderboard import Leaderboard, Trend, draw_trend, leaderboard
from reviewer.app.panel import agreement
from reviewer.app.panel_status import PanelStatus, panel_status
from reviewer.cli import main

CLI = Path(__file__).resolve().parents[2] / "reviewer" / "cli"

# A function taking one of these reads the project's state: the command line calls an app function instead.
SESSION_PARAMETERS = {"session", "snapshot"}
SESSION_TYPES = ("Session", "PanelSnapshot", "Project")


def _receiver_is_a_project(node: ast.expr) -> bool:
    """`project`, `self.project`, `Project.open(...)`: what `.read()` / `.write()` opens a unit of work on."""
    if isinstance(node, ast.Call):
        return _receiver_is_a_project(node.func.value) if isinstance(node.func, ast.Attribute) else False
    if isinstance(node, ast.Name):
        return "project" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "project" in node.attr.lower() or _receiver_is_a_project(node.value)
    return False


def sessions_opened(source: str) -> list[str]:
    """Where a module's source opens a project's unit of work or hands a session on."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        if any(k.arg == "session" for k in node.keywords):
            found.append((node.lineno, "a call with session="))
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("read", "write") \
                and _receiver_is_a_project(node.func.value):
            found.append((node.lineno, f"{ast.unparse(node.func)}()"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def _reads_state(function) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name in SESSION_PARAMETERS
               or any(kind in str(p.annotation) for kind in SESSION_TYPES if p.annotation is not p.empty)
               for p in parameters)


def domain_reads_imported(source: str) -> list[str]:
    """The domain (and db) functions a module's source imports that read a session or a
    panel snapshot, other than through reviewer.app."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
            continue
        module = node.module
        if not (module.startswith("reviewer.") or module == "db" or module.startswith("db.")) \
                or module.startswith(("reviewer.app", "reviewer.cli", "reviewer.ui")):
            continue
        imported = importlib.import_module(module)
        for alias in node.names:
            thing = getattr(imported, alias.name, None)
            if inspect.isfunction(thing) and _reads_state(thing):
                found.append(f"{module}.{alias.name}")
    return found


def test_the_checks_find_a_command_that_reads_by_itself():
    planted = """
def run_status(args):
    from reviewer.panel.lookup import image_names, resolve_class
    from reviewer.panel.phases import progress
    from reviewer.panel.snapshot import FIELDS, load_snapshot
    from reviewer.terms import Phase

    with Project.open(args.project).read() as session:
        snapshot = load_snapshot(session=session)
    project.write(lambda s: None)
    return progress(snapshot)
"""
    assert domain_reads_imported(planted) == ["reviewer.panel.lookup.image_names", "reviewer.panel.phases.progress",
                                              "reviewer.panel.snapshot.load_snapshot"]
    assert sessions_opened(planted) == ["line 8: Project.open(args.project).read()", "line 9: a call with session=",
                                        "line 10: project.write()"]
    harmless = """
from reviewer.app.panel import agreement
from reviewer.panel.decisions import check_override
from reviewer.panel.rules import BLIND
data = sys.stdin.read(); handle.read(); out.write("x")
"""
    assert domain_reads_imported(harmless) == [] and sessions_opened(harmless) == []


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_no_command_reads_the_project_but_through_reviewer_app(path):
    source = path.read_text(encoding="utf-8")
    assert sessions_opened(source) == [], "read through an app function (reviewer.app), one snapshot per act"
    assert domain_reads_imported(source) == [], "call the app function the window calls, not the domain's reads"


def test_the_read_commands_print_what_their_app_functions_return(tmp_path, capsys, add_mistakes, monkeypatch):
    """panel-status, agreement and leaderboard print the app functions' results: the same
    figures the window gets from them."""
    from reviewer.app import panel as acts

    project = new_project(tmp_path / "p")
    items = add_mistakes(project, [(1, True), (2, True), (3, False)])
    for name in ("ann", "bob"):
        acts.add_panelist(project, name, chair=name == "ann")
    for item, verdicts in zip(items, (("wrong", "wrong"), ("wrong", "correct"))):
        for name, verdict in zip(("ann", "bob"), verdicts):
            acts.vote(project, panelist_id=acts.ByName(name), item=item, verdict=verdict, problematic=False)

    status = panel_status(project, items=True)
    assert isinstance(status, PanelStatus)
    assert [p.name for p in status.panelists] == ["ann", "bob"]
    first, second = status.phases
    assert (first.items, first.decided, first.awaits_group) == (2, 1, 1)  # the third was judged wrong before
    assert [(row.phase, row.state) for row in status.items if row.predicted == 2] == [(1, "awaits_group")]
    assert main(["panel-status", str(project.root)]) == 0
    out = capsys.readouterr().out
    assert "Phase 1, correctness: 2 items: 0 being voted, 1 awaiting the group, 1 decided" in out
    assert f"Phase 2, severity and category: {second.items} items" in out

    summary = agreement(project, resamples=0)
    assert main(["agreement", str(project.root), "--resamples", "0"]) == 0
    out = capsys.readouterr().out
    verdict = next(r for r in summary.report if r.field == "verdict" and r.phase == 1)
    assert f"{verdict.percent.value:.3f}" in out and "Cohen's kappa, verdict:" in out

    board = leaderboard(project, slice_name="imagenet_m")
    assert isinstance(board, Leaderboard) and not board.has_slice and board.why_empty is None
    assert len(board.table) == 1  # the run that made the three mistakes
    assert main(["leaderboard", str(project.root)]) == 0
    assert "(no slice named 'imagenet_m': slice scores are empty)" in capsys.readouterr().out
    assert draw_trend(board, tmp_path / "t.png") == Trend(drawn=False, off_trend=[])
    assert main(["leaderboard", str(project.root), "--plot", str(tmp_path / "no" / "t.png")]) == 0
    assert "no plot: no run has both a full-set top-1 and a slice score" in capsys.readouterr().out
