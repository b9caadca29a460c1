"""`reviewer report`: every run and imported review with its metrics, and the
analysis report (Markdown or HTML with plots, or JSON for scripts)."""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING

from reviewer.cli import CommandError
from reviewer.cli.progress import StepProgress
from reviewer.project import Project
from reviewer.terms import RunStatus

if TYPE_CHECKING:
    from reviewer.evaluation.metrics import Score


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("report", help="metrics of every run and imported review of a project")
    p.add_argument("project", help="the project folder")
    p.add_argument("--json", action="store_true", help="print the machine-readable JSON (keys in the README)")
    p.add_argument("--format", choices=["markdown", "html"],
                   help="write the analysis report in this format, with PNG plots, into --out")
    p.add_argument("--out", metavar="DIR", help="folder for --format (default: PROJECT/report)")
    p.add_argument("--keep-borderline", action="store_true",
                   help="count Borderline severity apart (default: as Minor, as the paper)")
    p.add_argument("--yates", action="store_true", help="Yates' continuity correction on 2 x 2 chi-square tests")
    p.add_argument("--slice", default="imagenet_m", help="slice the leaderboard scores on (default imagenet_m)")
    p.add_argument("--collapsed-mappings", action="store_true",
                   help="score MLA with the paper's Appendix C collapsed class mappings (the reference evaluation "
                        "applies none: the v3 labels already hold them); the report records the choice")
    p.add_argument("--provisional", action="store_true",
                   help="also count the items the chair has not locked, by the majority of their current votes, "
                        "in rows marked provisional")
    p.add_argument("--recompute", action="store_true",
                   help="compute every figure afresh, neither reading nor keeping the figures kept in "
                        "PROJECT/cache (they are recomputed anyway when what they read changes)")
    p.set_defaults(func=run_report)


def _share(count: int, total: int) -> str:
    """'41.2% (7/17)': a share with its count and denominator."""
    return f"{100 * count / total:.1f}% ({count}/{total})" if total else f"- ({count}/0)"


def _pct(score: Score | None) -> str:
    if score is None or score.value is None or (isinstance(score.value, float) and math.isnan(score.value)):
        return "   -  "
    return f"{100 * score.value:6.2f}"


