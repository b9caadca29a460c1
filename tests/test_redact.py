"""A database password never appears in a message or a log: not in the error of a
connection that fails (URL written out or with `$VAR`), not on the command line, not
in a traceback, not in a log record, not in the project's repr."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import pytest

from reviewer.cli import main
from reviewer.project import Project, ProjectError
from reviewer.redact import ScrubFilter, register_url, scrub

SECRET = "Sup3rSecretPw"


@pytest.fixture(autouse=True)
def no_remembered_secrets(monkeypatch):
    """Each test starts with no registered secret: one registered by an earlier test
    would hide a leak of the form under test."""
    import reviewer.redact

    monkeypatch.setattr(reviewer.redact, "_SECRETS", set())


def project_with_url(tmp_path, url: str):
    root = tmp_path / "p"
    root.mkdir()
    (root / "project.json").write_text(json.dumps({"format": 1, "db_url": url}))
    return root


@pytest.mark.parametrize("written", [f"postgresql://postgres:{SECRET}@127.0.0.1:5999/panel",
                                     "postgresql://postgres:${REVIEWER_PW}@127.0.0.1:5999/panel"])
def test_a_failed_connection_names_the_url_without_its_password(tmp_path, monkeypatch, capsys, written):
    monkeypatch.setenv("REVIEWER_PW", SECRET)
    root = project_with_url(tmp_path, written)  # nothing listens on 5999
    with pytest.raises(ProjectError) as caught:
        Project.open(root)
    message = str(caught.value)
    assert SECRET not in message and "postgresql://postgres:***@127.0.0.1:5999/panel" in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__  # no chained traceback to leak
    assert main(["report", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot open the database of") and SECRET not in err


def test_percent_encoded_passwords_and_logs_are_scrubbed():
    register_url("postgresql://ann:p%40ss%3Aw0rd@db.example/panel")
    assert scrub("FATAL: password p@ss:w0rd rejected; url p%40ss%3Aw0rd") == "FATAL: password *** rejected; url ***"
    assert scrub("postgresql://bob:other-secret@host/db") == "postgresql://bob:***@host/db"  # any URL's password
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "retry with %s", ("p@ss:w0rd",), None)
    ScrubFilter().filter(record)
    assert record.getMessage() == "retry with ***"


def test_an_uncaught_traceback_is_scrubbed(tmp_path):
    """The command line's last resort: Python prints the traceback through our hook."""
    code = ("import sys; from reviewer.redact import register_url; from reviewer.cli import main, _scrubbed_excepthook;"
            f"register_url('postgresql://u:{SECRET}@h/d'); sys.excepthook = _scrubbed_excepthook;"
            f"raise RuntimeError('connection to postgresql://u:{SECRET}@h/d failed: {SECRET}')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1 and "RuntimeError" in done.stderr and SECRET not in done.stderr


def test_an_open_project_does_not_show_its_password(tmp_path, postgres_url):
    from sqlalchemy.engine import make_url

    url = make_url(postgres_url).set(password=SECRET).render_as_string(hide_password=False)  # trust auth: accepted
    project = Project.create(tmp_path / "pg", db_url=url)
    try:
        assert SECRET not in repr(project) and SECRET not in repr(project.engine)
    finally:
        project.close()


# -- every form libpq takes a password in (issue 29, finding 4) ---------------------------

@pytest.mark.parametrize("written, hidden", [
    (f"postgresql://127.0.0.1:5999/panel?user=postgres&password={SECRET}",
     "postgresql://127.0.0.1:5999/panel?user=postgres&password=***"),
    (f"postgresql://postgres@127.0.0.1:5999/panel?sslpassword={SECRET}&sslmode=prefer",
     "postgresql://postgres@127.0.0.1:5999/panel?sslpassword=***&sslmode=prefer"),
    (f"postgresql://postgres:Sup3r@{SECRET}@127.0.0.1:5999/panel",  # an unencoded @: the last one ends it
     "postgresql://postgres:***@127.0.0.1:5999/panel"),
    (f"postgresql://postgres:{SECRET}@@127.0.0.1:5999/panel", "postgresql://postgres:***@127.0.0.1:5999/panel"),
])
def test_a_failed_connection_hides_a_password_in_any_url_form(tmp_path, capsys, written, hidden):
    root = project_with_url(tmp_path, written)  # nothing listens on 5999
    with pytest.raises(ProjectError) as caught:
        Project.open(root)
    message = str(caught.value)
    assert SECRET not in message and "Sup3r" not in message and hidden in message
    assert main(["report", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and SECRET not in err and "Sup3r" not in err


def test_an_unencoded_at_in_the_password_is_explained(tmp_path):
    root = project_with_url(tmp_path, f"postgresql://postgres:Sup3r@{SECRET}@127.0.0.1:5999/panel")
    with pytest.raises(ProjectError, match="write it as %40"):
        Project.open(root)


def test_a_conninfo_string_is_refused_without_its_password(tmp_path):
    root = project_with_url(tmp_path, f"host=127.0.0.1 port=5999 password='{SECRET} x' user=postgres")
    with pytest.raises(ProjectError) as caught:
        Project.open(root)
    assert SECRET not in str(caught.value) and "password=***" in str(caught.value)


@pytest.mark.parametrize("conninfo, value", [
    (f"host=h password={SECRET} user=u", SECRET), (f"host=h password = '{SECRET}' user=u", SECRET),
    (f"host=h password='it\\'s {SECRET}'", f"it's {SECRET}"), (f"password={SECRET}&more user=u", f"{SECRET}&more"),
    (f"sslpassword={SECRET}", SECRET), (f"dbname=d passfile=/home/u/{SECRET}.pgpass", f"/home/u/{SECRET}.pgpass")])
def test_key_value_conninfo_secrets_are_masked(conninfo, value):
    shown = register_url(conninfo)
    assert SECRET not in shown and "***" in shown
    assert SECRET not in scrub(f"FATAL: the server said {value}")  # registered: masked anywhere


def test_pgpassword_and_password_file_contents_never_show(tmp_path, monkeypatch, capsys):
    passfile = tmp_path / "pgpass"
    passfile.write_text("# comment\n127.0.0.1:5999:*:postgres:Fr0mTheF\\:ile\n*:*:*:*:An0therOne\n"
                        "otherhost:5432:*:*:N0tThisServer\n")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    monkeypatch.setenv("PGPASSWORD", "Fr0mTheEnvVar")
    root = project_with_url(tmp_path, "postgresql://postgres@127.0.0.1:5999/panel")
    assert main(["report", str(root)]) == 2
    capsys.readouterr()
    leaked = "env Fr0mTheEnvVar, file Fr0mTheF:ile and An0therOne"
    assert scrub(leaked) == "env ***, file *** and ***"
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "%s", (leaked,), None)
    ScrubFilter().filter(record)
    assert "Fr0m" not in record.getMessage() and "An0ther" not in record.getMessage()
    assert scrub("N0tThisServer") == "N0tThisServer"  # another server's line: not this project's secret


def test_scrubbing_a_long_message_takes_linear_time():
    """Every error passes through scrub, and an error may quote a long input: a long word was
    tried letter by letter as a URL scheme (40,000 characters took 3 s, quadratic)."""
    import time

    started = time.perf_counter()
    for text in ("a" * 200_000, "postgresql://u:" + "p" * 200_000, "password=" + "p" * 200_000):
        scrub(text)
    assert time.perf_counter() - started < 1.0


def test_a_url_in_parentheses_keeps_its_closing_parenthesis():
    """Issue 36 (cosmetic): the masking took the `)` that closes a URL written in parentheses
    for part of a `password=` query parameter."""
    from reviewer.redact import hidden_url

    assert hidden_url("refused (postgresql://h/db?user=u&password=secret) here") == \
        "refused (postgresql://h/db?user=u&password=***) here"
    assert hidden_url("(postgresql://h/db?sslpassword=pw&password=a)b)") == \
        "(postgresql://h/db?sslpassword=***&password=***)"
    assert hidden_url("postgresql://h/db?password=s3cret") == "postgresql://h/db?password=***"
