"""`reviewer suggest`: every mistake's suggested category and severity, with reasons."""

from __future__ import annotations

import argparse
import json

from reviewer.project import Project


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "suggest", help="every mistake of a run (or an imported review) with its suggested category and severity",
        description="The categoriser's answer for every mistake: one of the paper's four categories or 'no "
                    "explanation found', major or minor, the rule and the reasons, a confidence (docs/suggestions.md). "
                    "Where the panel (or a published review) decided the mistake, its answer is named beside. "
                    "A suggestion is never a vote: nothing is stored.")
    p.add_argument("project")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--run", type=int, metavar="N", help="the run (default: the newest)")
    which.add_argument("--review", metavar="NAME", help="an imported review, by its model's name (vit3b, ...)")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    p.set_defaults(func=run_suggest)


def run_suggest(args: argparse.Namespace) -> int:
    from reviewer.app.suggest import format_suggestions, suggest_mistakes
    from reviewer.cli import CommandError

    project = Project.open(args.project)
    try:
        result = suggest_mistakes(project, run_id=args.run, review=args.review)
    except KeyError as exc:
        raise CommandError(str(exc.args[0])) from None
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else format_suggestions(result))
    return 0
