"""A damaged SQLite database: writes are refused before anything is written (the quick
check runs before a project's first write), and reads say what is wrong and how to
recover instead of a traceback."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest
from project_data import new_project

from reviewer.app import panel as acts
from reviewer.cli import main
from reviewer.project import Project, ProjectError


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""


@pytest.fixture
def damaged(tmp_path, add_mistakes):
    """A project with votes whose vote table's root page is then overwritten on disk."""
    project = new_project(tmp_path / "p")
    items = add_mistakes(project, [(10 + i, True) for i in range(30)])
    ann = acts.add_panelist(project, "ann").value.id
    for item in items:
        acts.vote(project, panelist_id=ann, item=item, verdict="wrong", note="x" * 200)
    project.close()
    db = project.root / "project.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file itself
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'vote'").fetchone()[0]
    with open(db, "r+b") as file:
        file.seek((root - 1) * page_size + 8)
        file.write(b"\xff" * (page_size - 8))
    return project.root, items


def test_a_vote_on_a_damaged_database_is_refused_and_writes_nothing(damaged, capsys):
    root, items = damaged
    before = [digest(root / name) for name in ("project.db", "project.db-wal")]
    image = f"ILSVRC2012_val_{items[0].image_id:08d}.JPEG"
    assert main(["vote", str(root), "--panelist", "ann", "--image", image, "--predicted", "10",
                 "--verdict", "correct"]) == 2
    err = capsys.readouterr().err
    assert "is damaged" in err and "nothing was written" in err and "sqlite3 project.db .recover" in err
    assert "Traceback" not in err
    project = Project.open(root)
    with pytest.raises(ProjectError, match="is damaged"):
        project.write(lambda session: None)
    project.close()
    after = [digest(root / name) for name in ("project.db", "project.db-wal")]
    assert after[0] == before[0]  # the database file is as it was
    assert after[1] in (before[1], "", hashlib.sha256(b"").hexdigest())  # and no write-ahead frame either


def test_a_large_database_checks_the_panels_history_and_still_refuses(damaged, monkeypatch, capsys):
    """Above Project.FULL_CHECK_BYTES only the history's tables are checked before the first write
    (the whole file of 50,000 images x 20 runs took half a second at every vote): a damaged vote
    table is still found, and the vote refused."""
    root, items = damaged
    monkeypatch.setattr(Project, "FULL_CHECK_BYTES", 1)
    image = f"ILSVRC2012_val_{items[0].image_id:08d}.JPEG"
    assert main(["vote", str(root), "--panelist", "ann", "--image", image, "--predicted", "10",
                 "--verdict", "correct"]) == 2
    err = capsys.readouterr().err
    assert "is damaged" in err and "nothing was written" in err and "Traceback" not in err


def test_a_report_on_a_damaged_database_says_so(damaged, capsys):
    root, _ = damaged
    assert main(["report", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the database of") and "is damaged" in err and "Traceback" not in err


@pytest.mark.parametrize("state", ["empty", "missing"])
def test_a_project_whose_database_is_empty_or_gone_is_refused_not_made_anew(tmp_path, capsys, state):
    """project.db cut to 0 bytes (or deleted) under a project.json: opening it used to make a
    new, empty schema in its place, report 0 images with exit 0 and take new writes."""
    project = Project.create(tmp_path / "p")
    acts.add_panelist(project, "ann", chair=True)
    project.close()
    database = tmp_path / "p" / "project.db"
    for journal in (tmp_path / "p").glob("project.db-*"):
        journal.unlink()
    if state == "empty":
        database.write_bytes(b"")
    else:
        database.unlink()
    assert main(["panelist", str(tmp_path / "p"), "bob"]) == 2
    err = capsys.readouterr().err
    assert "project.db" in err and ("empty (0 bytes)" if state == "empty" else "missing") in err
    assert "Restore project.db from a backup" in err and "Traceback" not in err
    assert (not database.exists()) if state == "missing" else database.stat().st_size == 0  # nothing written
    with pytest.raises(ProjectError, match="its records are gone"):
        Project.open(tmp_path / "p")


def test_init_that_cannot_reach_its_database_leaves_nothing_behind(tmp_path, capsys, postgres_url):
    """A database that does not exist (or a kind the app does not support): init fails with
    the reason, and the folder is as before, so the same init works once the cause is fixed."""
    from sqlalchemy.engine import make_url

    missing = make_url(postgres_url).set(database=make_url(postgres_url).database + "_nonexistent")
    url = missing.render_as_string(hide_password=False)
    target = tmp_path / "new" / "project"
    assert main(["init", str(target), "--db", url]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
    assert main(["init", str(target), "--db", "mysql://someone@host/db"]) == 2
    assert "SQLite (the default: leave out --db) or PostgreSQL" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
    assert main(["init", str(target), "--db", postgres_url]) == 0  # the same init, its cause fixed
    assert (target / "project.json").exists()
