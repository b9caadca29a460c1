"""Every user act has one home, reviewer.app, used alike by the command line and the
window: each CLI command that writes runs an app act (replaced here by one that
says it was reached), and neither front end imports the domain's write functions.
A new command must be listed below as writing (with its act) or reading, so a
write command cannot be forgotten."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from reviewer.cli import build_parser, main
from reviewer.project import Project

REVIEWER = Path(__file__).resolve().parents[2] / "reviewer"

# command -> [(arguments after the project, the app act it must run)]; {p}: the project folder,
# {t}: a scratch folder. Arguments need only get past the command's own parsing.
WRITES = {
    "init": [(["{t}/new", "--labels", "{t}/labels.txt"], "reviewer.app.imports.init_project")],
    "import-images": [(["{p}", "{t}"], "reviewer.app.imports.import_images")],
    "import-labels": [(["{p}", "{t}/labels.txt"], "reviewer.app.imports.import_labels")],
    "import-review": [(["{p}", "{t}/review.json", "--model", "m"], "reviewer.app.imports.import_review")],
    "predict": [(["{p}", "--model", "m"], "reviewer.app.runs.run_models")],
    "import-logits": [(["{p}", "{t}/logits.npy", "--model", "m"], "reviewer.app.runs.import_scores")],
    "report": [(["{p}", "--format", "markdown", "--out", "{t}/report"], "reviewer.app.report.write_report")],
    "panelist": [(["{p}", "ann", "--chair"], "reviewer.app.panel.add_panelist")],
    "vote": [(["{p}", "--image", "a.JPEG", "--predicted", "1", "--verdict", "wrong"], "reviewer.app.panel.vote"),
             (["{p}", "--undo"], "reviewer.app.panel.undo"),
             (["{p}", "--batch", "{t}/votes.csv"], "reviewer.app.panel.vote_batch")],
    "reopen": [(["{p}", "--image", "a.JPEG", "--predicted", "1", "--reason", "again"],
                "reviewer.app.panel.reopen_item")],
    "note": [(["{p}", "--image", "a.JPEG", "--predicted", "1", "a word"], "reviewer.app.panel.note")],
    "decide": [(["{p}"], "reviewer.app.panel.lock_all"),
               (["{p}", "--image", "a.JPEG", "--predicted", "1"], "reviewer.app.panel.lock"),
               (["{p}", "--image", "a.JPEG", "--predicted", "1", "--override", "--verdict", "correct", "--reason",
                 "the label is right"], "reviewer.app.panel.override")],
    "panel-rules": [(["{p}", "--blind", "on"], "reviewer.app.panel.set_panel_rules")],
    "panel-scope": [(["{p}", "--all"], "reviewer.app.scope.set_panel_scope")],
    "panel-setup": [(["{p}", "--chair", "ann"], "reviewer.app.roles.set_up_roles")],
    "export": [(["{p}", "{t}/out"], "reviewer.app.export.export_project")],
    "export-reviews": [(["{p}", "{t}/m.json", "--model", "m"], "reviewer.app.export.export_reviews")],
    "export-probabilities": [(["{p}", "1", "{t}/run.npz"], "reviewer.app.export.export_probabilities")],
    "split": [(["{p}", "--runs", "m", "--k", "1", "--save", "mine"], "reviewer.app.split.apply_split")],
    "import-evidence": [(["{p}", "{t}/real.json"], "reviewer.app.evidence.import_evidence")],
    "adopt-evidence": [(["{p}", "real_labels"], "reviewer.app.evidence.adopt_evidence")],
    "index": [(["{p}", "--images", "{t}"], "reviewer.app.index.build_index")],
    "patchml": [(["{p}", "--boxes", "{t}/boxes.csv", "--seed", "0"], "reviewer.app.patchml.make_patchml")],
    "demo": [(["--no-gui"], "reviewer.app.demo.prepare_demo_project")],
    "zoom": [(["{p}", "--run", "1", "--limit", "20"], "reviewer.app.zoom.probe_run")],
    "zoom-split": [(["{p}", "--runs", "1", "--save", "zoom_hard"], "reviewer.app.zoom.zoom_hard_split")],
}
# Commands that change nothing: they read (the window's own acts go through reviewer.app,
# checked below); `leaderboard --plot` draws the table it prints.
READS = {"gui", "panel-status", "agreement", "evidence", "show", "leaderboard", "suggest"}

# The domain's write functions: a front end reaches them only through reviewer.app.
DOMAIN_WRITES = {
    "cast_vote", "amend_vote", "undo_last", "add_note", "reopen", "lock_decision", "lock_all", "override_decision",
    "set_rules", "set_scope", "get_panelist", "enter_panel", "acting_panelist", "find_mistake", "export_project",
    "write_model_mistakes", "export_probabilities", "store_evidence", "import_evidence", "adopt", "predict",
    "predict_models", "import_logits", "build_index", "build_report", "write_report", "save_split",
    "apply_split_rule", "apply_plan", "add_images", "store_review", "store_mistakes", "store_run_mistakes",
    "write_setting", "save_zoom", "save_zoom_hard", "save_slice",
}
# Modules that are nothing but writes (also an import-linter contract in pyproject.toml).
WRITE_MODULES = {"reviewer.runs.compute", "reviewer.runs._attempt", "reviewer.runs._pass", "reviewer.runs._end",
                 "reviewer.runs.logits",
                 "reviewer.neighbours.build", "reviewer.panel.roles",
                 "reviewer.analysis.render", "reviewer.panel.discussion", "reviewer.evidence.store"}
# What the window does that the command line does too: the same act, referenced from reviewer.ui
# (or from reviewer.app.review, the acts the review page runs through).
WINDOW_ACTS = ["reviewer.app.panel.vote", "reviewer.app.panel.undo", "reviewer.app.panel.note",
               "reviewer.app.panel.reopen_item", "reviewer.app.panel.lock", "reviewer.app.panel.lock_all",
               "reviewer.app.panel.override", "reviewer.app.panel.set_panel_rules", "reviewer.app.export.export_project",
               "reviewer.app.report.build_report", "reviewer.app.runs.run_model", "reviewer.app.imports.init_project",
               "reviewer.app.project.open_project", "reviewer.app.demo.prepare_demo"]


class ActReached(Exception):
    """Raised by a stand-in act: the command got as far as the app act."""


def subcommands() -> set[str]:
    return set(build_parser()._subparsers._group_actions[0].choices)  # argparse keeps them here


def test_every_command_is_listed_as_writing_or_reading():
    assert not set(WRITES) & READS
    assert set(WRITES) | READS == subcommands(), "a new command: list it in WRITES (with its act) or READS"


def _act(target: str):
    module, name = target.rsplit(".", 1)
    return importlib.import_module(module), name


@pytest.mark.parametrize("command,arguments,target",
                         [(command, arguments, target) for command, cases in WRITES.items()
                          for arguments, target in cases])
def test_each_write_command_runs_its_app_act(command, arguments, target, tmp_path, monkeypatch):
    Project.create(tmp_path / "p").close()
    (tmp_path / "votes.csv").write_text("image,predicted,verdict\na.JPEG,1,wrong\n")
    module, name = _act(target)
    assert callable(getattr(module, name)), f"{target} is not an act of reviewer.app"
    reached = []

    def stand_in(*args, **kwargs):
        reached.append((args, kwargs))
        raise ActReached(target)

    monkeypatch.setattr(module, name, stand_in)
    argv = [command, *(a.format(p=tmp_path / "p", t=tmp_path) for a in arguments)]
    with pytest.raises(ActReached):
        main(argv)
    assert len(reached) == 1


def domain_writes_imported(source: str) -> list[str]:
    """The domain write functions and write-only modules a module's source imports
    other than through reviewer.app."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reviewer."):
            if node.module.startswith("reviewer.app"):
                continue
            for alias in node.names:
                if alias.name in DOMAIN_WRITES or f"{node.module}.{alias.name}" in WRITE_MODULES \
                        or node.module in WRITE_MODULES:
                    found.append(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name in WRITE_MODULES]
    return found


