"""Benchmark: export, analysis report, split and leaderboard on a synthetic reviewed set.

A synthetic multi-label set (bench_metrics.synthetic_files), 4 runs with their
mistakes stored, and the panel's final decisions on a share of the mistakes.
Prints the time of each step; no targets were set, the figures are for
comparison between versions.
Run: python bench/bench_exports.py [--images 50000] [--runs 4] [--decided 0.3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_metrics import add_run, synthetic_files
from sqlalchemy import insert, select

from db.engine import read_session, write_session
from db.tables import Decision, Mistake, Panelist
from reviewer.analysis.render import write_report
from reviewer.app.export import export_project
from reviewer.app.imports import init_project
from reviewer.app.report import build_report
from reviewer.evaluation.leaderboard import leaderboard
from reviewer.evaluation.split import SplitRule, apply_split_rule, resolve_members
from reviewer.review.pending import pending_items
from reviewer.runs.mistakes import store_mistakes
from reviewer.terms import Category, Severity, values


def timed(label: str, fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    seconds = time.perf_counter() - start
    print(f"  {label:<44} {seconds:8.2f} s")
    return result


def decide_share(project, share: float, rng: np.random.Generator) -> int:
    """Final decisions on `share` of the distinct mistaken items, as a chair's locks."""
    with read_session(project.engine) as session:
        items = sorted(set(session.execute(select(Mistake.image_id, Mistake.predicted)).all()))
    chosen = [items[i] for i in rng.choice(len(items), int(share * len(items)), replace=False)]
    verdicts = rng.choice(["wrong", "wrong", "wrong", "correct", "unclear"], len(chosen))
    with write_session(project.engine) as session:
        chair = Panelist(name="chair", is_chair=True)
        session.add(chair)
        session.flush()
        session.execute(insert(Decision), [
            {"image_id": i, "predicted": p, "verdict": v, "problematic": bool(rng.random() < 0.01),
             "severity": str(rng.choice([v.value for v in Severity.panel()])) if v == "wrong" else None,
             "category": str(rng.choice(values(Category))) if v == "wrong" else None,
             "method": "majority", "reason": "", "decided_by": chair.id}
            for (i, p), v in zip(chosen, verdicts)])
    return len(chosen)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--decided", type=float, default=0.3, help="share of the mistakes with a final decision")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        annotated, tfds, original = synthetic_files(tmp, args.images, rng)
        project, _ = init_project(tmp / "project", labels=[annotated, tfds])
        run_ids = [add_run(project, f"model{i}", original, 0.7 + 0.05 * i, rng) for i in range(args.runs)]
        mistakes = sum(project.write(lambda s, r=run_id: store_mistakes(session=s, run_id=r)) for run_id in run_ids)
        decided = decide_share(project, args.decided, rng)
        print(f"synthetic set: {args.images} images, {args.runs} runs, {mistakes} mistakes, {decided} decided items")
        result = timed("export (json + csv)", export_project, project, tmp / "exports").value
        sizes = sum(entry["bytes"] for entry in result.manifest["outputs"].values())
        print(f"    {len(result.manifest['outputs'])} files, {sizes / 1e6:.1f} MB")
        report = timed("build the analysis report", build_report, project)
        timed("write the Markdown report with plots", write_report, report, tmp / "report")
        with project.read() as session:
            members = resolve_members(session=session, specs=[str(r) for r in run_ids])
            k = min(3, len(members))
            split = timed(f"split rule ({k} of {len(members)})", apply_split_rule, session=session,
                          rule=SplitRule(members, k=k))
            print(f"    {split.counts()}")
            timed("leaderboard", leaderboard, session=session)
            queue = timed("items still to review, all runs", pending_items, session=session)
        print(f"    {len(queue)} items to review")


if __name__ == "__main__":
    main()
