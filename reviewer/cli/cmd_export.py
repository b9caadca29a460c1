"""`reviewer export`, `export-reviews`, `split`, `leaderboard`: what the review produces."""

from __future__ import annotations

import argparse
import sys

from reviewer.app.split import DEFAULT_K
from reviewer.cli.progress import working
from reviewer.project import Project


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("export", help="export the labels after review into a new versioned folder "
                                             "(TFDS multilabel layout, flat CSV/Parquet, reviewed mistakes, manifest)")
    p.add_argument("project", help="the project folder")
    p.add_argument("out_dir", help="folder to create the export-NNNN folder in")
    p.add_argument("--format", default="json,csv", help="comma-separated: json, csv, parquet (default json,csv)")
    p.add_argument("--split", default="imagenet_m", metavar="SLICE",
                   help="slice written as 'imagenet_m' (default: the slice named imagenet_m)")
    p.set_defaults(func=run_export)

    p = subparsers.add_parser("export-reviews", help="one model's reviewed mistakes in the imagenet-mistakes "
                                                     "format (image -> top_prediction, failure category, severity)")
    p.add_argument("project", help="the project folder")
    p.add_argument("out", help="JSON file to write")
    p.add_argument("--model", required=True)
    p.set_defaults(func=run_export_reviews)

    p = subparsers.add_parser(
        "export-probabilities", help="a run's full softmax as .npz (file_names, probabilities) for a notebook",
        description="Write a run's stored probabilities (float16, one row per predicted image, rows sorted by "
                    "file name) with the file name of each row: numpy.load reads it, and 'reviewer "
                    "import-logits' imports it back.")
    p.add_argument("project", help="the project folder")
    p.add_argument("run", type=int, help="the run's id ('reviewer report PROJECT' lists them)")
    p.add_argument("out", help="the .npz file to write")
    p.set_defaults(func=run_export_probabilities)

    p = subparsers.add_parser(
        "split", help="the major-error split (ImageNet-M, Vasudevan et al. 2022, 5.1): the anchor's major "
                      "mistakes where at least k of the given runs or reviews made a major mistake",
        description="Candidates are the anchor's mistakes rated major; an image is kept where at least k of the "
                    "members made a mistake rated major, none of their mistakes there was judged a correct or "
                    "unclear label, none is rated minor (Borderline counts as minor), and all are reviewed.")
    p.add_argument("project", help="the project folder")
    p.add_argument("--runs", nargs="+", required=True, metavar="RUN",
                   help="run ids, model names (their latest full run, else imported review), run:ID or review:ID")
    p.add_argument("--k", type=int, default=None,
                   help=f"how many of them must have made a major mistake (default {DEFAULT_K}, at most the "
                        "number of --runs)")
    p.add_argument("--anchor", metavar="RUN",
                   help="the member whose major mistakes are the candidates (default: the first of --runs)")
    p.add_argument("--show", choices=["selected", "needs-review", "excluded", "none"], default="needs-review",
                   help="which images to list (default: those needing a final review)")
    p.add_argument("--save", metavar="SLICE", help="store the selected images as this slice")
    p.add_argument("--replace", action="store_true", help="with --save: replace an existing slice of that name")
    p.add_argument("--export", metavar="FILE", help="write the rule and every candidate image to this JSON file")
    p.set_defaults(func=run_split)

    p = subparsers.add_parser("leaderboard", help="every run's top-1, MLA and score on a slice with a 95%% interval")
    p.add_argument("project", help="the project folder")
    p.add_argument("--slice", default="imagenet_m")
    p.add_argument("--plot", metavar="PNG", help="also draw the slice score against top-1 into this file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_leaderboard)


def run_export(args: argparse.Namespace) -> int:
    with working("export", "loading"):
        from reviewer.app.export import export_project, export_summary

        result = export_project(Project.open(args.project), args.out_dir, formats=args.format, split=args.split).value
    # The summary File > Export shows, line by line (reviewer.app.export.export_summary).
    summary = export_summary(result, split=args.split, split_option="--split")
    print(summary.headline)
    for line in summary.lines:
        print(f"  {line}")
    return 0


def run_export_reviews(args: argparse.Namespace) -> int:
    from reviewer.app.export import export_reviews

    result = export_reviews(Project.open(args.project), args.model, args.out).value
    print(f"wrote {len(result.records)} reviewed mistakes of {args.model} to {args.out}")
    if result.incomplete:
        print(f"  left out {len(result.incomplete)} decided mistakes without a category or severity "
              f"(e.g. {result.incomplete[0]})")
    if result.duplicates:
        print(f"  left out {len(result.duplicates)} second predictions on an image (the format holds one)")
    return 0


def run_export_probabilities(args: argparse.Namespace) -> int:
    from reviewer.app.export import export_probabilities

    result = export_probabilities(Project.open(args.project), args.run, args.out).value
    print(f"wrote the probabilities of run {args.run} ({result.model}) for {result.images} images to {result.path}")
    return 0


def run_split(args: argparse.Namespace) -> int:
    from reviewer.app.split import apply_split
    from reviewer.evaluation.split import (
        EXCLUDED,
        EXCLUDED_MINOR,
        EXCLUDED_PROBLEMATIC,
        NEEDS_REVIEW,
        NOT_CANDIDATE,
        NOT_ENOUGH,
        SELECTED,
    )

    outcome = apply_split(Project.open(args.project), runs=args.runs, k=args.k, anchor=args.anchor, save=args.save,
                          replace=args.replace, export=args.export).value
    result, size = outcome.result, outcome.saved
    rule = result.rule
    counts = result.counts()
    print(f"rule: candidates are the major mistakes of {rule.anchor_member.label}; kept where at least {rule.k} of "
          f"{len(rule.members)} ({', '.join(m.label for m in rule.members)}) made a major mistake, none judged a "
          "correct or unclear label, none minor")
    candidates = sum(n for status, n in counts.items() if status != NOT_CANDIDATE)
    print(f"  of {candidates} candidates: {counts[SELECTED]} selected, {counts[NEEDS_REVIEW]} need a final review, "
          f"{counts[EXCLUDED]} excluded (a correct or unclear new label), {counts[EXCLUDED_MINOR]} excluded (a minor "
          f"mistake), {counts[EXCLUDED_PROBLEMATIC]} excluded (ground truth problematic), {counts[NOT_ENOUGH]} below "
          f"k; {counts[NOT_CANDIDATE]} other images with a member's mistake are not candidates")
    status = {"selected": [SELECTED], "needs-review": [NEEDS_REVIEW],
              "excluded": [EXCLUDED, EXCLUDED_MINOR, EXCLUDED_PROBLEMATIC]}.get(args.show, [])
    shown = result.table[result.table["status"].isin(status)]
    for row in shown.itertuples(index=False):
        print(f"  {row.file_name}  major {row.major}, unreviewed {row.unreviewed}, {row.status}")
    if args.save:
        print(f"saved {size} images as slice '{args.save}'")
    if args.export:
        print(f"wrote the split and its candidates to {args.export}")
    return 0


def run_leaderboard(args: argparse.Namespace) -> int:
    with working("leaderboard", "loading"):
        from reviewer.app.leaderboard import draw_trend, leaderboard

        result = leaderboard(Project.open(args.project), slice_name=args.slice)
    board = result.table
    if result.why_empty:  # an empty table without a word looked like a failure
        print(result.why_empty, file=sys.stderr if args.json else sys.stdout)
        if not args.json:
            return 0
    if args.json:
        print(board.to_json(orient="records", indent=2))
    else:
        if not result.has_slice:
            print(f"(no slice named '{args.slice}': slice scores are empty)")
        print(f"{'run':>5} {'model':30} {'images':12} {'top-1':>7} {'over':>12} {'MLA*':>7} {'in':5} {args.slice}")
        for row in board.itertuples(index=False):
            top1 = "-" if row.top1 != row.top1 else f"{100 * row.top1:6.2f}%"
            mla = "-" if row.mla != row.mla else f"{100 * row.mla:6.2f}%"
            score = "-" if row.slice_score != row.slice_score else (
                f"{int(row.slice_correct)} of {int(row.slice_total)} ({100 * row.slice_score:.1f}%, "
                f"95% CI {100 * row.slice_low:.1f}-{100 * row.slice_high:.1f}%)")
            images = row.images_covered
            scope = row.top1_scope if isinstance(row.top1_scope, str) else "-"
            print(f"{row.run_id:>5} {row.model[:30]:30} {images:12} {top1:>7} {scope:>12} {mla:>7} "
                  f"{row.precision:5} {score}")
        print("* MLA after the panel's review (its final decisions applied)")
    if args.plot:
        trend = draw_trend(result, args.plot)
        if trend.drawn:
            print(f"plot: {args.plot}")
        else:
            print("no plot: no run has both a full-set top-1 and a slice score")
        if trend.off_trend:
            print(f"not on the plot (run over {args.slice} only, no full-set top-1 of the model): "
                  + ", ".join(trend.off_trend) + "; run the model over all images to place it")
    return 0