def test_the_write_only_modules_are_the_import_linter_contract():
    import sys

    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")  # as test_dependencies
    config = tomllib.loads((REVIEWER.parent / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"]
                   if c["name"] == "The front ends write through reviewer.app's acts"]
    assert set(contract["forbidden_modules"]) == WRITE_MODULES
    assert set(contract["source_modules"]) == {"reviewer.cli", "reviewer.ui"}


def test_the_check_finds_a_planted_domain_write():
    assert domain_writes_imported("from reviewer.panel.votes import VoteState, cast_vote") == [
        "reviewer.panel.votes.cast_vote"]
    assert domain_writes_imported("from reviewer.panel import roles as r") == ["reviewer.panel.roles"]
    assert domain_writes_imported("import reviewer.runs.compute") == ["reviewer.runs.compute"]
    assert domain_writes_imported("from reviewer.app.panel import vote, lock_all") == []


@pytest.mark.parametrize("front_end", ["cli", "ui"])
def test_the_front_ends_import_no_domain_write_function(front_end):
    offenders = {str(path.relative_to(REVIEWER.parent)): found for path in sorted((REVIEWER / front_end).rglob("*.py"))
                 if (found := domain_writes_imported(path.read_text(encoding="utf-8")))}
    assert offenders == {}, "write through reviewer.app's acts"


def acts_referenced(source: str) -> set[str]:
    """reviewer.app.<module>.<act> names a module's source uses: imported by name, or as an
    attribute of an imported app module (`from reviewer.app import panel as acts; acts.vote`)."""
    tree = ast.parse(source)
    used, modules = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "reviewer.app":
            modules.update({alias.asname or alias.name: f"reviewer.app.{alias.name}" for alias in node.names})
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reviewer.app."):
            used |= {f"{node.module}.{alias.name}" for alias in node.names}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            used.add(f"{modules[node.value.id]}.{node.attr}")
    return used


def test_the_window_runs_the_same_acts():
    sources = [*sorted((REVIEWER / "ui").rglob("*.py")), REVIEWER / "app" / "review.py"]
    used = set().union(*(acts_referenced(path.read_text(encoding="utf-8")) for path in sources))
    assert [act for act in WINDOW_ACTS if act not in used] == []
    for act in WINDOW_ACTS:  # and each is an act of reviewer.app
        module, name = _act(act)
        assert callable(getattr(module, name)), act
