"""`reviewer panel-scope`: which runs' mistakes the panel reviews (the chair's choice)."""

from __future__ import annotations

import argparse
import json

from reviewer.project import Project


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "panel-scope", help="which runs' mistakes the panel reviews (the chair chooses; default every run)",
        description="Without options: the scope in force, its items (a mistake several scoped runs made is one "
                    "item) and what each run adds. With options the chair sets it; the to-do counts, the progress "
                    "strip, panel-status, the meeting and the export then cover the scope only. Votes and "
                    "decisions on items outside it are kept.")
    p.add_argument("project")
    p.add_argument("--runs", type=int, nargs="+", metavar="RUN", help="the panel reviews these runs' mistakes")
    p.add_argument("--add", type=int, nargs="+", default=[], metavar="RUN", help="add runs to the scope in force")
    p.add_argument("--remove", type=int, nargs="+", default=[], metavar="RUN",
                   help="take runs out of the scope in force")
    p.add_argument("--all", action="store_true", help="every run (the default scope)")
    p.add_argument("--slice", metavar="NAME", help="only the mistakes on this slice's images")
    p.add_argument("--no-slice", action="store_true", help="the mistakes on every image")
    p.add_argument("--chair", "--panelist", dest="chair", metavar="NAME",
                   help="who sets it (the chair; default: your login name)")
    p.add_argument("--json", action="store_true", help="print the scope as JSON")
    p.set_defaults(func=run_scope)


def run_scope(args: argparse.Namespace) -> int:
    from reviewer.app.panel import ByName
    from reviewer.app.scope import panel_scope, set_panel_scope

    project = Project.open(args.project)
    setting = args.runs is not None or args.add or args.remove or args.all or args.slice or args.no_slice
    if setting:
        change = set_panel_scope(project, chair_id=ByName(args.chair), runs=args.runs, add=args.add,
                                 remove=args.remove, image_slice=args.slice, keep_slice=not args.no_slice,
                                 every_run=args.all).value
        view = change.after
        if not args.json:
            print("\n".join(change.lines()))
    else:
        view = panel_scope(project)
        if not args.json:
            print(f"the panel reviews {view.describe()}: {view.items:,} item{'s' if view.items != 1 else ''}")
    if args.json:
        print(json.dumps({"runs": None if view.scope.runs is None else list(view.scope.runs),
                          "slice": view.scope.image_slice, "items": view.items,
                          "per_run": [{"run": r.run_id, "model": r.model, "status": r.status, "in_scope": r.in_scope,
                                       "mistakes": r.mistakes, "only_this_run": r.only_here} for r in view.runs]},
                         indent=2))
        return 0
    if view.runs:
        print("run  model                           mistakes  only this run  in scope")
        for r in view.runs:
            print(f"#{r.run_id:<3} {r.model[:31]:<31} {r.mistakes:>8,}  {r.only_here:>13,}  "
                  f"{'yes' if r.in_scope else 'no'}")
    return 0
