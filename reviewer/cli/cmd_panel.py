"""`reviewer panelist`, `vote`, `reopen`, `note`: a panelist's acts from the command line.

`vote --batch FILE` (or `-` for stdin) casts one vote per CSV row, all in one
transaction, and prints each vote's id and key once it is committed. Every row
has a key: its `key` cell, or the file's content hash and the row's line. A key
already recorded for the panelist is not recorded again (it is printed as
"already recorded"), so a batch sent again after a crash, even one killed after
its commit and before its output, records every row exactly once.
"""

from __future__ import annotations

import argparse
import csv
import sys

from reviewer.cli.progress import working
from reviewer.project import Project
from reviewer.terms import Category, Severity, Verdict, values
from reviewer.wording import counted

VOTE_COLUMNS = ("image", "predicted", "verdict", "problematic", "severity", "category", "oov_name", "note")
BATCH_COLUMNS = (*VOTE_COLUMNS, "key")  # key: optional, the row's own idempotency key
PANELIST_HELP = ("the panelist acting (default: your OS login name; on a panel set up with 'reviewer panel-setup' "
                 "you act as your database role and this may be left out)")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("panelist", help="add a panelist to a project (or make one the chair)")
    p.add_argument("project")
    p.add_argument("name")
    chair = p.add_mutually_exclusive_group()
    chair.add_argument("--chair", dest="chair", action="store_true", default=None,
                       help="this panelist chairs: locks and overrides final decisions")
    chair.add_argument("--no-chair", dest="chair", action="store_false")
    p.set_defaults(func=run_panelist)

    p = subparsers.add_parser("vote", help="cast, change or undo a panelist's vote on a mistake")
    p.add_argument("project")
    p.add_argument("--panelist", "--reviewer", metavar="NAME", help=PANELIST_HELP)
    p.add_argument("--image", metavar="FILE", help="image file name, e.g. ILSVRC2012_val_00000001.JPEG")
    p.add_argument("--predicted", metavar="CLASS",
                   help="the predicted class: index 0-999, wnid (n02109961) or class name ('Eskimo dog', any case)")
    p.add_argument("--verdict", choices=values(Verdict))
    flag = p.add_mutually_exclusive_group()
    flag.add_argument("--problematic", dest="problematic", action="store_true", default=None,
                      help="flag the image as problematic")
    flag.add_argument("--not-problematic", dest="problematic", action="store_false")
    p.add_argument("--severity", choices=[s.value for s in Severity.panel()])
    p.add_argument("--category", choices=values(Category))
    p.add_argument("--oov-name", metavar="NAME", help="the out-of-vocabulary object (category fine_grained_oov)")
    p.add_argument("--note", help="the panelist's note on this vote")
    p.add_argument("--batch", metavar="CSV", help="cast one vote per row of a CSV file ('-': stdin) with "
                                                  f"columns {','.join(BATCH_COLUMNS)} (image, predicted "
                                                  "required; a row whose key is recorded already is skipped)")
    p.add_argument("--undo", action="store_true", help="undo the panelist's latest vote")
    p.set_defaults(func=run_vote)

    p = subparsers.add_parser("reopen", help="the chair puts a decided mistake (or one judged wrong before) back to "
                                             "the correctness vote")
    _item_arguments(p)
    p.add_argument("--reason", required=True, help="why (kept in the item's history)")
    p.set_defaults(func=run_reopen)

    p = subparsers.add_parser("note", help="add a discussion note on a mistake")
    _item_arguments(p)
    p.add_argument("text")
    p.set_defaults(func=run_note)



def _item_arguments(p: argparse.ArgumentParser) -> None:
    """The project, the panelist acting and the item (image, predicted class) acted on."""
    p.add_argument("project")
    p.add_argument("--panelist", "--reviewer", metavar="NAME", help=PANELIST_HELP)
    p.add_argument("--image", required=True, metavar="FILE", help="the image's file name")
    p.add_argument("--predicted", required=True, metavar="CLASS",
                   help="the predicted class: index 0-999, wnid (n02109961) or class name ('Eskimo dog', any case)")


