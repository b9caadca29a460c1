"""Files the app writes get the permissions any new file gets (issue 29, finding 8):
project.json was 0600 (a temporary file renamed into place), so another OS user
sharing the project folder was told to "restore it from a backup"."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reviewer._files import atomic_write_text
from reviewer.project import Project, ProjectError

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


@pytest.fixture
def umask():
    """Set the process's umask for a test; restored after it."""
    before = os.umask(0o022)
    os.umask(before)
    yield os.umask
    os.umask(before)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_project_json_is_readable_by_the_folders_other_users(tmp_path, umask):
    umask(0o022)
    project = Project.create(tmp_path / "p")
    project.close()
    assert mode(tmp_path / "p" / "project.json") == 0o644


def test_the_umask_is_respected_and_a_replaced_file_keeps_its_mode(tmp_path, umask):
    umask(0o077)
    atomic_write_text(tmp_path / "private.json", "{}")
    assert mode(tmp_path / "private.json") == 0o600
    umask(0o002)
    atomic_write_text(tmp_path / "group.json", "{}")
    assert mode(tmp_path / "group.json") == 0o664
    (tmp_path / "group.json").chmod(0o640)
    atomic_write_text(tmp_path / "group.json", "{\"a\": 1}")
    assert mode(tmp_path / "group.json") == 0o640 and (tmp_path / "group.json").read_text() == "{\"a\": 1}"


def test_an_unreadable_project_json_says_whom_to_ask(tmp_path, monkeypatch):
    project = Project.create(tmp_path / "p")
    project.close()
    read_text = Path.read_text

    def denied(self, *args, **kwargs):  # as another user without read permission sees it (root reads anything)
        if self.name == "project.json":
            raise PermissionError(13, "Permission denied", str(self))
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", denied)
    with pytest.raises(ProjectError, match="permission denied.*chmod a\\+r") as caught:
        Project.open(tmp_path / "p")
    assert "backup" not in str(caught.value)
