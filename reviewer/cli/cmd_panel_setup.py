"""`reviewer panel-setup`: each panelist their own PostgreSQL role (see reviewer.panel.roles)."""

from __future__ import annotations

import argparse
import sys

from reviewer.project import Project


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "panel-setup", help="PostgreSQL: make each panelist a database role; the server then refuses acts under "
                            "another's name and changes to the history",
        description="Run as the owner of the project's database. Creates the panel's roles and grants, turns on "
                    "row-level security for votes, notes and decisions, and records the panel (one chair). Each "
                    "panelist then connects as their own role: leave the user out of the URL in project.json and "
                    "set PGUSER (and the password in ~/.pgpass). Safe to run again, e.g. to add a panelist.")
    p.add_argument("project")
    p.add_argument("--chair", required=True, metavar="ROLE", help="the chair's role (locks and overrides decisions)")
    p.add_argument("--panelist", action="append", default=[], metavar="ROLE",
                   help="a panelist's role (repeat for each; the chair need not be repeated)")
    p.add_argument("--revoke", action="append", default=[], metavar="ROLE",
                   help="take a panelist off the panel (their history stays; they can no longer write)")
    p.add_argument("--print-sql", action="store_true", help="print the SQL it would run and run nothing")
    p.set_defaults(func=run_panel_setup)


def run_panel_setup(args: argparse.Namespace) -> int:
    from reviewer.app.roles import set_up_roles

    project = Project.open(args.project)
    setup = set_up_roles(project, chair=args.chair, panelists=args.panelist, revoke=args.revoke,
                         print_only=args.print_sql).value
    if args.print_sql:
        print(";\n".join(setup.statements) + ";")
        return 0
    print(f"panel of {project.root.name}: chair {setup.chair}; panelists {', '.join(setup.panelists)}"
          + (f"; revoked {', '.join(setup.revoked)}" if setup.revoked else ""))
    print(f"each panelist connects as their role: PGUSER=ROLE reviewer gui {project.root}  "
          "(set passwords with ALTER ROLE ROLE PASSWORD ..., kept in each panelist's ~/.pgpass)")
    for gap in setup.left_open:  # docs/panel.md, "What the server enforces"
        print(f"warning: {gap}", file=sys.stderr)
    return 0
