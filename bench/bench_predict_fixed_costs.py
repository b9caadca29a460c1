"""The fixed costs of a run: the work before its first batch and after its last one, at
several sizes, for `reviewer predict` and for `reviewer import-logits` of the same rows; and
a `reviewer predict` process's moments against its steady rate.

    python bench/bench_predict_fixed_costs.py [--sizes 5000,20000,50000] [--batch-size 128]
                                              [--profile DIR] [--keep DIR] [--json FILE]
    python bench/bench_predict_fixed_costs.py --images 2000 [--rounds 1] [--device cpu]
                                              [--profile DIR] [--digest] [--model NAME] [--predict-args "..."]
    python bench/bench_predict_fixed_costs.py --post-run N [--batch-size 128] [--profile DIR] [--digest]

Sizes (the default): for each size N, a project of the first N validation images with their
real original labels (the cleanlab index file in ../shared/data or tests/data) and a stand-in
path each, then, each in a fresh process (bench/_stub_run.py), a `predict` whose model and
decoding cost nothing (a table look-up for logits, 1x1 images that carry their label; the run's
own code everywhere else: the run made and prepared, the image paths, the classifier's softmax,
the recorder thread's top-5, float16 file, fsync and commits, the report, the mistakes, the
lines the command prints), and `reviewer import-logits` of the same logits (an .npz naming each
row), as a user runs it. Printed per phase: seconds at each size, and the ratio of each size's
seconds to the smallest size's beside the ratio of their images (linear growth: the same
ratio), with each child's wall time (from the parent) and peak memory (its VmHWM). What grows
faster than the images is a fixed cost that will hold a fast accelerator back at 50,000.
--profile DIR: cProfile of each child's run (predict_N.prof, import_logits_N.prof).

--images N: a `reviewer predict` process, model and decoding included. Images: the 300 demo
JPEGs in assets/demo, linked --images times (as bench_predict_gpu.py builds its set: decoding
reads the page cache), in one project. Each round runs
`python -m reviewer predict PROJECT --model tf_efficientnet_lite0 --rerun` as a user does
(the bundled weights, the defaults), through a small wrapper that prints the moments of
the process on stderr (the wrapper imports nothing the command would not; it wraps
`reviewer.app.runs.run_models` and the progress callback). Per round, in seconds from the
process's start (the parent's clock):

  interpreter    to the wrapper's first line (Python, site, the venv's path hooks)
  before call    to the call of the run act (the command's imports, the project opened; since
                 the command imports torch and timm itself with the collector paused, those too)
  imports        the act's first step: importing the run code (torch and timm when the
                 command has not: a tree from before that change)
  to 1st batch   from there to the first batch's probabilities (the model built and its
                 weights read, the run created and prepared, the decoding started, the
                 first forward pass: on a GPU the context and its kernels' first use)
  loop           the first batch to the last
  storing        the last batch to the act's return (the last batches' writes and commits,
                 the report, the mistakes found and stored)
  printing       the return to the process's end (top-1 and the mistakes' split counted,
                 the exit)

and the cycle collector's full collections (their count and seconds, in the whole process);
then the steady rate (images / loop, and the command's own printed images/s, which counts
from the loader's start), the whole process's rate (images / wall time) and their ratio.
The issue's target: whole >= 0.85 x steady at 20,000 images. The fixed costs are the sum
of all but the loop; a run of N images reaches the ratio N/rate / (N/rate + fixed).

--post-run N: the work after a run's forward passes alone, in this process, on a project
of N images and a run of made-up probabilities (seeded logits, the image's label on top
for 3 in 4 images; no model, no decoding): the top-5 rows committed batch by batch as the
run's writer thread commits them (`--batch-size`, default 128 as on a GPU), the mistakes
found and stored (`end_run`), and what the command prints after (top-1 against the labels,
the mistakes' split); milliseconds of each, with cProfile of each under --profile, and the
digest of what was stored.

With --images, --profile DIR: cProfile of the main thread from the interpreter's start to
the first batch (start.prof) and from the last batch to the exit (end.prof), with the 25
largest cumulative entries of each printed. --digest: a SHA-256 of the stored top-5 rows, the probability
file and the mistakes of the last run (the same images and model give the same digest
before and after a change that must not alter stored results).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from reviewer.project import PROJECT_FILE  # noqa: E402

# Runs in the child: `python -c WRAPPER PROFILE_DIR -- reviewer args...`.
WRAPPER = r"""
import time
T0 = time.perf_counter()
import gc, os, sys
profile_dir = sys.argv[1] or None
collections = [0, 0.0, 0.0]  # full collections, their seconds, seconds of all collections