def run_panelist(args: argparse.Namespace) -> int:
    from reviewer.app.panel import add_panelist

    row = add_panelist(Project.open(args.project), args.name, chair=args.chair).value
    print(f"panelist {row.name} (id {row.id})" + (", chair" if row.is_chair else ""))
    return 0


def _fields(values: dict) -> dict:
    """Vote fields given (None: not given, leave as is); '' in a CSV cell means not given."""
    from reviewer.errors import UserError

    out = {}
    for key in ("verdict", "severity", "category", "oov_name", "note"):
        if values.get(key) not in (None, ""):
            out[key] = values[key]
    flag = values.get("problematic")
    if isinstance(flag, bool):
        out["problematic"] = flag
    elif flag not in (None, ""):
        text = str(flag).strip().lower()
        if text not in ("yes", "no", "true", "false", "1", "0"):
            raise UserError(f"problematic must be yes or no, not {flag!r}")
        out["problematic"] = text in ("yes", "true", "1")
    return out


def _describe(fields: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in fields.items() if k != "note") or "note"


def _read_batch(source: str) -> list:
    """Every row of the CSV as a vote of a batch (`reviewer.app.panel.BatchVote`), its cells
    and keys checked here, its item and fields by the act before any vote is cast."""
    import hashlib
    import io

    from reviewer.errors import InputError

    name = "stdin" if source == "-" else source
    try:
        # Bytes, decoded here as UTF-8; utf-8-sig: Excel's "CSV UTF-8" starts with a byte-order mark.
        if source == "-":
            stdin = getattr(sys.stdin, "buffer", None)
            data = stdin.read() if stdin is not None else sys.stdin.read().encode("utf-8")
            text = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it
        else:
            with open(source, "rb") as handle:
                text = handle.read().decode("utf-8-sig")
    except OSError as exc:
        raise InputError(name, f"cannot read it ({exc.strerror})") from None
    except UnicodeError:  # binary data, another encoding, a lone surrogate
        raise InputError(name, "is not UTF-8 text (binary data, or another encoding)",
                         hint="save it as UTF-8 CSV; nothing was recorded") from None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]  # the same file: the same keys
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        rows = _checked_rows(name, reader, digest)
    except csv.Error as exc:  # a cell past the csv module's limit (131,072 characters), a NUL, ...
        limit = csv.field_size_limit()
        why = (f"a cell longer than {limit:,} characters (a note that long belongs in a file of its own)"
               if "field larger than field limit" in str(exc) else f"not readable as CSV ({exc})")
        raise InputError(name, why, record=f"line {reader.line_num}",
                         hint="nothing of this file was recorded") from None
    return rows


def _checked_rows(name: str, reader: csv.DictReader, digest: str) -> list:
    from reviewer.app.panel import BatchVote, ItemName
    from reviewer.errors import InputError, UserError

    unknown = set(reader.fieldnames or ()) - set(BATCH_COLUMNS)
    if not reader.fieldnames or {"image", "predicted"} - set(reader.fieldnames) or unknown:
        raise InputError(name, f"the header must name image, predicted and any of {', '.join(BATCH_COLUMNS[2:])}"
                         + (f" (unknown: {', '.join(sorted(unknown))})" if unknown else ""))
    rows, keys = [], {}
    for number, row in enumerate(reader, start=2):
        try:
            if None in row:  # csv puts surplus cells under None
                raise UserError(f"{len(row[None])} more cell(s) than the header's {len(reader.fieldnames)} "
                                "columns (a comma inside a note needs the note in double quotes)")
            if None in row.values():
                raise UserError(f"fewer cells than the header's {len(reader.fieldnames)} columns")
            key = (row.get("key") or "").strip() or f"{digest}:{number}"
            if len(key) > 200:
                raise UserError("a key is at most 200 characters")
            if key in keys:
                raise UserError(f"key {key!r} is on line {keys[key]} too: every row needs its own")
            keys[key] = number
            fields = _fields(row)
            if not fields:
                raise UserError("nothing to vote on this row: give a verdict, problematic, severity, "
                                "category, oov_name or note")
        except UserError as exc:
            raise InputError(name, str(exc), record=f"line {number}",
                             hint="nothing of this file was recorded") from None
        rows.append(BatchVote(ItemName(row["image"], row["predicted"]), fields, key=key, where=f"line {number}"))
    return rows


