"""`export` of a SQLite file holding text that is not UTF-8 (another program wrote raw
bytes, or a damaged page): a clear error naming the column and what to do, no
traceback ("Could not decode to UTF-8 column 'file_name'"), no export folder
(issue 29, finding 7)."""

from __future__ import annotations

import sqlite3

from project_data import new_project
from review_data import add_images

from reviewer.cli import main


def test_export_of_non_utf8_text_is_a_clear_error(tmp_path, capsys):
    project = new_project(tmp_path / "p")
    add_images(project, [1, 2, 3])
    project.close()
    with sqlite3.connect(tmp_path / "p" / "project.db") as raw:  # bytes, not UTF-8, stored as TEXT
        raw.execute("UPDATE image SET file_name = CAST(x'ff6e616d652e4a504547' AS TEXT) WHERE id = 2")
    assert main(["export", str(tmp_path / "p"), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: the database of {tmp_path / 'p'} is damaged: column 'file_name'")
    assert "not UTF-8" in err and "Restore project.db from a backup" in err and "Traceback" not in err
    assert not list((tmp_path / "out").glob("export-*"))
