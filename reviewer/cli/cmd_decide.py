"""`reviewer panel-status`, `decide`, `agreement`: where the panel stands, the
chair's decisions, and how much the panelists agree."""

from __future__ import annotations

import argparse
import json

from reviewer.project import Project
from reviewer.terms import Category, Severity, Verdict, values
from reviewer.wording import counted

PHASE_TITLES = {1: "Phase 1, correctness", 2: "Phase 2, severity and category"}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("panel-status", help="the panel's progress: per phase and per panelist")
    p.add_argument("project")
    p.add_argument("--items", action="store_true", help="also list every item with its phase and state")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run_status)

    p = subparsers.add_parser("decide", help="the chair locks the majority decisions (or overrides one)")
    p.add_argument("project")
    p.add_argument("--chair", metavar="NAME", help="the chair's name (default: your OS login name; on a panel "
                   "set up with 'reviewer panel-setup', your database role, which must hold the chair role)")
    p.add_argument("--unanimous-only", action="store_true",
                   help="lock only the unanimous items, leaving the split ones for the group's meeting")
    p.add_argument("--image", metavar="FILE", help="lock (or override) this one item only")
    p.add_argument("--predicted", metavar="CLASS",
                   help="the predicted class: index 0-999, wnid (n02109961) or class name ('Eskimo dog', any case)")
    p.add_argument("--override", action="store_true", help="set the decision below instead of the majority")
    p.add_argument("--verdict", choices=values(Verdict))
    p.add_argument("--problematic", action="store_true")
    p.add_argument("--severity", choices=[s.value for s in Severity.panel()])
    p.add_argument("--category", choices=values(Category))
    p.add_argument("--oov-name", metavar="NAME")
    p.add_argument("--reason", default="", help="why the chair overrides the majority (required with --override)")
    p.add_argument("--force", action="store_true", help="let a majority lock replace an earlier override of the "
                   "chair's (without it such items are left alone and listed)")
    p.set_defaults(func=run_decide)

    p = subparsers.add_parser("panel-rules", help="the panel's rules (blind review, unanimous is final, closed "
                                                  "panel): print them, or the chair sets them")
    p.add_argument("project")
    p.add_argument("--chair", metavar="NAME", help="the chair's name (default: your login name, or your database "
                                                   "role)")
    on_off = ("on", "off")
    p.add_argument("--blind", choices=on_off, help="on: nobody sees another's vote on an item before voting it "
                                                   "(or before it is decided), whatever their own setting")
    p.add_argument("--unanimous-final", choices=on_off, help="on (default, the paper's rule): a unanimous panel "
                                                             "decides without a meeting; off: the chair locks all")
    p.add_argument("--closed", choices=on_off, help="on: a new name cannot join by opening the project; the chair "
                                                    "adds panelists ('reviewer panelist PROJECT NAME')")
    p.set_defaults(func=run_rules)

    p = subparsers.add_parser("agreement", help="inter-rater agreement per field and phase, with 95%% intervals")
    p.add_argument("project")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000; 0: none)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (same seed, same intervals)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_agreement)


