"""The headless layers import and work without Qt (ARCHITECTURE.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    """import-linter's contracts in pyproject.toml: the window holds no SQL, Qt stays in reviewer.ui, the layers
    cli > ui > app > domain > db/models only ever import downwards."""
    result = subprocess.run([_tool("lint-imports")], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_unused_or_undefined_names_and_imports_sorted():
    """pyflakes' checks (dead imports, undefined names) and one import order, via ruff."""
    result = subprocess.run([_tool("ruff"), "check", "--select", "F,I", "reviewer", "models", "db", "tests", "bench"],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
