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


def test_no_qt_import_outside_ui():
    offenders = []
    for path in list(REPO.glob("reviewer/**/*.py")) + list(REPO.glob("models/**/*.py")) + list(REPO.glob("db/**/*.py")):
        if "reviewer/ui" in path.as_posix():
            continue
        text = path.read_text()
        if "import PySide6" in text or "from PySide6" in text:
            offenders.append(str(path.relative_to(REPO)))
    assert offenders == []
