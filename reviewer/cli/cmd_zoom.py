"""`reviewer zoom` (the zoom probe of every mistake of a run) and `reviewer zoom-split`
(the mistakes no crop corrects, an ImageNet-Hard-style slice; Taesiri et al. 2023)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time

from reviewer.project import Project

LINE_EVERY_S = 10.0  # a progress line at most this often (and after the first mistake, and at the end)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "zoom", help="the zoom probe (Taesiri et al. 2023) over every mistake of a run, resumable",
        description="Run the run's own model over the 324 zoomed crops (36 scales x a 3x3 grid) of each of its "
                    "mistakes, many crops per batch, and store each mistake's result with the run as the window's "
                    "probe (X) does. Killed or stopped (Ctrl+C, SIGTERM: what was computed is stored), the same "
                    "command resumes: mistakes already probed are not computed again. Then 'reviewer zoom-split' "
                    "gives the mistakes no crop corrects.")
    p.add_argument("project", help="the project folder")
    p.add_argument("--run", type=int, required=True, metavar="N", help="the run ('reviewer report PROJECT' lists them)")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="only the first N of the run's mistakes by file name (e.g. 20 on a CPU)")
    p.add_argument("--images", metavar="SLICE", dest="image_slice",
                   help="only the mistakes on this slice's images (e.g. another run's zoom-hard split, before "
                        "a split across runs)")
    p.add_argument("--first-pass", action="store_true",
                   help="only the probe's six first-pass scales (54 crops a mistake instead of 324): finds most "
                        "mistakes some crop corrects, at a sixth of the cost; a mistake it leaves uncorrected "
                        "needs the full probe (the same command without --first-pass completes it)")
    p.add_argument("--skip-corrected", action="store_true",
                   help="leave out the mistakes a stored crop already corrects (IN+ReaL): after --first-pass, "
                        "the rest of the grid only where 'zoom-split' still needs it (the report's shares count "
                        "complete probes only)")
    p.add_argument("--device", default="auto", help="auto (default: an accelerator where there is one), cpu, cuda, "
                                                    "cuda:N or mps")
    p.add_argument("--batch-size", type=int, default=None, metavar="N",
                   help="crops per forward pass (default 9 on a CPU, 324 on an accelerator)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="threads decoding images and making crops (default 1 on a CPU, else one per core up to 8)")
    p.add_argument("--panelist", "--reviewer", metavar="NAME",
                   help="store the results as this panelist's (default: the project's owner; on a panel of "
                        "database roles, the connection's role)")
    p.set_defaults(func=run_zoom)

    p = subparsers.add_parser(
        "zoom-split", help="the mistakes no zoomed crop corrects for every given run (ImageNet-Hard style), "
                           "saved as a slice",
        description="An image is unclassifiable for a model when none of its 324 zoomed crops is classified "
                    "correctly (Taesiri et al. 2023, 4.1 and 4.4.1; IN+ReaL labels by default). Kept when it is a "
                    "mistake of every given run and every run's complete probe has no correct crop. Saved with "
                    "--save, 'reviewer predict --images SLICE' reruns models on it, 'reviewer leaderboard --slice "
                    "SLICE' scores them and 'reviewer export' writes it with its rule.")
    p.add_argument("project", help="the project folder")
    p.add_argument("--runs", nargs="+", required=True, metavar="RUN",
                   help="run ids or model names (their latest complete run over the whole set)")
    p.add_argument("--labels", choices=("in-real", "accepted"), default="in-real",
                   help="what makes a crop correct: in-real (default, the paper's: the original label with "
                        "ReaL's) or accepted (this tool's: correct or unclear multi-labels with ReaL's)")
    p.add_argument("--show", choices=("unclassifiable", "needs-probe", "none"), default="none",
                   help="list these images")
    p.add_argument("--save", metavar="SLICE", help="store the unclassifiable images as this slice")
    p.add_argument("--replace", action="store_true", help="with --save: replace an existing slice of that name")
    p.add_argument("--export", metavar="FILE", help="write the rule, the counts and every candidate to this JSON file")
    p.set_defaults(func=run_zoom_split)


class _Lines:
    """Progress as lines on stderr, terminal or pipe alike: after the first mistake, then at most
    every LINE_EVERY_S seconds, and after the last."""

    def __init__(self) -> None:
        self.said_at: float | None = None
        self.last = None

    def __call__(self, p) -> None:
        self.last = p
        now = time.monotonic()
        if self.said_at is not None and now - self.said_at < LINE_EVERY_S and p.left > 0:
            return
        self.said_at = now
        left = p.seconds_left
        print(f"zoom run #{p.run_id}: {p.already + p.done} of {p.total} mistakes probed ({p.done} now"
              + (f", {p.already} before" if p.already else "") + (f", {p.failed} failed" if p.failed else "")
              + f"); {p.crops} crops, {p.crops_per_second:.1f} crops/s, {p.mistakes_per_minute:.1f} mistakes/min"
              + (f", about {_duration(left)} left" if left is not None and p.left > 0 else ""),
              file=sys.stderr, flush=True)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def run_zoom(args: argparse.Namespace) -> int:
    project = Project.open(args.project)
    from reviewer.app.zoom import probe_run

    stop = threading.Event()

    def ask_to_stop(signum, _frame) -> None:
        if stop.is_set():  # a second Ctrl+C: stop at once (the mistakes in flight are lost)
            raise KeyboardInterrupt
        stop.set()
        print(f"\n{signal.Signals(signum).name}: stopping after the batches in flight; what was computed is "
              "stored (Ctrl+C again to stop at once)", file=sys.stderr, flush=True)

    handlers = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            handlers[sig] = signal.signal(sig, ask_to_stop)
    lines = _Lines()
    try:
        result = probe_run(project, run_id=args.run, limit=args.limit, image_slice=args.image_slice,
                           first_pass=args.first_pass,
                           skip_corrected=args.skip_corrected, device=args.device, batch_size=args.batch_size,
                           workers=args.workers, panelist=args.panelist, progress=lines,
                           should_stop=stop.is_set, loading=lambda count: print(
                               f"zoom probe of run #{args.run}: {count} mistake{'' if count == 1 else 's'} to probe; "
                               "loading torch and the run's model ...", file=sys.stderr, flush=True)).value
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    _print_result(result, args)
    if getattr(args, "whole_process", False):
        # Everything is stored and printed: skip the interpreter's teardown of torch (seconds), as predict does.
        project.close()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130 if result.stopped else 0)
    return 130 if result.stopped else 0


def _print_result(r, args: argparse.Namespace) -> None:
    scope = f"the first {r.total} of its mistakes" if args.limit else f"its {r.total} mistakes"
    if args.image_slice:
        scope += f" on slice '{args.image_slice}'"
    print(f"run #{r.run_id} ({r.model}), {scope}" + (" (first pass: 6 scales, 54 crops each)" if r.first_pass else ""))
    if r.already:
        print(f"  {r.already} already probed before: not computed again")
    if r.skipped_corrected:
        print(f"  {r.skipped_corrected} left out: a stored crop already corrects them (--skip-corrected)")
    if r.probed:
        print(f"  probed {r.probed} in {_duration(r.seconds)}: {r.crops} crops, {r.crops_per_second:.1f} crops/s, "
              f"{r.mistakes_per_minute:.1f} mistakes/min on {r.device} (batches of {r.batch_size})")
        print(f"  of these {r.probed}: {r.corrected} corrected by some crop (IN+ReaL, Taesiri et al.), "
              f"{r.complete} with all 324 crops")
    elif not r.already and not r.failed:
        print("  nothing to probe")
    for name, reason in r.failed[:10]:
        print(f"  not probed: {name}: {reason}")
    if len(r.failed) > 10:
        print(f"  ... and {len(r.failed) - 10} more not probed")
    left = r.total - r.already - r.skipped_corrected - r.probed - len(r.failed)
    if r.stopped or left > 0:
        print(f"stopped: {left} mistakes left; run the same command again to resume")
    else:
        print(f"next: reviewer zoom-split {args.project} --runs {r.run_id} --save zoom_hard")


def run_zoom_split(args: argparse.Namespace) -> int:
    from reviewer.app.zoom import zoom_hard_split
    from reviewer.evaluation.zoom_hard import (
        CLASSIFIED,
        CORRECTED,
        LABEL_RULES,
        NEEDS_PROBE,
        NO_LABELS,
        NOT_PREDICTED,
        RUN_PARTIAL,
        RUN_UNPROBED,
        UNCLASSIFIABLE,
        run_column,
    )

    outcome = zoom_hard_split(Project.open(args.project), runs=args.runs, labels=args.labels, save=args.save,
                              replace=args.replace, export=args.export).value
    result = outcome.result
    counts = result.counts()
    runs = ", ".join(f"{model} (run {run})" for run, model in result.rule.runs)
    print(f"rule: an image is unclassifiable when it is a mistake of every run ({runs}) and no crop of any run's "
          f"324-crop zoom probe is correct; correct: {LABEL_RULES[result.rule.labels]}")
    print(f"  of {len(result.table)} candidate images (a mistake of some run): {counts[UNCLASSIFIABLE]} "
          f"unclassifiable, {counts[CORRECTED]} corrected by some crop, {counts[NEEDS_PROBE]} need a complete "
          f"probe, {counts[CLASSIFIED]} classified correctly by a run, {counts[NOT_PREDICTED]} without a "
          f"prediction of every run" + (f", {counts[NO_LABELS]} without labels" if counts[NO_LABELS] else ""))
    if outcome.provenance is not None:
        print(f"  the split {outcome.provenance.text()}")
    show = {"unclassifiable": UNCLASSIFIABLE, "needs-probe": NEEDS_PROBE}.get(args.show)
    if show:
        for name in result.images(show):
            print(f"  {name}")
    if counts[NEEDS_PROBE]:
        waiting = result.table[result.table["status"] == NEEDS_PROBE]
        runs_to_probe = [run for run, model in result.rule.runs
                         if waiting[run_column(run, model)].isin([RUN_UNPROBED, RUN_PARTIAL]).any()]
        print("  to probe them: " + "; ".join(f"reviewer zoom {args.project} --run {run}" for run in runs_to_probe))
    if args.save:
        print(f"saved {outcome.saved} images as slice '{args.save}': 'reviewer predict {args.project} --model M "
              f"--images {args.save}' reruns a model on it, 'reviewer export' writes it with its rule")
    if args.export:
        print(f"wrote the rule and the candidates to {args.export}")
    return 0
