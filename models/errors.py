"""Errors of the model layer whose message is meant for the user.

`models/` sits below `reviewer/`, so it cannot raise `reviewer.errors.InputError`;
the domain turns a `ModelInputError` into one (same source, problem and hint).
"""

from __future__ import annotations


class ModelInputError(ValueError):
    """A model name, checkpoint, device or score file that cannot be used."""

    def __init__(self, source: str, problem: str, *, hint: str | None = None):
        self.source, self.problem, self.hint = source, problem, hint
        message = f"{source}: {problem}"
        if hint:
            message += f" ({hint})"
        super().__init__(message)
