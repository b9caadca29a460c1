"""What `--help` promises is what the commands do (issue 24)."""

from __future__ import annotations

from reviewer.cli import build_parser
from reviewer.panel.lookup import resolve_class


def test_every_predicted_option_says_a_class_name_works_too():
    """`show --help` said --predicted takes an index or a wnid, though every command takes
    a class name as well (reviewer.panel.lookup.resolve_class)."""
    commands = build_parser()._subparsers._group_actions[0].choices
    with_predicted = {name: sub for name, sub in commands.items()
                      if any("--predicted" in a.option_strings for a in sub._actions)}
    assert {"show", "vote", "evidence"} <= set(with_predicted)
    for name, sub in with_predicted.items():
        words = " ".join(sub.format_help().split())
        assert "wnid" in words and "name" in words, name
    assert resolve_class("eskimo dog") == resolve_class("n02109961") == resolve_class("248") == 248
