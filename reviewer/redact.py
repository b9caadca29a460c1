"""Secrets never appear in a message or a log.

A project's database URL may carry a password, written out or as `$VAR` that
the environment expands. When a project connects it registers the password
here (`register_url`); every message the user reads (the command line's
errors, uncaught tracebacks, the window's status lines, the log) passes
through `scrub`, which replaces each registered secret, also as it appears
percent-encoded in a URL, by "***". A URL shown to the user is `hidden_url`.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import quote, quote_plus

MASK = "***"
_SECRETS: set[str] = set()
_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*):(?P<password>[^@\s]+)@")


def register_url(url: str) -> str:
    """Remember the URL's password as a secret; returns the URL with it hidden."""
    match = _USERINFO.search(url)
    if match:
        from urllib.parse import unquote

        password = match.group("password")
        for form in {password, unquote(password), quote(unquote(password), safe=""), quote_plus(unquote(password))}:
            if len(form) >= 3:  # a one- or two-letter "secret" would blank out ordinary words
                _SECRETS.add(form)
    return hidden_url(url)


def hidden_url(url: str) -> str:
    """The URL with any password replaced by ***."""
    return _USERINFO.sub(lambda m: f"{m.group('scheme')}:{MASK}@", url)


def scrub(text: str) -> str:
    """`text` with every registered secret, and any password in a URL, masked."""
    text = hidden_url(str(text))
    for secret in sorted(_SECRETS, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


class ScrubFilter(logging.Filter):
    """A logging filter that scrubs each record's message (install on a handler)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = scrub(record.getMessage()), ()
        return True
