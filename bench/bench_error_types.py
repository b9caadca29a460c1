"""Issue 37: how long the categoriser takes over every mistake of every run, as the report's
"Error types per run" and the export's suggestion files run it, on a large project.

    python bench/bench_scale.py --sizes 50000 --runs 20 --keep --only report   # makes the project
    python bench/bench_error_types.py bench/out/scale/projects/n50000_r20
    python bench/bench_error_types.py PROJECT --runs 1,2,3        # only these runs

For each complete run (its stored mistakes): the CPU time of its suggestions read and made in bulk
(`reviewer.review.categorise.suggested_run`) with a memo of its own (a run alone) and with the
memo the report shares between runs (a mistake another run made is suggested once), and of the
answers put on them (`answered`, what a vote recomputes). Then the whole export's suggestion
files (`reviewer.export.suggestions.suggestion_files`). The evidence sources the project holds are
named: the categoriser reads every one, so a project with ReaL, cleanlab, Flaws of ImageNet, the
TFDS evidence and ImageNet-X imported (`reviewer import-evidence`) costs more than one without.
CPU seconds (the figure that travels between busy and idle machines) and the load average are
printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project")
    parser.add_argument("--runs", help="run ids, comma-separated (default: every complete run)")
    args = parser.parse_args()

    from sqlalchemy import select

    from db.tables import EvidenceSource, Run
    from reviewer.export.suggestions import suggestion_files
    from reviewer.labels.reviewed import reviewed_labelset
    from reviewer.panel.final import decisions_table
    from reviewer.project import Project
    from reviewer.review.categorise import SuggestionMemo, answered, decided_answers, suggested_run
    from reviewer.terms import RunStatus

    project = Project.open(args.project)
    with project.read() as session:
        runs = [int(r) for r in args.runs.split(",")] if args.runs else list(session.execute(
            select(Run.id).where(Run.status == RunStatus.COMPLETE).order_by(Run.id)).scalars())
        sources = list(session.execute(select(EvidenceSource.kind)).scalars())
        print(f"{args.project}: {len(runs)} runs; evidence sources: {', '.join(sources) or 'none'}; "
              f"load {os.getloadavg()[0]:.1f}")
        labels = reviewed_labelset(session=session, after_review=False)
        decisions = decisions_table(session=session)
        decided = decided_answers(session=session, decisions=decisions)
        shared = SuggestionMemo()
        print("| run | mistakes | alone (s CPU) | memo shared (s CPU) | answers (s CPU) |")
        print("|---:|---:|---:|---:|---:|")
        total = [0.0, 0.0, 0.0]
        for run_id in runs:
            start = time.process_time()
            frame = suggested_run(session=session, run_id=run_id, labels=labels, memo=SuggestionMemo())
            alone = time.process_time() - start
            start = time.process_time()
            suggested_run(session=session, run_id=run_id, labels=labels, memo=shared)
            with_memo = time.process_time() - start
            start = time.process_time()
            answered(frame, decided)
            answers = time.process_time() - start
            for i, value in enumerate((alone, with_memo, answers)):
                total[i] += value
            print(f"| {run_id} | {len(frame):,} | {alone:.2f} | {with_memo:.2f} | {answers:.3f} |", flush=True)
        print(f"| all | | {total[0]:.2f} | {total[1]:.2f} | {total[2]:.3f} |")
        start = time.process_time()
        _, notes = suggestion_files(session=session, labels=labels, decisions=decisions)
        listed = sum(n["listed_without_panel_decision"] for n in notes)
        print(f"export's suggestion files: {listed:,} mistakes listed, {time.process_time() - start:.2f} s CPU; "
              f"load {os.getloadavg()[0]:.1f}")
    project.close()


if __name__ == "__main__":
    main()
