"""`reviewer predict` (run a timm model over the images) and `reviewer import-logits`."""

from __future__ import annotations

import argparse
import os
import sys

from reviewer.project import Project
from reviewer.terms import Precision, values


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "predict", help="run a timm model over the project's images (resumes an interrupted run)",
        description="Run an ImageNet-1k classifier over the project's images, storing its top-5 and full "
                    "softmax, then its mistakes. Running the same command again after an interruption "
                    "resumes the run where it stopped.")
    p.add_argument("project", help="the project folder")
    p.add_argument("--model", required=True, metavar="NAME", nargs="+",
                   help="timm model name, 'arch' or 'arch.tag' (tf_efficientnet_lite0/1/2 work offline "
                        "with the bundled weights); several names: one run each, in one pass that decodes "
                        "each image once for the models sharing a data config")
    p.add_argument("--checkpoint", metavar="PATH",
                   help="weights file for the --model architecture (.pth/.pt state dict or .safetensors)")
    p.add_argument("--name", help="name to record the model under (default: --model, or MODEL:CHECKPOINT)")
    p.add_argument("--device", default="auto", help="auto (default), cpu, cuda, cuda:N or mps")
    p.add_argument("--batch-size", type=int, default=None, metavar="N",
                   help="images per batch (default: 16 on a CPU, 64 on a GPU)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="images are decoded by N worker processes on a machine with 8 or more usable cores "
                        "(default: one per core), else by N threads (default: one per core, at most 4); "
                        "--decoder chooses")
    p.add_argument("--decoder", choices=("auto", "threads", "processes"), default="auto",
                   help="decode in threads or worker processes (default auto: processes from 8 usable cores; "
                        "the pixels are timm's either way)")
    p.add_argument("--precision", choices=values(Precision), default=Precision.FP32.value,
                   help="number format of the forward pass (default fp32, exact: TF32 off on a GPU); tf32, "
                        "or bf16/fp16 autocast: faster on a GPU, probabilities differ slightly; recorded "
                        "with the run, and a run resumes only with the same precision")
    p.add_argument("--streams", type=int, default=None, metavar="N",
                   help="batches computed at once, sharing torch's threads (default: one per core on a "
                        "CPU, at most 4; one on a GPU)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N images")
    p.add_argument("--images", metavar="SUBSET", dest="image_slice",
                   help="only the images of this named slice (e.g. imagenet_m)")
    p.add_argument("--rerun", action="store_true", help="compute a new run even if this one is complete")
    p.add_argument("--fast-decode", action="store_true",
                   help="decode large JPEGs at reduced scale (PIL draft mode): faster, but not timm's exact "
                        "preprocessing, so probabilities differ slightly; recorded with the run")
    p.set_defaults(func=run_predict)

    p = subparsers.add_parser(
        "import-logits", help="store precomputed logits or probabilities as a run of a model",
        description="Import an .npy array [50000, 1000] in validation-file order (row i = "
                    "ILSVRC2012_val_{i+1:08d}.JPEG), or an .npz holding such an array and optionally "
                    "'file_names' naming each row.")
    p.add_argument("project", help="the project folder")
    p.add_argument("file", help=".npy or .npz of logits or probabilities: one row per image, in validation-file order or named by a file_names array")
    p.add_argument("--model", required=True, metavar="NAME", help="name of the model the scores come from")
    p.add_argument("--kind", choices=("auto", "logits", "probs"), default="auto",
                   help="what the array holds (default: probabilities if every row sums to 1)")
    p.set_defaults(func=run_import_logits)