def _json_safe(value):
    """NaN (nothing evaluated) becomes null: NaN is not JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def run_report(args: argparse.Namespace) -> int:
    if args.out and not args.format:
        # It would print the text and write nothing: say so before the report is built.
        raise CommandError("--out names the folder of a written report: add --format markdown or --format html")
    progress = StepProgress("report")
    progress("loading", 0, 0)  # on a terminal at once: the modules and the project take a second or two
    try:
        from reviewer.analysis.report import ReportOptions
        from reviewer.app.report import build_report, write_report

        project = Project.open(args.project)
        options = ReportOptions(keep_borderline=args.keep_borderline, yates=args.yates, slice_name=args.slice,
                                collapsed_mappings=args.collapsed_mappings, provisional=args.provisional)
        if args.format:
            path = write_report(project, options, out_dir=args.out, fmt=args.format, keep=not args.recompute,
                                progress=progress).value
            progress.close()
            print(f"wrote {path} (plots beside it)")
            return 0
        report = build_report(project, options, keep=not args.recompute, progress=progress)
    finally:
        progress.close()
    summary = report.summary
    if args.json:
        from reviewer.analysis.report_json import report_json

        print(json.dumps(_json_safe({**summary.as_dict(), "analysis": report_json(report)}), indent=2, default=str))
        return 0
    p = summary.project
    print(f"Project {p.name}: {p.images} images ({p.images_with_files} with files), "
          f"{p.multilabel_set} in the multi-label set, {p.evaluable} counted by MLA, "
          f"{p.problematic} problematic")
    if summary.runs:
        print("\nRuns                                   top-1    MLA  MLA-org MLA-obj  ReaL  MLA-after  mistakes (novel)  "
              "images\n  (MLA, MLA-org, MLA-obj: before the panel's review; MLA-after: with its final decisions)")
        for run in summary.runs:
            m = run.metrics
            print(f"  #{run.id:<3} {run.model[:30]:30} {_pct(m and m.top1)} {_pct(m and m.mla.all)} "
                  f"{_pct(m and m.mla.organisms)} {_pct(m and m.mla.objects)} {_pct(m and m.real)}     "
                  f"{_pct(m and m.mla_after_review.all)}  "
                  f"{run.mistakes.total} ({run.mistakes.novel})  {run.images_covered}"
                  + ("" if run.status == RunStatus.COMPLETE else f"  [{run.status}]")
                  + ("  [fast JPEG decoding, not timm's exact preprocessing]" if run.fast_decode else "")
                  + (f"  [computed in {run.precision}]" if run.precision != "fp32" else ""))
        reasons = sorted({r.metrics.mla.reason for r in summary.runs if r.metrics and r.metrics.mla.reason})
        for reason in reasons:
            print(f"  no MLA: {reason}")
        _print_quality(report)
    for review in summary.imported_reviews:
        print(f"\nImported review of {review.model}: {review.items} reviewed mistakes")
        for group, counts in (("categories", review.categories), ("severities", review.severities)):
            total = sum(v.count for v in counts.values())
            cells = ", ".join(f"{k} {_share(v.count, total)}" for k, v in counts.items() if v.count)
            print(f"  {group}: {cells}")
    _print_analysis(report)
    return 0


def _print_quality(report) -> None:
    """Per run: ASMA (Anzaku et al., ReaL labels; both readings, reviewer.evaluation.topk) with the
    ReaL accuracy of the same images, the same on each PatchML set, QUBA's calibration and class balance."""
    for run in report.summary.runs:
        if run.metrics is None:
            continue
        parts = []
        vt = run.metrics.variable_topk
        if not vt.reason:
            parts.append(f"ReaL labels, {vt.images} images with 1-{vt.max_labels} labels: "
                         f"ASMA {100 * vt.asma:.1f}% (example-based accuracy, intersection over union of "
                         f"the valid labels and the top-k, as the papers cite), "
                         f"ASMA {100 * vt.asma_share_found:.1f}% (share of labels found, m/k), "
                         f"ReaL accuracy {100 * vt.real_accuracy_1_to_5:.2f}% (same images)")
        for name, pm in run.metrics.variable_topk_patchml.items():  # Anzaku et al. §3.2 (reviewer patchml)
            if not pm.reason:
                parts.append(f"PatchML set '{name}', {pm.images} images: ASMA {100 * pm.asma:.1f}% (|Y∩Ŷ|/|Y∪Ŷ|), "
                             f"ASMA {100 * pm.asma_share_found:.1f}% (m/k)")
        c = report.calibration.get(run.id)
        if c is not None and c.images:
            ace = f", ACE {100 * c.ace:.3f}%, CE {100 * c.ce:.2f}%" if c.ace == c.ace else ""
            parts.append(f"ECE {100 * c.ece:.2f}%{ace}")
        b = report.class_balance.get(run.id)
        if b is not None and b.images:
            parts.append(f"class balance {b.class_balance:.3f} (authors' code {b.code_class_balance:.3f})")
        if parts:
            print(f"  #{run.id:<3} " + "; ".join(parts))


def _print_counts(counts, *, suffix: str = "") -> None:
    totals = counts.sum(axis=1)
    for model in counts.index:
        cells = ", ".join(f"{level} {_share(int(counts.loc[model, level]), int(totals[model]))}"
                          for level in counts.columns)
        print(f"  {model}{suffix}: {cells}")


def _print_error_types(error_types) -> None:
    """Each run's error types and severities (issue 37), every share with where its answers came
    from: the panel's decisions, a published review, the categoriser's suggestions."""
    if not error_types.runs:
        return
    print("\nError types per run, among its counted mistakes (answers: panel / published / suggested; "
          "a suggestion is never the panel's)")
    for run in error_types.runs:
        shares = run.shares
        sources = " / ".join(str(shares["sources"].get(s, 0)) for s in ("panel", "published", "suggested"))
        mla = "-" if run.mla is None else f"{run.mla:.1%}"
        print(f"  #{run.run_id:<3} {run.model[:30]:30} MLA {mla}: {shares['counted']} counted (answers {sources})")
        for table in ("error_types", "severity"):
            total = sum(entry["count"] for entry in shares[table].values())  # the JSON's share: of those answered
            cells = ", ".join(f"{level.replace('_', ' ')} {_share(entry['count'], total)}"
                              for level, entry in shares[table].items())
            print(f"      {cells}")