def run_vote(args: argparse.Namespace) -> int:
    """One act (`reviewer.app.panel.vote`, `vote_batch` or `undo`), one unit of work: the
    names are resolved and the votes cast in one transaction, so a batch is recorded whole
    or not at all (a failure on its last row leaves nothing)."""
    from reviewer.app import panel as acts
    from reviewer.errors import UserError
    from reviewer.panel.votes import check_fields

    given = [f"--{name.replace('_', '-')}" for name in ("image", "predicted", *VOTE_COLUMNS[2:])
             if getattr(args, name, None) is not None]
    if (args.undo or args.batch) and (given or (args.undo and args.batch)):
        mode = "--undo" if args.undo else "--batch"
        raise UserError(f"{mode} takes no other vote options (got {', '.join(given or ['--batch'])}): "
                        + ("it undoes your latest vote" if args.undo else "the file gives every vote"))
    fields = _fields(vars(args))
    if not (args.undo or args.batch):
        check_fields(**{k: fields.get(k) for k in ("verdict", "severity", "category")})
        if not fields:
            raise UserError("nothing to vote: give --verdict, --problematic, --severity, --category, --oov-name "
                            "or --note (or --undo)")
    batch = _read_batch(args.batch) if args.batch else None
    project = Project.open(args.project)
    who = acts.ByName(args.panelist)
    if args.undo:
        done = acts.undo(project, panelist_id=who)
        row = done.value
        print(f"undone: vote {row.undoes} of {done.by} (new row {row.id})" if row else "nothing to undo")
        return 0
    if batch is None:
        done = acts.vote(project, panelist_id=who, item=acts.ItemName(args.image, args.predicted), **fields)
        print(f"vote {done.value.id}: {done.by} on {args.image} predicted {done.value.predicted}: {_describe(fields)}")
        return 0

    with working("vote", "checking the batch") as progress:
        def starting(to_record: int, recorded: int, name: str | None) -> None:
            progress.say(f"recording {counted(to_record, 'vote')} of {name} in one transaction"
                         + (f" ({counted(recorded, 'row')} recorded already)" if recorded else ""))
            progress("recording", 0, 0)

        done = acts.vote_batch(project, panelist_id=who, votes=batch,
                               source="stdin" if args.batch == "-" else args.batch, starting=starting)
    for vote, cast in zip(batch, done.value):  # printed once committed: a printed vote is recorded
        if cast.vote is None:
            print(f"already recorded [{vote.key}]: vote {cast.recorded_before}", flush=True)
        else:
            print(f"vote {cast.vote.id} [{vote.key}]: {done.by} on {vote.item.image} predicted {cast.item.predicted}: "
                  f"{_describe(vote.fields)}", flush=True)
    return 0


def run_reopen(args: argparse.Namespace) -> int:
    from reviewer.app.panel import ByName, ItemName, reopen_item

    row = reopen_item(Project.open(args.project), panelist_id=ByName(args.panelist),
                      item=ItemName(args.image, args.predicted), reason=args.reason).value
    print(f"reopened {args.image} predicted {row.predicted}: it needs every panelist's verdict again")
    return 0


def run_note(args: argparse.Namespace) -> int:
    from reviewer.app.panel import ByName, ItemName, note

    done = note(Project.open(args.project), panelist_id=ByName(args.panelist),
                item=ItemName(args.image, args.predicted), text=args.text)
    print(f"note {done.value.id} by {done.by} on {args.image} predicted {done.value.predicted}")
    return 0
