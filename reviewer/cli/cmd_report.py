"""`reviewer report`: every run and imported review with its metrics."""

from __future__ import annotations

import argparse
import json
import math

from reviewer.project import Project


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("report", help="metrics of every run and imported review of a project")
    p.add_argument("project")
    p.add_argument("--json", action="store_true", help="print the machine-readable JSON (keys in the README)")
    p.set_defaults(func=run_report)


def _pct(score: dict | None) -> str:
    if not score or score["value"] is None or (isinstance(score["value"], float) and math.isnan(score["value"])):
        return "   -  "
    return f"{100 * score['value']:6.2f}"


def _finite(value):
    """NaN (nothing evaluated) becomes null: NaN is not JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def run_report(args: argparse.Namespace) -> int:
    from reviewer.summary import project_summary

    summary = project_summary(Project.open(args.project))
    if args.json:
        print(json.dumps(_finite(summary), indent=2, default=str))
        return 0
    p = summary["project"]
    print(f"Project {p['name']}: {p['images']} images ({p['images_with_files']} with files), "
          f"{p['evaluable']} evaluable, {p['problematic']} problematic")
    if summary["runs"]:
        print("\nRuns                                   top-1    MLA  MLA-org MLA-obj  ReaL  mistakes (novel)")
        for run in summary["runs"]:
            m = run["metrics"] or {}
            mla = m.get("mla", {})
            print(f"  #{run['id']:<3} {run['model'][:30]:30} {_pct(m.get('top1'))} {_pct(mla.get('all'))} "
                  f"{_pct(mla.get('organisms'))} {_pct(mla.get('objects'))} {_pct(m.get('real'))}  "
                  f"{run['mistakes']['total']} ({run['mistakes']['novel']})"
                  + ("" if run["status"] == "complete" else f"  [{run['status']}]"))
    for review in summary["imported_reviews"]:
        print(f"\nImported review of {review['model']}: {review['items']} reviewed mistakes")
        for group in ("categories", "severities"):
            cells = ", ".join(f"{k} {v['count']} ({100 * v['share']:.1f}%)" for k, v in review[group].items()
                              if v["count"])
            print(f"  {group}: {cells}")
    return 0
