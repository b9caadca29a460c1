"""The suggested category and severity (reviewer/review/suggest.py) against the panel of
Vasudevan et al. 2022 on its 627 published mistakes (ViT-3B 378, Greedy Soups 249).

Builds a project the way a user would (`reviewer init` with the TFDS v3 multi-labels and
ReaL, `import-review` of both published reviews, `import-evidence` of every published
relabeling and ImageNet-X from the installed imagenet-x package), asks the suggestion of every
reviewed mistake (its likeliest of the paper's four categories where no explanation is found),
and prints agreement with the panel: accuracy with its 95 % Wilson interval,
Cohen's kappa, the confusion matrix, per-class precision and recall, the trivial baselines
(always the panel's commonest answer), by model, for the held-out half (the images whose file
name's SHA-256 is odd; the rules were chosen on the other half, `suggest.fitting_half`) and,
for comparison, the fitting half and all 627, each rule's record on both halves, and whether
issue 37's targets are met. Borderline counts as minor (the paper's §4.1).

    python bench/bench_suggestions.py [--source ../shared/data] [--markdown] [--no-imagenet-x]

It reads ../shared/data (or REVIEWER_SHARED_DATA, or --source); nothing of it is a test.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CATEGORIES = ("fine_grained", "fine_grained_oov", "spurious_correlation", "non_prototypical")
SEVERITIES = ("major", "minor")
SHORT = {"fine_grained": "FG", "fine_grained_oov": "FG-OOV", "spurious_correlation": "Spurious",
         "non_prototypical": "Non-proto", "major": "Major", "minor": "Minor"}
HEADER = "panel \\ suggested"


def build_project(source: Path, folder: Path, *, imagenet_x: bool):
    from reviewer.app.evidence import import_evidence
    from reviewer.app.imports import import_review, init_project

    published = source / "published"
    project, _ = init_project(folder / "p", labels=[
        published / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv", published / "real" / "real.json"])
    for model in ("vit3b", "greedy_soups"):
        import_review(project, source / "imagenet-mistakes" / f"{model}_mistakes.json", model=model)
    files = sorted(p for p in published.rglob("*") if p.is_file() and p.name != "README.md")
    import_evidence(project, files, imagenet_x=imagenet_x)
    return project


def panel_severity(severity: str) -> str:
    return "major" if severity == "major" else "minor"  # Borderline is minor (§4.1)


def measure(pairs: list[tuple[str, str]], values: tuple[str, ...]) -> dict:
    """Agreement of (panel, suggested) pairs: counts, accuracy, Wilson interval, kappa, confusion."""
    from reviewer.analysis.source_agreement import wilson_interval
    from reviewer.panel.agreement import cohen

    n = len(pairs)
    agree = sum(a == b for a, b in pairs)
    kappa, _ = cohen({i: a for i, (a, _) in enumerate(pairs)}, {i: b for i, (_, b) in enumerate(pairs)},
                     values=values) if n else (None, 0)
    confusion = {a: Counter(b for x, b in pairs if x == a) for a in values}
    commonest = Counter(a for a, _ in pairs).most_common(1)[0] if n else (None, 0)
    return {"n": n, "agree": agree, "interval": wilson_interval(agree, n), "kappa": kappa, "confusion": confusion,
            "baseline": commonest}


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def report(title: str, pairs: list[tuple[str, str]], values: tuple[str, ...], *, markdown: bool) -> list[str]:
    m = measure(pairs, values)
    if not m["n"]:
        return [f"{title}: no mistakes"]
    low, high = m["interval"]
    base_value, base_count = m["baseline"]
    kappa = "n/a" if m["kappa"] is None else f"{m['kappa']:.2f}"
    out = [f"{title}: {m['agree']}/{m['n']} agree, {pct(m['agree'] / m['n'])} (95 % {pct(low)}-{pct(high)}), "
           f"Cohen's kappa {kappa}; always '{SHORT[base_value]}': {pct(base_count / m['n'])}"]
    if markdown:
        out += ["", f"| {HEADER} | " + " | ".join(SHORT[v] for v in values) + " | recall |",
                "|---|" + "---:|" * (len(values) + 1)]
    else:
        out.append(f"  {HEADER:18}" + "".join(f"{SHORT[v]:>10}" for v in values) + "    recall")
    for a in values:
        row = m["confusion"][a]
        total = sum(row.values())
        recall = pct(row[a] / total) if total else "n/a"
        cells = [str(row[b]) for b in values]
        out.append(f"| {SHORT[a]} | " + " | ".join(cells) + f" | {recall} |" if markdown
                   else f"  {SHORT[a]:18}" + "".join(f"{c:>10}" for c in cells) + f"  {recall:>8}")
    precision = []
    for b in values:
        said = sum(m["confusion"][a][b] for a in values)
        precision.append(pct(m["confusion"][b][b] / said) if said else "n/a")
    out.append("| precision | " + " | ".join(precision) + " | |" if markdown
               else f"  {'precision':18}" + "".join(f"{p:>10}" for p in precision))
    return out + [""]


TARGETS = "category agreement >= 72 % with kappa >= 0.40; severity kappa >= 0.40; spurious correlation and " \
          "non-prototypical each suggested and right >= 1/3 of the times suggested (issue 37)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("REVIEWER_SHARED_DATA", REPO.parent / "shared" / "data"))
    parser.add_argument("--source", type=Path, default=default, help="the shared data folder (default %(default)s)")
    parser.add_argument("--markdown", action="store_true", help="tables in Markdown, for docs/suggestions.md")
    parser.add_argument("--no-imagenet-x", action="store_true", help="without ImageNet-X (its rule then never fires)")
    args = parser.parse_args(argv)
    if not (args.source / "imagenet-mistakes").is_dir():
        sys.exit(f"{args.source}: not the shared data folder (no imagenet-mistakes/); give --source")
    sys.path.insert(0, str(REPO))
    from reviewer.review.suggest import fitting_half, suggest_reviewed

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        project = build_project(args.source, Path(tmp), imagenet_x=not args.no_imagenet_x)
        built = time.perf_counter() - started
        with project.read() as session:
            rows = suggest_reviewed(session=session)
        project.close()
    print(f"{len(rows)} reviewed mistakes; project built in {built:.1f} s, suggested in "
          f"{time.perf_counter() - started - built:.1f} s; ImageNet-X {'off' if args.no_imagenet_x else 'on'}\n")
    missing = sum(1 for r in rows if r.suggestion is None)
    rows = [r for r in rows if r.suggestion is not None]
    held_out = [r for r in rows if not fitting_half(r.file_name)]
    fitting = [r for r in rows if fitting_half(r.file_name)]
    halves = {"held-out half (SHA-256 of the file name odd; the rules were not chosen on it)": held_out,
              "fitting half (the rules were chosen on it)": fitting, "all": rows}
    lines = ["# the rules as shipped" + (f" ({missing} without a suggestion: no label)" if missing else "") + "\n"]
    for name, subset in halves.items():
        lines.append(f"## {name}\n" if args.markdown else f"=== {name}")
        for model in (None, "vit3b", "greedy_soups"):
            chosen = [r for r in subset if model is None or r.model == model]
            who = model or "both models"
            lines += report(f"category, {who}", [(str(r.category), str(r.suggestion.category)) for r in chosen],
                            CATEGORIES, markdown=args.markdown)
            lines += report(f"severity, {who}", [(panel_severity(r.severity), str(r.suggestion.severity))
                                                 for r in chosen], SEVERITIES, markdown=args.markdown)
    lines += no_explanation(held_out)
    lines += by_rule(held_out, "held-out half", markdown=args.markdown)
    lines += by_rule(fitting, "fitting half (suggest.FITTED holds these counts)", markdown=args.markdown)
    lines += targets(held_out)
    print("\n".join(lines))
    return 0


def no_explanation(rows) -> list[str]:
    """How often no explanation was found, and what the panel called those mistakes."""
    found = [r for r in rows if str(r.suggestion.error_type) == "no_explanation"]
    panel = Counter(SHORT[str(r.category)] for r in found)
    return [f"held-out half, no explanation found (scored as its likeliest category, fine-grained): {len(found)} "
            f"of {len(rows)}; the panel called them {dict(panel.most_common())}", ""]


def targets(rows) -> list[str]:
    """The issue's targets on the held-out half, met or not."""
    category = measure([(str(r.category), str(r.suggestion.category)) for r in rows], CATEGORIES)
    severity = measure([(panel_severity(r.severity), str(r.suggestion.severity)) for r in rows], SEVERITIES)
    out = [f"targets: {TARGETS}"]
    accuracy = category["agree"] / category["n"]
    out.append(f"  category {100 * accuracy:.1f} %, kappa {category['kappa']:.2f}: "
               f"{'met' if accuracy >= 0.72 and category['kappa'] >= 0.40 else 'NOT met'}")
    out.append(f"  severity kappa {severity['kappa']:.2f}: {'met' if severity['kappa'] >= 0.40 else 'NOT met'}")
    for value in ("spurious_correlation", "non_prototypical"):
        said = [r for r in rows if str(r.suggestion.category) == value]
        right = sum(str(r.category) == value for r in said)
        met = said and right * 3 >= len(said)
        out.append(f"  {SHORT[value]}: suggested {len(said)}, right {right}: {'met' if met else 'NOT met'}")
    return out + [""]


def by_rule(rows, title: str, *, markdown: bool) -> list[str]:
    """How often each rule decided and how often the panel agreed."""
    out = [f"{title}, by the rule that decided (decided, panel agreed):"]
    for field, rule_of, mine, panel in (
            ("category", lambda s: s.category_rule, lambda s: str(s.category), lambda r: str(r.category)),
            ("severity", lambda s: s.severity_rule, lambda s: str(s.severity), lambda r: panel_severity(r.severity))):
        counts = Counter((str(rule_of(r.suggestion)), mine(r.suggestion) == panel(r)) for r in rows)
        for rule in sorted({k for k, _ in counts}):
            decided = counts[(rule, True)] + counts[(rule, False)]
            out.append(f"{'- ' if markdown else '  '}{field} {rule}: {decided}, {counts[(rule, True)]} "
                       f"({100 * counts[(rule, True)] / decided:.0f} %)")
    return out + [""]


if __name__ == "__main__":
    sys.exit(main())
