"""The headless layers import and work without Qt (ARCHITECTURE.md), and reviewer's packages
import one way, in the order pyproject.toml's layers contract draws (README.md, "Layout")."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from importlinter import api
from importlinter.contracts.layers import LayersContract

REPO = Path(__file__).resolve().parent.parent

BLOCK_QT = """
import importlib.abc, pkgutil, sys
class NoQt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6'):
            raise ImportError('Qt is not available to the headless layers')
sys.meta_path.insert(0, NoQt())
import reviewer, models, db
count = 0
for pkg in (reviewer, models, db):
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):
        if info.name.startswith('reviewer.ui') or '.migrations' in info.name or info.name.endswith('__main__'):
            continue
        __import__(info.name)
        count += 1
assert not [m for m in sys.modules if m.startswith('PySide6')]
print(count)
"""


def test_headless_packages_import_without_qt():
    result = subprocess.run([sys.executable, "-c", BLOCK_QT], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) > 10


def _tool(name: str) -> str:
    """The console script installed beside this interpreter (the venv's), so the test runs the pinned tool."""
    path = Path(sys.executable).with_name(name)
    assert path.exists(), f"{name} is not installed: pip install -e '.[test]'"
    return str(path)


def test_layering_contracts_hold():
    """import-linter's contracts in pyproject.toml: the window holds no SQL, Qt stays in reviewer.ui, models and db
    never import reviewer, and reviewer's packages import only downwards in the one order of its layers contract."""
    result = subprocess.run([_tool("lint-imports")], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_unused_or_undefined_names_and_imports_sorted():
    """pyflakes' checks (dead imports, undefined names) and one import order, via ruff."""
    result = subprocess.run([_tool("ruff"), "check", "--select", "F,I", "reviewer", "models", "db", "tests", "bench"],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# -- one order of packages -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    """reviewer's import graph, as import-linter builds it (TYPE_CHECKING imports included)."""
    return grimp.build_graph("reviewer", cache_dir=None)


def package_cycles(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    """Every cycle among reviewer's packages and top-level modules (each once, from its least
    name): package A imports B when any module in A imports any module in B."""
    children = sorted(graph.find_children("reviewer"))
    imports = {a: [b for b in children if b != a and graph.direct_import_exists(importer=a, imported=b,
                                                                                as_packages=True)]
               for a in children}
    cycles: set[tuple[str, ...]] = set()

    def walk(path: list[str]) -> None:
        for nxt in imports[path[-1]]:
            if nxt == path[0]:
                cycles.add(tuple(name.removeprefix("reviewer.") for name in path))
            elif nxt > path[0] and nxt not in path:
                walk(path + [nxt])

    for start in children:
        walk([start])
    return sorted(cycles)


def layers_options() -> tuple[dict, dict]:
    """The session's options and those of the one layers contract of pyproject.toml, as lint-imports reads them."""
    config = api.read_configuration(str(REPO / "pyproject.toml"))
    options = [c for c in config["contracts_options"] if c["type"] == "layers"]
    assert len(options) == 1, "one layers contract orders reviewer's packages"
    return config["session_options"], options[0]


def layers_contract() -> LayersContract:
    session_options, options = layers_options()
    return LayersContract(name=options["name"], session_options=session_options, contract_options=options)


def test_no_cycle_among_reviewer_packages(graph):
    cycles = package_cycles(graph)
    assert cycles == [], "packages importing each other in a loop: " + "; ".join(" -> ".join(c) for c in cycles)
    assert graph.nominate_cycle_breakers("reviewer") == set()


def test_a_planted_package_cycle_is_found(graph):
    planted = copy.deepcopy(graph)
    planted.add_import(importer="reviewer.classes.wordnet", imported="reviewer.labels.labelset")
    assert ("classes", "labels") in package_cycles(planted)


def test_the_layers_contract_lists_every_package_and_holds(graph):
    _, options = layers_options()
    assert options["containers"] == ["reviewer"] and str(options["exhaustive"]).lower() == "true"
    listed = {name.strip() for layer in options["layers"] for name in layer.replace(":", "|").split("|")}
    assert listed == {child.removeprefix("reviewer.") for child in graph.find_children("reviewer")}
    assert layers_contract().check(copy.deepcopy(graph), verbose=False).kept


@pytest.mark.parametrize("importer, imported", [
    ("reviewer.labels.labelset", "reviewer.app.panel"),  # a lower package importing the app layer
    ("reviewer.panel.state", "reviewer.runs.mistakes"),  # the panel reaching up for a run's mistakes
    ("reviewer.items", "reviewer.panel.state"),  # the bottom importing upwards
    ("reviewer.runs.mistakes", "reviewer.evidence.store"),  # one independent sibling importing another
])
def test_the_layers_contract_fails_on_a_planted_import(graph, importer, imported):
    planted = copy.deepcopy(graph)
    planted.add_import(importer=importer, imported=imported, line_number=1, line_contents=f"import {imported}")
    check = layers_contract().check(planted, verbose=False)
    assert not check.kept
    assert any(importer.split(".")[1] in str(d) for d in check.metadata["invalid_dependencies"])


def test_the_layers_contract_fails_on_a_package_it_does_not_place(graph):
    planted = copy.deepcopy(graph)
    planted.add_module("reviewer.misc")
    check = layers_contract().check(planted, verbose=False)
    assert not check.kept and "reviewer.misc" in str(check.metadata["undeclared_modules"])


def test_the_readme_draws_the_order_of_the_contract():
    """README.md's layout picture lists reviewer's packages row by row in the contract's order,
    a sibling on the contract's layer as a row starting with '|'."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    picture = readme.split("## Layout", 1)[1].split("```", 2)[1].split("\nreviewer/\n", 1)[1].split("\nmodels/")[0]
    rows: list[list[str]] = []
    for line in picture.splitlines():
        name = line.strip().split()[0] if line.strip() else ""
        if name == "|":
            rows[-1].append(line.split()[1].removesuffix("/").removesuffix(".py"))
        elif line.startswith("  ") and not line.startswith("   "):
            rows.append([name.removesuffix("/").removesuffix(".py")])
    _, options = layers_options()
    layers = [[name.strip() for name in layer.replace(":", "|").split("|")] for layer in options["layers"]]
    assert rows == layers