class _ProgressBar:
    """tqdm on stderr (images/s, time left) on a terminal; piped or logged, a line at every
    tenth of the run or every 10 s, whichever comes first (a bar's redraws would be one
    endless line, and silence for minutes looks like a hang). One per run; `position`
    stacks the bars of several models computed in one pass."""

    LINE_EVERY_S = 10.0

    def __init__(self, position: int = 0, *, terminal: bool | None = None):
        self.bar = None
        self.last = None
        self.position = position
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self.lined_at: tuple[int, float] | None = None  # (images done, seconds) at the last line

    def __call__(self, progress) -> None:
        from tqdm import tqdm

        if self.bar is None:
            if progress.done:
                print(f"resuming run #{progress.run_id}: {progress.done} of {progress.total} images done",
                      file=sys.stderr)
            else:
                print(f"run #{progress.run_id}: {progress.total} images", file=sys.stderr)
            if not self.terminal:
                self.bar = False
                self.lined_at = (progress.done, progress.elapsed)
        if self.bar is False:
            self.last = progress
            self._line(progress)
            return
        if self.bar is None:
            self.bar = tqdm(total=progress.total, initial=progress.done, unit="img", disable=None,
                            dynamic_ncols=True, smoothing=0.1, position=self.position)
        self.bar.update(progress.done - self.bar.n)
        if progress.skipped:
            self.bar.set_postfix(skipped=progress.skipped, refresh=False)
        self.last = progress

    def _line(self, progress) -> None:
        done, at = self.lined_at
        if progress.done < progress.total and progress.done - done < progress.total / 10 \
                and progress.elapsed - at < self.LINE_EVERY_S:
            return
        self.lined_at = (progress.done, progress.elapsed)
        left = progress.seconds_left
        print(f"run #{progress.run_id}: {progress.done} of {progress.total} images, "
              f"{progress.images_per_second:.1f} images/s"
              + (f", {left:.0f} s left" if left is not None and progress.done < progress.total else "")
              + (f", {progress.skipped} skipped" if progress.skipped else ""), file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar:
            self.bar.close()


def run_predict(args: argparse.Namespace) -> int:
    from reviewer.errors import InputError

    models = args.model
    if len(models) > 1 and (args.checkpoint or args.name):
        raise InputError("--checkpoint/--name", "name the weights of one model, not of several",
                         hint="run a checkpoint with a --model of its own")
    project = Project.open(args.project)
    # The first line comes before torch and timm load (seconds): the command has started.
    print(f"loading torch, timm and {', '.join(models)} ...", file=sys.stderr, flush=True)
    if getattr(args, "whole_process", False):
        _import_out_of_the_collectors_sight()
    from reviewer.app.runs import run_models

    bars: dict[int, _ProgressBar] = {}

    def progress(update) -> None:
        bars.setdefault(update.run_id, _ProgressBar(position=len(bars)))(update)

    try:
        results = run_models(project, models, checkpoints=[args.checkpoint] * len(models),
                             names=[args.name] * len(models), device=args.device, batch_size=args.batch_size,
                             limit=args.limit, image_slice=args.image_slice, workers=args.workers,
                             streams=args.streams, rerun=args.rerun, fast_decode=args.fast_decode,
                             precision=args.precision, decoder=args.decoder, progress=progress).value
    except KeyboardInterrupt:
        for bar in bars.values():
            bar.close()
        for bar in bars.values():
            if bar.last is not None:
                print(f"interrupted: run #{bar.last.run_id} keeps {bar.last.done} of {bar.last.total} images; "
                      "run the same command again to resume it", file=sys.stderr)
        return 130
    for bar in bars.values():
        bar.close()
    for result in results:
        _print_result(project, result)
    if getattr(args, "whole_process", False):
        # Everything is committed and printed: skip the interpreter's teardown of torch, timm and
        # an accelerator's context, which took 1.3-2.3 s after the last line on a CPU.
        project.close()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0


def _import_out_of_the_collectors_sight() -> None:
    """torch and timm imported with Python's cycle collector paused, and everything alive
    then moved out of its sight (`gc.freeze`): their 400,000-odd objects live to the end,
    yet their import ran 6 full collections (0.5 s on the 2-core CI machine) and a run
    of 300 images one more (0.2 s), each scanning them all. Only where this call is the
    whole process (the `reviewer` command): the window keeps its own collector."""
    import gc

    gc.disable()
    try:
        import timm  # noqa: F401 - torch, torchvision and timm: the bulk of predict's imports
    finally:
        gc.enable()
    gc.freeze()


def run_import_logits(args: argparse.Namespace) -> int:
    from reviewer.cli.progress import StepProgress

    progress = StepProgress("import-logits")
    progress("loading", 0, 0)  # on a terminal at once: a 50,000-image file takes seconds
    try:
        from reviewer.app.runs import import_scores

        project = Project.open(args.project)
        result = import_scores(project, args.file, model=args.model, kind=args.kind, progress=progress).value
    finally:
        progress.close()
    if result.already_complete:
        print(f"run #{result.run_id} of {result.model} already holds the scores of this file (imported before); "
              "nothing was changed")
    elif result.model != args.model:
        print(f"note: {args.model} already has a run from another file, so this one is stored as model "
              f"{result.model!r} (name it so in --runs, or import it under a --model name of its own)")
    _print_result(project, result, said=result.already_complete)
    return 0


def _print_result(project: Project, result, *, said: bool = False) -> None:
    from reviewer.app.runs import top1_of_run

    if said:
        pass
    elif result.already_complete:
        print(f"run #{result.run_id} of {result.model} is already complete ({result.predicted} images); "
              "pass --rerun to compute it again")
    else:
        timing = (f" in {result.seconds:.1f} s ({result.images_per_second:.1f} images/s; first batch "
                  f"{result.startup_seconds:.1f} s after the start, storing {result.finish_seconds:.1f} s after "
                  f"the last)" if result.seconds else "")
        resumed = f", resumed from {result.resumed_from}" if result.resumed else ""
        print(f"run #{result.run_id} of {result.model}: {result.status}, {result.predicted} of {result.total} "
              f"images predicted{resumed}{timing}, computed in {result.precision}")
    correct, labelled = top1_of_run(project, result.run_id)
    if labelled:
        print(f"top-1 accuracy against the original labels: {100 * correct / labelled:.2f}% "
              f"({correct} of {labelled})")
    if result.skipped:
        print(f"{len(result.skipped)} images skipped:")
        for item in result.skipped[:10]:
            print(f"  {item['file_name'] or item['image_id']}: {item['reason']}")
        if len(result.skipped) > 10:
            print(f"  ... and {len(result.skipped) - 10} more (in the run's report: reviewer report --json)")
    if result.mistakes is not None:
        print(_mistakes_line(project, result.run_id, result.mistakes))
    elif result.mistakes_note:
        print(f"note: {result.mistakes_note}")


def _mistakes_line(project: Project, run_id: int, count: int) -> str:
    """How many mistakes the run adds to the panel's queue, and why the others do not."""
    if not count:
        return "0 mistakes"
    from reviewer.app.runs import pending_summary

    split = pending_summary(project, run_id)
    return (f"{count} mistake{'s' if count != 1 else ''} stored: {split['queued']} queued for review, {split['known_wrong_label']} "
            f"already a wrong label of their image, {split['decided']} already decided by the panel")
