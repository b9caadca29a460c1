"""Projects made once per test run and copied per test (issue 35): making one (`init`, its
imports, runs and votes) costs 0.2-0.3 s or more, copying its folder about a millisecond.

    new_project(root)            as Project.create(root): a new, empty SQLite project
    TEMPLATES.copy(build, dest)  the project `build(folder)` made once, copied into `dest`

Importable from any test as `from project_data import ...` (pytest puts the folder of
tests/conftest.py on sys.path); fixtures take the same object as the `templates` fixture.
"""

from __future__ import annotations

import atexit
import copy
import os
import re
import shutil
import sqlite3
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

TEST_DATA = Path(__file__).resolve().parent / "data"  # the published files the tests read (tests/conftest.py)

class ProjectTemplates:
    """Projects made once per test run and copied per test: making one (`init`, its imports,
    runs and votes) costs 0.2-0.3 s or more, copying its folder about a millisecond.

    `templates.copy(build, dest)`: `build(folder)` makes its project inside `folder` the first
    time it is asked for (as the test's fixture made it inside `tmp_path`) and returns it; each
    call copies that folder's contents into `dest` and opens the project there, with the
    attributes `build` set on it (`project.ids`, ...) copied afresh. Paths that point into the
    folder (the images root, an image's path, a label file's) are made to point into `dest`, so a
    test changing its files or its database never touches another test's."""

    def __init__(self, mktemp: Callable[[str], Path]):
        self._mktemp = mktemp
        self._made: dict = {}

    def new(self, root: Path):
        """As `Project.create(root)`: a new, empty SQLite project at `root` (named after its folder)."""
        def build(folder: Path):
            from reviewer.project import Project

            return Project.create(folder / root.name)

        return self.copy(build, root.parent, key=("empty", root.name))

    def folder(self, build, key=None) -> tuple[Path, Path, dict, list[Path]]:
        """(the template's folder, its project's root inside it, the attributes `build` set,
        the databases in it that name paths inside it). A template is known by `key`, by default
        the name of `build` in its module: a function defined in a fixture is made once too."""
        key = key or (build.__module__, build.__qualname__)
        if key not in self._made:
            from reviewer.project import Project

            folder = self._mktemp(re.sub(r"\W+", "_", "_".join(map(str, key)))[-60:]).resolve()
            with _apart_user_dirs(folder.parent / f"{folder.name}_user"):
                project = build(folder)
            extras = {k: v for k, v in vars(project).items() if k not in Project.__dataclass_fields__}
            extras["_intact"] = project._intact  # its integrity check passed before a write (or not yet)
            root = project.root.relative_to(folder)
            project.close()
            databases = []
            for database in folder.rglob("*.db"):  # everything in the database file itself
                connection = sqlite3.connect(database)
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                connection.close()
                if str(folder).encode() in database.read_bytes():
                    databases.append(database.relative_to(folder))
            self._made[key] = (folder, root, extras, databases)
        return self._made[key]

    def copy(self, build, dest: Path, *, key=None):
        """The project `build` made, copied into `dest` and opened (its attributes with it)."""
        from reviewer.project import Project

        project = Project.open(self.copy_folder(build, dest, key=key))
        for name, value in copy.deepcopy(self.folder(build, key)[2]).items():
            setattr(project, name, value)
        return project

    def copy_folder(self, build, dest: Path, *, key=None) -> Path:
        """The folder `build` made, copied into `dest`; returns the project's root there (not opened)."""
        folder, root, _, databases = self.folder(build, key)
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copytree(folder, dest, dirs_exist_ok=True, symlinks=True)
        for database in databases:
            _repoint(dest / database, str(folder), str(dest.resolve()))
        return dest / root


def _repoint(database: Path, old: str, new: str) -> None:
    """Text in the database that names `old` or a path inside it names the same inside `new`."""
    connection = sqlite3.connect(database)
    try:
        tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for column in [r[1] for r in connection.execute(f'PRAGMA table_info("{table}")')
                           if not r[2] or any(t in r[2].upper() for t in ("CHAR", "TEXT", "CLOB"))]:
                connection.execute(f'UPDATE "{table}" SET "{column}" = ? || substr("{column}", ?) '
                                   f'WHERE "{column}" = ? OR substr("{column}", 1, ?) = ?',
                                   (new, len(old) + 1, old, len(old) + 1, old + os.sep))
        connection.commit()
    finally:
        connection.close()


@contextmanager
def _apart_user_dirs(base: Path):
    """Per-user state written while a template is made goes to a folder of its own (the test
    that first asks for it starts with its own, empty, as every other does)."""
    saved = {k: os.environ.get(k) for k in ("REVIEWER_DATA_DIR", "REVIEWER_CONFIG_DIR")}
    os.environ["REVIEWER_DATA_DIR"] = str(base / "data")
    os.environ["REVIEWER_CONFIG_DIR"] = str(base / "config")
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


_base: Path | None = None


def _mktemp(name: str) -> Path:
    """A new folder for a template, in one temporary folder of this process, removed at its exit."""
    global _base
    if _base is None:
        _base = Path(tempfile.mkdtemp(prefix="reviewer-templates-"))
        atexit.register(shutil.rmtree, _base, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{name}_", dir=_base))


TEMPLATES = ProjectTemplates(_mktemp)


def new_project(root: str | Path):
    """As `Project.create(root)` on SQLite: a new, empty project at `root` (a copy of one made once)."""
    return TEMPLATES.new(Path(root))
