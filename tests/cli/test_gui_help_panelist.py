"""`reviewer gui --help` and `reviewer demo --help` say --panelist is used for the session and
not remembered, as the window does (issue 35, 9: the help said "(remembered)")."""

from __future__ import annotations

import pytest

from reviewer.cli import build_parser


@pytest.mark.parametrize("command", ["gui", "demo"])
def test_the_help_says_a_panelist_name_is_not_remembered(command):
    sub = build_parser()._subparsers._group_actions[0].choices[command]
    words = " ".join(sub.format_help().split())
    assert "(remembered)" not in words
    assert "for this session only (not remembered" in words