def run_status(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from reviewer.app.panel_status import panel_status

    result = panel_status(Project.open(args.project), items=args.items)
    if args.json:
        print(json.dumps({"panelists": [asdict(p) for p in result.panelists],
                          "scope": {"runs": None if result.scope_runs is None else list(result.scope_runs),
                                    "slice": result.scope_slice, "items": result.scope_items,
                                    "no_longer_mistakes_with_history": result.no_longer_mistakes,
                                    "outside_scope_with_history": result.outside_scope},
                          "standing": result.standing,
                          "phases": [asdict(r) for r in result.phases],
                          "items": [asdict(row) for row in result.items]}, indent=2))
        return 0
    panel = ", ".join(p.name + (" (chair)" if p.is_chair else "") for p in result.panelists) or "nobody yet"
    print(f"Panel: {panel}")
    print(f"Scope: {result.scope}, {result.scope_items:,} item{'' if result.scope_items == 1 else 's'} "
          "(the chair sets it: reviewer panel-scope)")
    kept = [f"{n:,} {what}" for n, what in ((result.no_longer_mistakes, "no longer mistakes under the current labels"),
                                          (result.outside_scope, "outside the scope")) if n]
    if kept:
        print(f"Not counted, their votes and decisions kept: {'; '.join(kept)}")
    if result.standing:
        from reviewer.panel.standing import Standing, describe_counts

        print(f"Items: {describe_counts({Standing(k): n for k, n in result.standing.items()})} (a verdict decided "
              "whose severity or category is split counts as disputed, in phase 2)")
    for r in result.phases:
        print(f"\n{PHASE_TITLES[r.phase]}: {r.items} item{'' if r.items == 1 else 's'}: {r.voting} being voted, "
              f"{r.awaits_group} awaiting the group, {r.decided} decided")
        for p in r.panelists:
            print(f"  {p.name:20} done {p.done:5}   to do {p.to_do:5}   awaiting the group {p.awaits_group:5}")
    if result.items:
        print("\nphase  state          predicted  image                            models")
        for row in result.items:
            print(f"  {row.phase}    {row.state:13}  {row.predicted:9}  {str(row.image):31}  {', '.join(row.models)}")
    return 0


def run_decide(args: argparse.Namespace) -> int:
    from reviewer.app import panel as acts
    from reviewer.errors import UserError
    from reviewer.panel.decisions import check_override

    one = args.override or args.image or args.predicted
    if args.override:
        if not args.verdict:
            raise UserError("--override needs the decision: --verdict (and for 'wrong' --severity, --category)")
        check_override(verdict=args.verdict, reason=args.reason, severity=args.severity, category=args.category)
    project, chair = Project.open(args.project), acts.ByName(args.chair)
    if one:
        item = acts.ItemName(args.image, args.predicted)
        if args.override:
            row = acts.override(project, chair_id=chair, item=item, verdict=args.verdict,
                                problematic=args.problematic, severity=args.severity, category=args.category,
                                oov_name=args.oov_name, reason=args.reason).value
        else:
            row = acts.lock(project, chair_id=chair, item=item, force=args.force).value
        print(f"decision {row.id} ({row.method}) on {args.image} predicted {row.predicted}: verdict {row.verdict}"
              + (f", {acts.shown_text(row.reason)}" if row.reason else ""))  # bounded, as show prints it
        return 0
    done = acts.lock_all(project, chair_id=chair, unanimous_only=args.unanimous_only, force=args.force)
    result = done.value
    counts: dict[str, int] = {}
    for row in result:
        counts[row.verdict] = counts.get(row.verdict, 0) + 1
    summary = ", ".join(f"{v} {n}" for v, n in sorted(counts.items())) or "nothing to lock"
    kind = "unanimous" if getattr(args, "unanimous_only", False) else "majority"
    print(f"{done.by} locked {counted(len(result), kind + ' decision')}: {summary}")
    for kept in result.kept:
        print(f"not locked: {kept}")
    return 0


def run_rules(args: argparse.Namespace) -> int:
    from reviewer.app.panel import ByName, panel_rules, set_panel_rules
    from reviewer.panel.rules import BLIND, PANEL_CLOSED, UNANIMOUS_FINAL

    changes = {key: value == "on" for key, value in ((BLIND, args.blind), (UNANIMOUS_FINAL, args.unanimous_final),
                                                     (PANEL_CLOSED, args.closed)) if value is not None}
    project = Project.open(args.project)
    if not changes:
        print(panel_rules(project).describe())
        return 0
    print(set_panel_rules(project, chair_id=ByName(args.chair), **changes).value.describe())
    return 0


def _cell(estimate) -> str:
    if estimate is None or estimate.value is None:
        return "-"
    if estimate.low is None:
        return f"{estimate.value:.3f}"
    return f"{estimate.value:.3f} [{estimate.low:.2f}, {estimate.high:.2f}]"


def run_agreement(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from reviewer.app.panel import agreement

    summary = agreement(Project.open(args.project), resamples=args.resamples, seed=args.seed)
    report, pairs = summary.report, list(summary.matrices.values())  # the fields in FIELDS order
    if args.json:
        print(json.dumps({"fields": [asdict(r) for r in report], "pairwise_kappa": [asdict(p) for p in pairs]},
                         indent=2))
        return 0
    print("phase  field        items  percent agreement        Krippendorff alpha (nominal)   "
          "alpha (ordinal)                Fleiss kappa                   Gwet's AC1")
    for r in report:
        print(f"  {r.phase}    {r.field:11} {r.items:6}  {_cell(r.percent):24} {_cell(r.alpha_nominal):30} "
              f"{_cell(r.alpha_ordinal):30} {_cell(r.fleiss_kappa):30} {_cell(r.gwet_ac1)}")
    print("(95% bootstrap intervals over items; Fleiss' kappa over the items every panelist voted; Gwet's AC1 "
          "stays meaningful where nearly every vote is alike and kappa collapses)")
    for p in pairs:
        print(f"\nCohen's kappa, {p.field}:")
        width = max([len(n) for n in p.names] + [6])
        print(" " * (width + 2) + "".join(f"{n[:8]:>9}" for n in p.names))
        for name, row in zip(p.names, p.kappa):
            print(f"  {name:{width}}" + "".join(f"{'-' if k is None else f'{k:.2f}':>9}" for k in row))
    return 0
