"""Errors whose message is meant for the user: it names the input and what to do."""

from __future__ import annotations


class UserError(RuntimeError):
    """Base of the errors the CLI and GUI show as they are, without a traceback."""


class InputError(UserError):
    """Malformed or missing input: a label file, an image, a checkpoint, ..."""

    def __init__(self, source: str, problem: str, *, record: str | None = None, hint: str | None = None):
        self.source, self.problem, self.record, self.hint = source, problem, record, hint
        where = f"{source}" + (f", record {record}" if record else "")
        message = f"{where}: {problem}"
        if hint:
            message += f" ({hint})"
        super().__init__(message)
