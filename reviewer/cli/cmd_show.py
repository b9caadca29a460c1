"""`reviewer show`: everything the review page shows for one mistake, for scripts and support."""

from __future__ import annotations

import argparse
import json

from reviewer.project import Project


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "show", help="print everything the review page shows for one image and predicted class",
        description="Labels (original, multi-label, ReaL), WordNet, every run's top-5, the panel's votes, decisions "
                    "and notes (all of them, unless the chair made the panel blind: then others' votes show once you voted or "
                    "the item is decided), the evidence sources and the zoom probe.")
    p.add_argument("project")
    p.add_argument("--image", required=True, metavar="FILE", help="the image's file name (or its number)")
    p.add_argument("--predicted", required=True, metavar="CLASS",
                   help="the predicted class: index 0-999, wnid (n02109961) or class name ('Eskimo dog', any case)")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    p.add_argument("--panelist", "--reviewer", metavar="NAME", help="who is looking (default: your login name, or your database "
                   "role): under the panel's blind rule, others' votes show once you voted or the item is decided")
    p.set_defaults(func=run_show)


def run_show(args: argparse.Namespace) -> int:
    from reviewer.app.show import format_record, show_mistake

    project = Project.open(args.project)
    record = show_mistake(project, image=args.image, predicted=args.predicted, viewer=args.panelist)
    print(json.dumps(record, indent=2, ensure_ascii=False) if args.json else format_record(record))
    return 0
