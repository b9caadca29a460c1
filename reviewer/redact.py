"""Secrets never appear in a message or a log.

A project's database URL may carry a password, written out or as `$VAR` that
the environment expands. When a project connects it registers the password
here (`register_url`); every message the user reads (the command line's
errors, uncaught tracebacks, the window's status lines, the log) passes
through `scrub`, which replaces each registered secret, also as it appears
percent-encoded in a URL, by "***". A URL shown to the user is `hidden_url`.

Every form libpq takes a password in is covered: the URL's user information
(`postgresql://user:pass@host`, also with an unencoded `@` in the password: the
host part follows the last `@`), a query parameter (`?user=u&password=pass`,
`sslpassword=`, and the `passfile=` path), a key=value conninfo string
(`password=pass`, `password='quoted pass'`), the `PGPASSWORD` environment
variable and the passwords of the password file (`PGPASSFILE`, `~/.pgpass`).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from urllib.parse import quote, quote_plus

MASK = "***"
_SECRETS: set[str] = set()
# scheme://user:password@host...: the password runs to the last `@` whose host part
# (no `@`, up to the path, the query or the end) follows; libpq and SQLAlchemy differ
# on an unencoded `@`, so all of it up to that last one is masked. A scheme starts a word
# (the look-behind): else every letter of a long word is tried as a start, quadratic time.
_USERINFO = re.compile(r"(?P<scheme>(?<![a-zA-Z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*):(?P<password>[^\s]*?)@"
                       r"(?=[^@\s/?#]*(?:[/?#\s]|$))")
# A secret given as a parameter: in a URL's query (`&password=...`) or a conninfo
# string (`password = 'a b'`). An unquoted value runs to `&` or white space.
_SECRET_KEYS = ("password", "sslpassword", "passfile")


def _parameter(unquoted: str) -> re.Pattern:
    return re.compile(r"(?<![\w.-])(?P<key>" + "|".join(_SECRET_KEYS) + r")(?P<eq>\s*=\s*)"
                      r"(?P<value>'(?:[^'\\]|\\.)*'?|" + unquoted + ")", re.IGNORECASE)


# In a URL's query: to the next parameter, but a `)` (or several) at the very end is the one that
# closes a URL written in parentheses, not the password's ("(postgresql://h/db?password=pw)").
_PARAMETER = _parameter(r"[^\s&#'\"]+?(?=\)*(?:[\s&#'\"]|$))")
_CONNINFO = _parameter(r"[^\s'\"]+")  # in a conninfo string: to white space
_MIN_SECRET = 3  # a one- or two-letter "secret" would blank out ordinary words


def _add_secret(value: str | None) -> None:
    if not value:
        return
    from urllib.parse import unquote, unquote_plus

    for plain in {value, unquote(value), unquote_plus(value)}:
        for form in {plain, quote(plain, safe=""), quote_plus(plain)}:
            if len(form) >= _MIN_SECRET:
                _SECRETS.add(form)


def _conninfo_value(raw: str) -> str:
    """A conninfo value as libpq reads it: quotes removed, backslash escapes undone."""
    if raw.startswith("'"):
        return re.sub(r"\\(.)", r"\1", raw[1:-1] if raw.endswith("'") and len(raw) > 1 else raw[1:])
    return raw


def _pgpass_passwords(path: Path, target: dict[str, str | None]) -> list[str]:
    """The passwords of a libpq password file (host:port:database:user:password) on the
    lines that may serve `target` (its host, port, database, user; None: not known, so
    any): only those can reach the server and so a message, and a password of another
    server that happens to be a common word is not masked in every message."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return []
    passwords = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = re.split(r"(?<!\\):", line, maxsplit=4)
        if len(fields) != 5:
            continue
        fields = [re.sub(r"\\(.)", r"\1", field) for field in fields]
        if all(field == "*" or target.get(key) is None or field == target[key]
               for key, field in zip(("host", "port", "dbname", "user"), fields[:4])):
            passwords.append(fields[4])
    return passwords