def collected(phase, info, _started=[0.0]):
    if phase == "start":
        _started[0] = time.perf_counter()
        return
    spent = time.perf_counter() - _started[0]
    collections[2] += spent
    if info["generation"] == 2:
        collections[0] += 1
        collections[1] += spent

gc.callbacks.append(collected)
sys.argv = ["reviewer"] + sys.argv[3:]
profiles = {}
if profile_dir:
    import cProfile
    profiles["start"] = cProfile.Profile()
    profiles["start"].enable()

def mark(name, images=0):
    print(f"@mark {name} {time.perf_counter() - T0:.4f} {images}", file=sys.stderr, flush=True)

def switch(old, new):
    if old in profiles:
        profiles[old].disable()
        profiles[old].dump_stats(os.path.join(profile_dir, old + ".prof"))
    if profile_dir and new:
        import cProfile
        profiles[new] = cProfile.Profile()
        profiles[new].enable()

mark("started")
import reviewer.app.runs as acts
run_models = acts.run_models

def timed_run_models(project, models, *, progress=None, **options):
    state = {"first": False, "last": False}

    def watched(update):
        if progress is not None:
            progress(update)
        if update.done_now and not state["first"]:
            state["first"] = True
            mark("first_batch", update.done_now)
            switch("start", None)
        if update.done >= update.total and not state["last"]:
            state["last"] = True
            mark("last_batch")
            switch(None, "end")

    mark("call")
    import reviewer.runs.compute  # what run_models imports first (torch, timm), timed apart
    mark("imported")
    try:
        return run_models(project, models, progress=watched, **options)
    finally:
        mark("returned")

acts.run_models = timed_run_models
real_exit = os._exit

def exit_marked(code):
    print(f"@gc {collections[0]} {collections[1]:.4f} {collections[2]:.4f}", file=sys.stderr, flush=True)
    mark("exit")
    switch("end", None)
    real_exit(code)

