"""The `reviewer` command line. Each `cmd_*.py` module in this package adds
one or more subcommands through `register(subparsers)`; they are found by name
so that commands can be added without touching this file."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from reviewer import __version__
from reviewer.redact import scrub


class CommandError(RuntimeError):
    """A user-facing error: printed without a traceback, exit status 2."""


# Help lists the commands in the order of the work: make a project, run models,
# review, report and export. Modules not named here follow alphabetically.
COMMAND_ORDER = ("cmd_gui", "cmd_init", "cmd_predict", "cmd_report", "cmd_panel", "cmd_decide", "cmd_export")

EPILOG = """\
a first look:   reviewer demo
a project:      reviewer init myproject --images DIR --labels FILE ...
                reviewer predict myproject --model tf_efficientnet_lite0
                reviewer report myproject
                reviewer gui myproject

'reviewer COMMAND --help' describes a command's options."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewer",
        description="Find, review and fix the remaining mistakes of image classifiers on ImageNet.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    names = [m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("cmd_")]
    rank = {name: i for i, name in enumerate(COMMAND_ORDER)}
    for name in sorted(names, key=lambda n: (rank.get(n, len(rank)), n)):
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


def _scrubbed_excepthook(kind, value, tb) -> None:
    """An uncaught error's traceback, with any database password masked."""
    import traceback

    sys.stderr.write(scrub("".join(traceback.format_exception(kind, value, tb))))


def main(argv: list[str] | None = None) -> int:
    sys.excepthook = _scrubbed_excepthook
    try:
        # The commands' modules load here (a second or two): Ctrl+C meanwhile is no traceback.
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    if not getattr(args, "func", None):
        parser.print_help()
        return 1
    args.whole_process = argv is None  # this call is the process (the `reviewer` command), not a caller's
    try:
        if getattr(args, "project", None) and not getattr(args, "creates_project", False):
            from reviewer.project import check_project_folder

            # A wrong path is answered before the command loads its libraries (torch, timm,
            # SQLAlchemy, matplotlib: seconds), whatever the command.
            check_project_folder(args.project)
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # The reader went away (`reviewer split ... | head`): not an error of ours.
        # Point stdout at /dev/null so Python's flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except CommandError as exc:
        print(f"error: {scrub(str(exc))}", file=sys.stderr)
        return 2
    except Exception as exc:  # user-facing errors of the domain carry their own message
        from reviewer.errors import UserError

        if isinstance(exc, UserError):  # first: the others need SQLAlchemy loaded (half a second)
            print(f"error: {scrub(str(exc))}", file=sys.stderr)
            return 2
        from db.engine import LockTimeout, lock_timeout_error

        if isinstance(exc, LockTimeout) or lock_timeout_error(exc) is not None:  # a lock held past its wait
            print(f"error: {exc if isinstance(exc, LockTimeout) else lock_timeout_error(exc)}", file=sys.stderr)
            return 2
        from reviewer.project import connection_lost_error, damage_error, refusal_error, value_error

        damaged = damage_error(exc, getattr(args, "project", None))
        if damaged is not None:  # a read of a damaged database: say so, not a traceback
            print(f"error: {damaged}", file=sys.stderr)
            return 2
        # A write the database refused by privilege (an owner's command run as a panelist's
        # role), or a connection cut mid-act, outside Project.write: as clear as inside it.
        clear = refusal_error(exc) or connection_lost_error(exc) or value_error(exc)
        if clear is not None:
            print(f"error: {scrub(str(clear))}", file=sys.stderr)
            return 2
        raise
