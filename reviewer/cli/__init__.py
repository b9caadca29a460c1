"""The `reviewer` command line. Each `cmd_*.py` module in this package adds
one or more subcommands through `register(subparsers)`; they are found by name
so that commands can be added without touching this file."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from reviewer import __version__


class CommandError(RuntimeError):
    """A user-facing error: printed without a traceback, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewer",
        description="Find, review and fix the remaining mistakes of image classifiers on ImageNet.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("cmd_"):
            importlib.import_module(f"{__name__}.{info.name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 1
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # user-facing errors of the domain carry their own message
        from reviewer.errors import UserError

        if isinstance(exc, UserError):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        raise