def _print_sources(reliability) -> None:
    """How often each evidence source agrees with the panel's decisions (reviewer.analysis.source_agreement)."""
    if reliability.note:
        print(f"\nSource reliability: {reliability.note}")
        return
    print(f"\nSource reliability: agreement with the panel on {reliability.decided} decided mistakes "
          "(accepts = correct, rejects = wrong; Wilson 95% interval)")
    for s in reliability.sources:
        if s.n:
            low, high = s.interval
            share = f"{s.share:.1%} ({s.agreements}/{s.n}), 95% CI {low:.1%}-{high:.1%}"
        else:
            share = "no word on a decided correct or wrong prediction"
        print(f"  {s.source:36} {share}; unclear {s.unclear}, covered {s.covered}")


def _print_zoom(zoom) -> None:
    """Per model, the probed mistakes some crop corrects (reviewer.analysis.zoom_probe)."""
    from reviewer.analysis.zoom_probe import CATEGORIES, GROUPS, SEVERITIES, VERDICTS

    if zoom.note:
        print(f"\nZoom probe: {zoom.note}")
        return
    from reviewer.runs.zoom.result import ACCEPTED_RULE, TAESIRI_RULE

    print("\nZoom probe: mistakes some crop corrects (a crop's top-1 is an accepted label; Taesiri et al. 2023; "
          "complete probes only)")
    print(f"  accepted labels: {ACCEPTED_RULE} (every line but 'Taesiri et al.'s rule');")
    print(f"  Taesiri et al.'s rule: {TAESIRI_RULE} (their 98.91%: ViT-B/32, over all validation images)")
    if not zoom.real_labels:
        print("  (the project has no ReaL labels: both rules go without them)")
    if zoom.provenance is not None:
        print(f"  {zoom.provenance.text()}")
    for m in zoom.models:
        if not (m.probed or m.partial):
            continue
        partial = f"; partial {m.partial} ({m.partial_corrected} already corrected), not counted" if m.partial else ""
        print(f"  {m.model}: {m.probed} of {m.mistakes} mistakes probed, corrected by some crop "
              f"{_share(m.corrected, m.probed)}{partial}")
        print(f"    Taesiri et al.'s rule (IN+ReaL): corrected by some crop {_share(m.taesiri_corrected, m.probed)}; "
              f"unclassifiable, no crop correct {_share(m.unclassifiable, m.probed)}")
        print("    panel: " + ", ".join(f"{v} {_share(*m.by_verdict[v])}" for v in VERDICTS))
        for name, table, keys in (("severity", m.by_severity, SEVERITIES), ("category", m.by_category, CATEGORIES)):
            cells = [f"{k} {_share(*table[k])}" for k in keys if table[k][1]]
            if cells:
                print(f"    wrong, {name}: " + ", ".join(cells))
        print("    zoom group: " + ", ".join(f"{g} {_share(m.by_group[g], m.probed)}" for g in GROUPS))
    for split in zoom.splits:
        print(f"  zoom-hard split '{split.name}' (reviewer zoom-split): {split.images} images no crop corrects for "
              f"{', '.join(split.runs)} ({split.rule.get('labels')} labels)")
    if zoom.unreadable:
        print(f"  ({zoom.unreadable} stored result(s) could not be read and are left out)")


def _print_analysis(report) -> None:
    """Table 2 over all reviewed mistakes (imported and the panel's), the chi-square tests,
    what the panel has not locked yet and, when asked, the provisional rows."""
    if report.note:
        print(f"\nNote: {report.note}")
    if not report.categories.empty:
        borderline = "kept apart" if report.options.keep_borderline else "counted as Minor"
        print(f"\nReviewed mistakes per model (imported reviews and final panel decisions; Borderline {borderline})")
        for counts in (report.categories, report.severities):
            _print_counts(counts)
    for name, tests in (("categories", report.chi_categories), ("severities", report.chi_severities)):
        for row in tests.itertuples(index=False):
            if row.chi2 == row.chi2:  # not NaN
                print(f"  chi-square, {name}, {row.model_a} vs {row.model_b}: chi2 {row.chi2:.3f}, "
                      f"dof {row.dof}, p {row.p_value:.4f}"
                      + (f"  [WARNING: an expected count is {row.min_expected:.2f} < 5; {row.fisher_test} "
                         f"p {row.fisher_p:.4f}]" if row.small_sample else ""))
    _print_error_types(report.error_types)
    _print_sources(report.source_reliability)
    _print_zoom(report.zoom)
    if report.options.provisional and len(report.provisional_categories):
        print(f"\nPROVISIONAL, not locked by the chair: the final decisions plus the majority of the current votes "
              f"on {report.status.provisional} items without one")
        for counts in (report.provisional_categories, report.provisional_severities):
            _print_counts(counts, suffix=" (provisional)")
