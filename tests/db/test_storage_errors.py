"""A full disk and a project the user may not write: clear errors, nothing half-written.

Real conditions, not mocks: a 3 MB tmpfs filled up under a `vote --batch`, and a
project the user may not write (a read-only bind mount when the suite runs as root,
whom file modes do not stop; file modes otherwise)."""

from __future__ import annotations

import csv
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid

import pytest

from reviewer.app import panel as acts
from reviewer.project import Project


def cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reviewer", *args], capture_output=True, text=True, timeout=120,
                          **kwargs)


@pytest.fixture
def small_disk(tmp_path):
    """A 3 MB file system of its own (tmpfs), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({done.stderr.strip()}); the disk-full test needs it")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_batch_on_a_full_disk_writes_nothing_and_the_resend_records_each_row_once(small_disk, tmp_path,
                                                                                     add_mistakes):
    project = Project.create(small_disk / "P")
    items = add_mistakes(project, [(i % 1000, True) for i in range(300)])
    acts.add_panelist(project, "ann")
    project.close()
    batch = tmp_path / "batch.csv"
    with batch.open("w", newline="") as f:
        rows = csv.writer(f)
        rows.writerow(["image", "predicted", "verdict", "note"])
        for item in items:  # ~1 MB of notes: more than the disk has left
            rows.writerow([f"ILSVRC2012_val_{item.image_id:08d}.JPEG", item.predicted, "wrong", "x" * 3000])
    filler = small_disk / "filler"
    free = shutil.disk_usage(small_disk).free
    filler.write_bytes(b"\0" * (free - 600_000))

    full = cli("vote", str(small_disk / "P"), "--panelist", "ann", "--batch", str(batch))
    assert full.returncode == 2, full.stdout + full.stderr
    assert "Traceback" not in full.stderr and "is full" in full.stderr and "nothing" in full.stderr
    with sqlite3.connect(f"file:{small_disk / 'P' / 'project.db'}?mode=ro", uri=True) as db:
        assert db.execute("SELECT count(*) FROM vote").fetchone()[0] == 0  # all or nothing
        assert db.execute("PRAGMA quick_check").fetchone()[0] == "ok"

    filler.unlink()
    again = cli("vote", str(small_disk / "P"), "--panelist", "ann", "--batch", str(batch))
    assert again.returncode == 0, again.stderr
    with sqlite3.connect(small_disk / "P" / "project.db") as db:
        assert db.execute("SELECT count(*) FROM vote").fetchone()[0] == len(items)


def test_a_project_the_user_may_not_write_says_so(tmp_path, add_mistakes):
    root = tmp_path / f"ro-{uuid.uuid4().hex[:6]}" / "P"
    project = Project.create(root)
    item = add_mistakes(project, [(3, True)])[0]
    acts.add_panelist(project, "ann")
    project.close()
    args = ("vote", str(root), "--panelist", "ann", "--image", f"ILSVRC2012_val_{item.image_id:08d}.JPEG",
            "--predicted", "3", "--verdict", "wrong")
    if os.geteuid() == 0:  # root writes through file modes: mount the project read-only instead
        view = tmp_path / "readonly-view"
        view.mkdir()
        bound = subprocess.run(["mount", "--bind", "-o", "ro", str(root), str(view)], capture_output=True, text=True)
        if bound.returncode != 0:
            pytest.skip(f"cannot make a read-only bind mount here ({bound.stderr.strip()})")
        try:
            assert subprocess.run(["touch", str(view / "probe")], capture_output=True).returncode != 0
            refused = cli(*args[:1], str(view), *args[2:])
        finally:
            subprocess.run(["umount", "-l", str(view)], check=False)
    else:
        root.chmod(0o555)
        (root / "project.db").chmod(0o444)
        try:
            refused = cli(*args)
        finally:
            root.chmod(0o755)
            (root / "project.db").chmod(0o644)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "Traceback" not in refused.stderr and "cannot be written by you" in refused.stderr
    with sqlite3.connect(root / "project.db") as db:
        assert db.execute("SELECT count(*) FROM vote").fetchone()[0] == 0
