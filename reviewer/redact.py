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


_PARAMETER = _parameter(r"[^\s&#'\"]+")  # in a URL's query: to the next parameter
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


def _pgpass_passwords(path: Path) -> list[str]:
    """The password field of each line of a libpq password file (host:port:db:user:password)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return []
    passwords = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = re.split(r"(?<!\\):", line, maxsplit=4)
        if len(fields) == 5:
            passwords.append(re.sub(r"\\(.)", r"\1", fields[4]))
    return passwords


def _register_environment(passfile: str | None = None) -> None:
    """PGPASSWORD and the password file's passwords: libpq sends them, so they are secrets too."""
    _add_secret(os.environ.get("PGPASSWORD"))
    files = {passfile, os.environ.get("PGPASSFILE")}
    files.add(str(Path("~/.pgpass").expanduser()) if os.name != "nt"
              else os.path.join(os.environ.get("APPDATA", ""), "postgresql", "pgpass.conf"))
    for file in files:
        if file:
            for password in _pgpass_passwords(Path(os.path.expanduser(file))):
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
        _register_environment(passfile)
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
