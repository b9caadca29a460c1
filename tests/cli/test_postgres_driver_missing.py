"""`reviewer init --db postgresql://...` without the PostgreSQL driver says how to install it
(issue 35, 10): it said only "No module named 'psycopg'"."""

from __future__ import annotations

import sys

from reviewer.cli import main


def test_init_on_postgresql_without_the_driver_names_the_postgres_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as in an install without the extra
    assert main(["init", str(tmp_path / "p"), "--db", "postgresql://panel@127.0.0.1/imagenet_panel"]) == 2
    err = capsys.readouterr().err
    assert "the PostgreSQL driver (psycopg) is not installed" in err
    assert 'pip install -e ".[postgres]"' in err and "Traceback" not in err