os._exit = exit_marked
from reviewer.cli import main
code = main()
exit_marked(code)
"""
LINE = re.compile(r"(\d+) of (\d+) images predicted in ([\d.]+) s \(([\d.]+) images/s; first batch ([\d.]+) s "
                  r"after the start, storing ([\d.]+) s")


def linked_images(root: Path, count: int) -> list[Path]:
    """`count` links to the demo JPEGs in a folder beside the project (made afresh)."""
    from bench_predict_gpu import replicate  # torch and timm: the --images and --post-run modes only

    folder = root.parent / f"{root.name}_images"
    shutil.rmtree(folder, ignore_errors=True)
    return replicate(folder, count)


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def run_process(project: Path, model: str, device: str, extra: list[str], profile_dir: Path | None,
                timeout: float) -> dict:
    command = [sys.executable, "-c", WRAPPER, str(profile_dir or ""), "--", "predict", str(project),
               "--model", model, "--device", device, "--rerun", *extra]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    load = load_average()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    lines: dict[str, list[tuple[float, str]]] = {"out": [], "err": []}

    def read(stream, key):
        for line in stream:
            lines[key].append((time.perf_counter() - started, line))

    readers = [threading.Thread(target=read, args=(process.stdout, k)) for k in ("out",)] + \
        [threading.Thread(target=read, args=(process.stderr, "err"))]
    for reader in readers:
        reader.start()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
    for reader in readers:
        reader.join()
    wall = time.perf_counter() - started
    out = "".join(line for _, line in lines["out"])
    found = LINE.search(out)
    marks, first_images, collections = {}, 0, (0, 0.0, 0.0)
    for _, line in lines["err"]:
        if line.startswith("@gc "):
            _, full, full_s, all_s = line.split()
            collections = (int(full), float(full_s), float(all_s))
        if line.startswith("@mark "):
            _, name, at, images = line.split()
            marks[name] = float(at)
            first_images = int(images) if name == "first_batch" else first_images
    if process.returncode != 0 or not found or \
            not {"started", "call", "imported", "first_batch", "last_batch", "returned"} <= set(marks):
        err = "".join(line for _, line in lines["err"] if not line.startswith("@mark"))
        raise RuntimeError(f"predict failed ({process.returncode}):\n{out[-1500:]}\n{err[-3000:]}")
    # The child's clock starts after the interpreter is up: its end (exit) is the parent's wall
    # minus the pipe's close, so place the child's marks by the offset that puts "exit" at the end.
    offset = wall - marks.get("exit", marks["returned"])
    images = int(found.group(1))
    loop = marks["last_batch"] - marks["first_batch"]
    return {
        "images": images, "wall_s": wall, "load_before": load, "load_after": load_average(),
        "interpreter_s": offset, "before_call_s": marks["call"] - marks["started"],
        "imports_s": marks["imported"] - marks["call"],
        "to_first_batch_s": marks["first_batch"] - marks["imported"], "loop_s": loop,
        "storing_s": marks["returned"] - marks["last_batch"],
        "printing_s": wall - offset - marks["returned"],
        "steady": (images - first_images) / loop if loop > 0 else 0.0,
        "printed_rate": float(found.group(4)), "whole": images / wall,
        "printed_first_batch_s": float(found.group(5)), "printed_storing_s": float(found.group(6)),
        "full_collections": collections[0], "full_collections_s": collections[1], "collections_s": collections[2],
    }


def digest(project_root: Path) -> dict:
    """SHA-256 of what the newest run stored: top-5 rows, probabilities, mistakes."""
    from sqlalchemy import select

    from db.engine import read_session
    from db.tables import Mistake, Prediction, Run
    from reviewer.project import Project

    project = Project.open(project_root)
    with read_session(project.engine) as session:
        run = session.execute(select(Run).order_by(Run.id.desc())).scalars().first()
        top5 = session.execute(select(Prediction.image_id, Prediction.row,
                                      *[getattr(Prediction, f"pred_{k}") for k in range(1, 6)],
                                      *[getattr(Prediction, f"prob_{k}") for k in range(1, 6)])
                               .where(Prediction.run_id == run.id).order_by(Prediction.image_id)).all()
        mistakes = session.execute(select(Mistake.image_id, Mistake.predicted, Mistake.probability, Mistake.novel,
                                          Mistake.hierarchy_distance)
                                   .where(Mistake.run_id == run.id).order_by(Mistake.image_id)).all()
        probs_file = project.root / run.probs_path if run.probs_path else None
    project.close()
    return {"run": run.id, "predictions": len(top5), "mistakes": len(mistakes),
            "top5_sha256": hashlib.sha256(repr([tuple(r) for r in top5]).encode()).hexdigest()[:16],
            "probabilities_sha256": hashlib.sha256(probs_file.read_bytes()).hexdigest()[:16] if probs_file else None,
            "mistakes_sha256": hashlib.sha256(repr([tuple(r) for r in mistakes]).encode()).hexdigest()[:16]}


def post_run(root: Path, images: int, batch_size: int, profile_dir: Path | None) -> dict:
    """The storing work of a run of `images` made-up results, timed step by step."""
    import cProfile
    from types import SimpleNamespace

    import numpy as np
    from bench_predict_gpu import make_project
    from sqlalchemy import select

    from db.engine import read_session, write_session
    from db.tables import Image, Model, Run
    from reviewer.cli.cmd_predict import _mistakes_line
    from reviewer.project import Project
    from reviewer.runs import compute
    from reviewer.runs._attempt import Attempt
    from reviewer.runs.records import top1_counts

    if not (root / PROJECT_FILE).exists():
        make_project(root, linked_images(root, images)).close()
    project = Project.open(root)
    with write_session(project.engine) as session:
        model = session.execute(select(Model).where(Model.name == "made-up")).scalars().first()
        if model is None:
            model = Model(name="made-up", source="bundled")
            session.add(model)
            session.flush()
        run = Run(model_id=model.id, status="complete", num_images=images, device="cpu")
        session.add(run)
        session.flush()
        run_id = run.id
    with read_session(project.engine) as session:
        ids, labels = map(list, zip(*session.execute(select(Image.id, Image.original_label).order_by(Image.id))))
    rng = np.random.default_rng(27)
    writer = SimpleNamespace(ids=ids, run=SimpleNamespace(id=run_id), project=project)
    timings, profiles = {}, {}

    def step(name, work):
        profile = cProfile.Profile() if profile_dir else None
        started = time.perf_counter()
        if profile:
            profile.enable()
        value = work()
        if profile:
            profile.disable()
            profile.dump_stats(str(profile_dir / f"post_run_{name}.prof"))
            profiles[name] = profile_dir / f"post_run_{name}.prof"
        timings[name] = timings.get(name, 0.0) + time.perf_counter() - started
        return value

    batches = 0
    for start in range(0, images, batch_size):
        rows = np.arange(start, min(images, start + batch_size))
        logits = rng.standard_normal((len(rows), 1000)).astype(np.float32)
        hit = rng.random(len(rows)) < 0.75
        logits[np.flatnonzero(hit), np.asarray(labels)[rows][hit]] += 8
        probs = np.exp(logits - logits.max(1, keepdims=True))
        probs /= probs.sum(1, keepdims=True)
        started = time.perf_counter()
        Attempt._commit(writer, rows, probs)
        timings["top5_commits"] = timings.get("top5_commits", 0.0) + time.perf_counter() - started
        batches += 1
    count = step("end_run", lambda: compute.end_run(project, run_id)[0])
    step("top1_counts", lambda: project.read().__enter__() and None)  # warm the reader's imports alike
    timings.pop("top1_counts")
    with project.read() as session:
        step("top1_counts", lambda: top1_counts(session=session, run_id=run_id))
    step("mistakes_line", lambda: _mistakes_line(project, run_id, count))
    project.close()
    figures = {"images": images, "batch_size": batch_size, "batches": batches, "mistakes": count,
               **{f"{k}_ms": round(v * 1000, 1) for k, v in timings.items()},
               "top5_commit_ms_per_batch": round(timings["top5_commits"] * 1000 / batches, 2), "run": run_id}
    for name, path in profiles.items():
        print_profile(path, f"post-run step {name}", entries=18)
    return figures


# -- sizes: predict and import-logits with a model that costs nothing --------------------------

def shared_file(relative: str) -> Path:
    """A file of the shared data folder (REVIEWER_SHARED_DATA, ../shared/data), else tests/data."""
    roots = [Path(os.environ["REVIEWER_SHARED_DATA"])] if os.environ.get("REVIEWER_SHARED_DATA") else []
    for root in [*roots, REPO.parent / "shared" / "data", REPO / "tests" / "data"]:
        if (root / relative).is_file():
            return root / relative
    raise SystemExit(f"{relative} not found in the shared data folder nor in tests/data")


def validation_labels() -> list[int]:
    """The 50,000 validation images' original labels in file order (from cleanlab's index of
    the validation set by class folder: the folder is the label)."""
    paths = json.loads(shared_file("published/label-errors/imagenet_val_set_index_to_filepath.json").read_text())
    wnids = sorted({path.split("/")[-2] for path in paths})
    index = {wnid: i for i, wnid in enumerate(wnids)}
    labels = [0] * len(paths)
    for path in paths:
        wnid, name = path.split("/")[-2:]
        labels[int(re.search(r"_(\d{8})\.", name).group(1)) - 1] = index[wnid]
    return labels


def stub_project(root: Path, images: int, labels: list[int]) -> None:
    """A project of the first `images` validation images, their original labels and a stand-in
    path each (the stub loader opens no file)."""
    from sqlalchemy import insert

    from db.engine import write_session
    from db.tables import Image
    from reviewer.project import Project

    project = Project.create(root)
    with write_session(project.engine) as session:
        session.execute(insert(Image), [
            {"file_name": name, "path": f"stub/{name}", "original_label": labels[i], "val_index": i}
            for i, name in ((i, f"ILSVRC2012_val_{i + 1:08d}.JPEG") for i in range(images))])
    project.close()


def stub_scores(file: Path, images: int, labels: list[int]) -> None:
    """The logits the stub model gives the project's images (image id i + 1 = row i), as an
    .npz naming each row: import-logits of the same rows as the predict."""
    import numpy as np
    from _stub_run import stub_logits

    ids = np.arange(1, images + 1)
    names = np.array([f"ILSVRC2012_val_{i + 1:08d}.JPEG" for i in range(images)])
    np.savez(file, logits=stub_logits(np.asarray(labels[:images]), ids % 256), file_names=names)


def run_child(arguments: list[str], timeout: float) -> dict:
    """bench/_stub_run.py ARGUMENTS in a process of its own: its JSON (its own peak memory
    included) and wall time."""
    load = load_average()
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, str(REPO / "bench" / "_stub_run.py"), *arguments],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    wall = time.perf_counter() - started
    if process.returncode != 0 or not out.strip():
        raise RuntimeError(f"{' '.join(arguments[:2])} failed ({process.returncode}):\n{err[-3000:]}")
    figures = json.loads(out.strip().splitlines()[-1])
    figures.update(wall_s=wall, load=f"{load} -> {load_average()}")
    return figures


def sweep(sizes: list[int], batch_size: int, keep: Path | None, profile: Path | None, timeout: float) -> dict:
    labels = validation_labels()
    results: dict[str, dict[int, dict]] = {"predict": {}, "import-logits": {}}
    with tempfile.TemporaryDirectory() as tmp:
        base = keep or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        for size in sizes:
            root = base / f"project_{size}"
            shutil.rmtree(root, ignore_errors=True)
            stub_project(root, size, labels)
            scores = base / f"scores_{size}.npz"
            stub_scores(scores, size, labels)
            extra = ["--profile", str(profile / f"{size}")] if profile else []
            print(f"{size} images: predict ...", flush=True)
            results["predict"][size] = run_child(["predict", str(root), "--batch-size", str(batch_size), *extra],
                                                 timeout)
            print(f"  {results['predict'][size]['printed']}\n{size} images: import-logits ...", flush=True)
            results["import-logits"][size] = run_child(["import-logits", str(root), str(scores), *extra], timeout)
            print(f"  {results['import-logits'][size]['printed']}", flush=True)
    for command, by_size in results.items():
        print_sizes(command, by_size)
    return {command: {str(k): v for k, v in by_size.items()} for command, by_size in results.items()}


def print_sizes(command: str, by_size: dict[int, dict]) -> None:
    """Seconds per phase at each size, then each size's seconds over the smallest's."""
    sizes = sorted(by_size)
    smallest = sizes[0]
    rows = {name: [by_size[n]["phases"][name] for n in sizes] for name in by_size[smallest]["phases"]}
    rows["whole process (wall)"] = [by_size[n]["wall_s"] for n in sizes]
    if command == "predict":
        rows["fixed: all but the loop"] = [by_size[n]["wall_s"] - by_size[n]["phases"]["loop"] for n in sizes]
    width = max(len(name) for name in rows) + 2
    ratio_heads = [f"{n / smallest:g}x images" for n in sizes[1:]]
    print(f"\n{command}, seconds (load {by_size[sizes[0]]['load']} ... {by_size[sizes[-1]]['load']})")
    print(" " * width + "".join(f"{n:>10,}" for n in sizes) + "".join(f"{h:>14}" for h in ratio_heads))
    for name, values in rows.items():
        ratios = [f"{v / values[0]:>13.2f}x" if values[0] > 0.005 else f"{'-':>14}" for v in values[1:]]
        print(f"{name:<{width}}" + "".join(f"{v:>10.2f}" for v in values) + "".join(ratios))
    print(f"{'peak memory (MB)':<{width}}" + "".join(f"{by_size[n]['peak_mb']:>10.0f}" for n in sizes))
    if command == "predict":
        print(f"{'steady rate (images/s)':<{width}}" + "".join(f"{by_size[n]['steady_rate']:>10.0f}" for n in sizes))


def print_profile(path: Path, title: str, entries: int = 25) -> None:
    print(f"\n{title} ({path}), main thread, by cumulative time:")
    stats = pstats.Stats(str(path))
    stats.sort_stats("cumulative").print_stats(entries)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5000,20000,50000",
                        help="images of each project of the sizes mode (the default mode)")
    parser.add_argument("--keep", type=Path, default=None, help="sizes mode: keep its projects and files here")
    parser.add_argument("--images", type=int, default=None,
                        help="time a whole `reviewer predict` process over this many linked demo images")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--model", default="tf_efficientnet_lite0")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--predict-args", default="", help="extra arguments of every predict run")
    parser.add_argument("--profile", type=Path, default=None, help="folder for start.prof and end.prof")
    parser.add_argument("--digest", action="store_true", help="print a digest of the last run's stored results")
    parser.add_argument("--project", type=Path, default=None, help="reuse (or make) the project here")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--post-run", type=int, default=None, metavar="N",
                        help="time the storing work alone on N images of made-up results (no model)")
    parser.add_argument("--batch-size", type=int, default=128,
                        help="batch of the sizes mode's predict and of --post-run's commits (128: a GPU's)")
    args = parser.parse_args()
    if args.post_run is None and args.images is None:
        sizes = [int(n) for n in args.sizes.split(",")]
        print(f"predict with a model that costs nothing, and import-logits of the same rows, at "
              f"{', '.join(f'{n:,}' for n in sizes)} images; batches of {args.batch_size}; "
              f"{len(os.sched_getaffinity(0))} usable cores; load average {load_average()}", flush=True)
        result = sweep(sizes, args.batch_size, args.keep, args.profile, args.timeout)
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
        return 0
    if args.post_run:
        with tempfile.TemporaryDirectory() as tmp:
            root = args.project or Path(tmp) / "project"
            if args.profile:
                args.profile.mkdir(parents=True, exist_ok=True)
            print(f"post-run work of {args.post_run} images, load average {load_average()}", flush=True)
            figures = post_run(root, args.post_run, args.batch_size, args.profile)
            print(json.dumps(figures))
            if args.digest:
                print("stored results:", json.dumps(digest(root)))
            print(f"load average after: {load_average()}")
        return 0
    extra = args.predict_args.split() if args.predict_args else []
    with tempfile.TemporaryDirectory() as tmp:
        root = args.project or Path(tmp) / "project"
        if not (root / PROJECT_FILE).exists():
            from bench_predict_gpu import make_project

            make_project(root, linked_images(root, args.images)).close()
        print(f"{args.images} images, {args.model} on {args.device}, {len(os.sched_getaffinity(0))} usable cores; "
              f"load average {load_average()}", flush=True)
        rounds = []
        for number in range(args.rounds):
            profile_dir = None
            if args.profile and number == args.rounds - 1:
                profile_dir = args.profile
                profile_dir.mkdir(parents=True, exist_ok=True)
            figures = run_process(root, args.model, args.device, extra, profile_dir, args.timeout)
            rounds.append(figures)
            fixed = figures["wall_s"] - figures["loop_s"]
            print(f"round {number + 1}: wall {figures['wall_s']:.1f} s = interpreter {figures['interpreter_s']:.2f}"
                  f" + before call {figures['before_call_s']:.2f} + imports {figures['imports_s']:.2f}"
                  f" + to 1st batch {figures['to_first_batch_s']:.2f}"
                  f" + loop {figures['loop_s']:.1f} + storing {figures['storing_s']:.2f}"
                  f" + printing {figures['printing_s']:.2f}; fixed {fixed:.1f} s (full collections "
                  f"{figures['full_collections']}: {figures['full_collections_s']:.2f} s); steady {figures['steady']:.1f}"
                  f" (printed {figures['printed_rate']:.1f}), whole {figures['whole']:.1f} images/s, whole/steady "
                  f"{figures['whole'] / figures['steady']:.3f}; at 20,000 images the same costs give "
                  f"{_ratio_at(figures, 20_000):.3f}; load {figures['load_before']} -> {figures['load_after']}",
                  flush=True)
        if args.profile:
            for name, title in (("start", "start-up to the first batch"), ("end", "the last batch to the exit")):
                if (args.profile / f"{name}.prof").exists():
                    print_profile(args.profile / f"{name}.prof", title)
        result = {"rounds": rounds}
        if args.digest:
            result["digest"] = digest(root)
            print("stored results:", json.dumps(result["digest"]))
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
    return 0


def _ratio_at(figures: dict, images: int) -> float:
    """whole/steady for a run of `images` at this steady rate with these fixed costs (the
    storing part grows with the run; taken as it was measured)."""
    loop = images / figures["steady"]
    return loop / (loop + figures["wall_s"] - figures["loop_s"])


if __name__ == "__main__":
    raise SystemExit(main())
