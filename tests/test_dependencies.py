"""The install takes what the app uses (issue 24): PySide6's Essentials wheel holds every
Qt module the window and its tests import, so the project depends on `pyside6-essentials`,
not on `pyside6`, which adds the Addons, WebEngine and PDF wheels (179 MB more to download,
427 MB more on disk, measured with 6.12)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, files
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def qt_modules_imported() -> set[str]:
    found = set()
    for folder in ("reviewer", "tests", "bench"):
        for path in (REPO / folder).rglob("*.py"):
            found.update(re.findall(r"\bPySide6\.(Qt\w+)", path.read_text(encoding="utf-8")))
    return found


def test_the_project_depends_on_the_essentials_wheel_only():
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.split(r"[<>=!~; \[]", d, maxsplit=1)[0].lower() for d in dependencies}
    assert "pyside6-essentials" in names and "pyside6" not in names and "pyside6-addons" not in names


def test_every_qt_module_the_app_imports_is_in_the_essentials_wheel():
    try:
        shipped = {f.name.split(".")[0] for f in files("PySide6_Essentials") or []
                   if f.parent.name == "PySide6" and f.name.startswith("Qt") and f.suffix in (".so", ".pyd")}
    except PackageNotFoundError:
        pytest.skip("PySide6_Essentials is not installed as its own distribution here")
    used = qt_modules_imported()
    assert {"QtCore", "QtGui", "QtWidgets"} <= used
    assert used <= shipped, f"not in pyside6-essentials: {sorted(used - shipped)}"


def test_qt_widgets_import_in_a_fresh_interpreter():
    result = subprocess.run([sys.executable, "-c", "import PySide6.QtWidgets, PySide6.QtTest"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