def _target(url: str) -> dict[str, str | None]:
    """The host, port, database and user a URL connects to, as far as it says (one host)."""
    from urllib.parse import parse_qs, unquote, urlsplit

    if "://" not in url:
        pairs = dict(re.findall(r"(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", url))
        get = {key: _conninfo_value(value) for key, value in pairs.items()}.get
        return {"host": get("host"), "port": get("port"), "dbname": get("dbname"),
                "user": get("user") or os.environ.get("PGUSER")}
    try:
        parts = urlsplit(url)
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        hosts = (parts.hostname or query.get("host") or os.environ.get("PGHOST") or "")
        host = None if not hosts or "," in hosts or hosts.startswith("/") else hosts
        port = str(parts.port) if parts.port else query.get("port") or os.environ.get("PGPORT")
        user = unquote(parts.username) if parts.username else query.get("user") or os.environ.get("PGUSER")
        dbname = unquote(parts.path.lstrip("/")) or query.get("dbname") or os.environ.get("PGDATABASE")
    except ValueError:  # an unusual URL (several hosts with ports): every line may serve it
        return {}
    return {"host": host, "port": port, "dbname": dbname or None, "user": user}


def _register_environment(url: str, passfile: str | None = None) -> None:
    """PGPASSWORD and the password file's password for this URL: libpq sends them, so
    they are secrets too."""
    _add_secret(os.environ.get("PGPASSWORD"))
    files = {passfile, os.environ.get("PGPASSFILE")}
    files.add(str(Path("~/.pgpass").expanduser()) if os.name != "nt"
              else os.path.join(os.environ.get("APPDATA", ""), "postgresql", "pgpass.conf"))
    target = _target(url)
    for file in files:
        if file:
            for password in _pgpass_passwords(Path(os.path.expanduser(file)), target):
                _add_secret(password)


def register_url(url: str) -> str:
    """Remember the URL's (or conninfo string's) passwords, and those libpq would take
    from PGPASSWORD or a password file, as secrets; returns the URL with them hidden."""
    for match in _USERINFO.finditer(url):
        password = match.group("password")
        _add_secret(password)
        # An unencoded `@`: the driver reads the URL up to the first one, so an error
        # may name the rest as the host ("ss@db.example"): each piece is secret too.
        pieces = password.split("@")
        for i in range(1, len(pieces)):
            _add_secret("@".join(pieces[:i]))
            _add_secret("@".join(pieces[i:]))
    passfile = None
    for match in (_PARAMETER if "://" in url else _CONNINFO).finditer(url):
        value = _conninfo_value(match.group("value"))
        _add_secret(value)
        if match.group("key").lower() == "passfile":
            from urllib.parse import unquote

            passfile = unquote(value)
    if re.match(r"postgres(ql)?(\+\w+)?:", url) or "=" in url:
        _register_environment(url, passfile)
    return scrub(url)


def unencoded_at(url: str) -> bool:
    """Whether the URL's password holds an `@` not written as %40 (the driver then takes
    the rest of the password for the host)."""
    return any("@" in match.group("password") for match in _USERINFO.finditer(url))


def hidden_url(url: str) -> str:
    """The URL (or conninfo string) with every password replaced by ***."""
    url = _USERINFO.sub(lambda m: f"{m.group('scheme')}:{MASK}@", url)
    return _PARAMETER.sub(lambda m: f"{m.group('key')}{m.group('eq')}{MASK}", url)


def scrub(text: str) -> str:
    """`text` with every registered secret, the PGPASSWORD value and any password in a
    URL or conninfo string masked."""
    text = str(text)
    secrets = set(_SECRETS)
    pgpassword = os.environ.get("PGPASSWORD")
    if pgpassword and len(pgpassword) >= _MIN_SECRET:
        secrets.add(pgpassword)
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return hidden_url(text)


class ScrubFilter(logging.Filter):
    """A logging filter that scrubs each record's message (install on a handler)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = scrub(record.getMessage()), ()
        return True
