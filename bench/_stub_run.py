"""A run whose model and decoding cost nothing, for bench/bench_predict_fixed_costs.py: the
work of `predict` and `import-logits` around the forward passes, timed phase by phase in a
process of its own (the parent reads its wall time and peak memory).

    python bench/_stub_run.py predict PROJECT [--batch-size 128] [--profile DIR]
    python bench/_stub_run.py import-logits PROJECT FILE [--profile DIR]

predict: `reviewer.runs.compute.predict_models` as the command calls it, on the CPU, with two
stand-ins: the model is a module that returns made-up logits (a fixed noise row, and the
image's label 8 above it for 3 images in 4, else the next class: `stub_logits`), and the
loader hands out 1x1 "images" carrying the image's label, without reading a file. Everything
else is the real code: the images listed, the run made and prepared, the image paths, the
classifier (normalising, softmax), the recorder thread (top-5, float16 file, fsync, commit),
the report, the mistakes, and what the command prints after (`_print_result`).

import-logits: `reviewer import-logits` itself (reviewer.cli.main), its steps timed.

Each prints one JSON line on stdout: seconds per phase, in order, and its peak memory.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import sys
import time
from pathlib import Path

T0 = time.perf_counter()
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

NOISE_ROWS = 4096


@functools.cache
def _noise() -> np.ndarray:
    return np.random.default_rng(34).standard_normal((NOISE_ROWS, 1000), dtype=np.float32)


def stub_logits(labels: np.ndarray, salts: np.ndarray) -> np.ndarray:
    """float32 [n, 1000] logits of made-up predictions: a noise row chosen by the label and
    the salt (an image's id mod 256), with the label (salt % 4 != 0) or the class after it
    8 above. The same for the stand-in model and for the file import-logits reads."""
    noise = _noise()
    labels, salts = np.asarray(labels, dtype=np.int64), np.asarray(salts, dtype=np.int64)
    logits = noise[(labels * 31 + salts) % NOISE_ROWS]
    target = np.where(salts % 4 != 0, labels, (labels + 1) % 1000)
    logits[np.arange(len(labels)), target] += 8
    return logits


def peak_mb() -> float:
    """This process's peak resident memory since its exec (VmHWM). Not getrusage's maxrss: the
    kernel folds the memory of the process that spawned it, before the exec, into that."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Phases:
    """Seconds spent in wrapped functions, summed per phase, in the order first entered."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def wrap(self, owner, name: str, phase: str) -> None:
        """Time `owner.name` as `phase` (absent in an older tree: left out, its time in "other")."""
        function = getattr(owner, name, None)
        if function is None:
            return

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[phase] = self.seconds.get(phase, 0.0) + time.perf_counter() - started

        setattr(owner, name, timed)

    def add(self, phase: str, seconds: float) -> None:
        self.seconds[phase] = self.seconds.get(phase, 0.0) + seconds


def _profiled(profile_dir: Path | None, name: str):
    if profile_dir is None:
        return contextlib.nullcontext()
    import cProfile

    @contextlib.contextmanager
    def run():
        profile = cProfile.Profile()
        profile.enable()
        try:
            yield
        finally:
            profile.disable()
            profile_dir.mkdir(parents=True, exist_ok=True)
            profile.dump_stats(str(profile_dir / f"{name}.prof"))

    return run()


def stub_model():
    """A LoadedModel whose forward pass is a table look-up (`stub_logits`); its data config
    leaves the loader's pixel codes as they are (mean 0, std 1/255)."""
    import torch

    from models.sources import LoadedModel

    class StubForward(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            codes = x[:, :, 0, 0].round().long().numpy()
            return torch.from_numpy(stub_logits(codes[:, 0] * 256 + codes[:, 1], codes[:, 2]))

    config = {"input_size": (3, 1, 1), "mean": (0.0, 0.0, 0.0), "std": (1 / 255,) * 3,
              "interpolation": "bicubic", "crop_pct": 1.0, "crop_mode": "center"}
    return LoadedModel(name="stub", model=StubForward().eval(), data_config=config, source="hub",
                       weights_sha256="0" * 64, weights_file=None, device=torch.device("cpu"))


class StubLoader:
    """Batches of 1x1 'images' whose three bytes are the label (two) and the image id mod 256."""

    def __init__(self, ids: list[int], label_of: dict[int, int], batch_size: int):
        self.ids, self.label_of, self.batch_size = ids, label_of, batch_size

    def __len__(self) -> int:
        return -(-len(self.ids) // self.batch_size)

    def start(self) -> "StubLoader":
        return self

    def __iter__(self):
        import torch

        from models.pipeline import ImageBatch

        for start in range(0, len(self.ids), self.batch_size):
            ids = np.asarray(self.ids[start:start + self.batch_size], dtype=np.int64)
            labels = np.array([self.label_of.get(int(i), 0) for i in ids], dtype=np.int64)
            pixels = np.zeros((len(ids), 3, 1, 1), dtype=np.uint8)
            pixels[:, 0, 0, 0], pixels[:, 1, 0, 0], pixels[:, 2, 0, 0] = labels // 256, labels % 256, ids % 256
            yield ImageBatch(list(range(start, start + len(ids))), torch.from_numpy(pixels))

    def close(self) -> None:
        pass


def run_predict(root: Path, batch_size: int, profile_dir: Path | None) -> dict:
    phases = Phases()
    import torch  # noqa: F401 - as the command imports it before the run
    from sqlalchemy import select

    import reviewer.runs._attempt as attempt_module
    import reviewer.runs._pass as pass_module
    import reviewer.runs.compute as compute
    from db.tables import Image
    from reviewer.cli.cmd_predict import _print_result
    from reviewer.project import Project

    phases.add("imports", time.perf_counter() - T0)
    started = time.perf_counter()
    project = Project.open(root)
    phases.add("project opened", time.perf_counter() - started)
    with project.read() as session:  # what the stand-in loader hands out: not the run's work, not timed
        label_of = dict(session.execute(select(Image.id, Image.original_label)).all())

    stub = stub_model()
    compute.load_model = lambda *args, **kwargs: stub
    listed: dict[str, list[int]] = {}
    real_image_files = pass_module.image_files

    def image_files(project, ids, *, session):
        listed["ids"] = list(ids)
        return real_image_files(project, ids, session=session)

    pass_module.image_files = image_files
    pass_module.create_batch_loader = lambda paths, data_config, config: StubLoader(
        listed["ids"], label_of, config.batch_size)
    phases.wrap(compute, "run_images", "images listed")
    phases.wrap(compute, "_create_run", "run created (row, image list, probability file)")
    phases.wrap(attempt_module.Attempt, "prepare", "run prepared (done rows read, set running)")
    phases.wrap(pass_module, "image_files", "image paths")
    phases.wrap(attempt_module.Attempt, "open", "classifier and file opened")
    phases.wrap(attempt_module.Attempt, "close", "last writes drained, report")
    phases.wrap(compute, "end_run", "mistakes found and stored")
    moments: dict[str, float] = {}

    def watched(update) -> None:
        now = time.perf_counter()
        if update.done_now and "first" not in moments:
            moments["first"], moments["first_images"] = now, update.done_now
        if update.done >= update.total:
            moments.setdefault("last", now)

    called = time.perf_counter()
    with _profiled(profile_dir, "predict"):
        (result,) = compute.predict_models(project, ["stub"], device="cpu", batch_size=batch_size,
                                           rerun=True, progress=watched)
        returned = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            _print_result(project, result)
        done = time.perf_counter()
    project.close()
    seconds = phases.seconds
    before = ["images listed", "run created (row, image list, probability file)",
              "run prepared (done rows read, set running)", "image paths", "classifier and file opened"]
    after = ["last writes drained, report", "mistakes found and stored"]
    loop = moments["last"] - moments["first"]
    figures = {
        "imports": seconds["imports"], "project opened": seconds["project opened"],
        "call to first batch": moments["first"] - called,
        **{f"  {name}": seconds.get(name, 0.0) for name in before},
        "loop": loop,
        "last batch to return": returned - moments["last"],
        **{f"  {name}": seconds.get(name, 0.0) for name in after},
        "printing (top-1, mistakes' split)": done - returned,
    }
    return {"phases": figures, "images": result.predicted, "mistakes": result.mistakes, "peak_mb": peak_mb(),
            "steady_rate": (result.predicted - moments["first_images"]) / loop if loop > 0 else 0.0,
            "printed": printed.getvalue().strip().splitlines()[-1]}


HASHED = "file hashed (beside the checks, on a thread)"


def run_import_logits(root: Path, file: Path, profile_dir: Path | None) -> dict:
    phases = Phases()
    import reviewer.app.runs  # noqa: F401 - what the command imports for its act
    import reviewer.runs.logits as logits
    from reviewer.cli import main

    phases.add("imports", time.perf_counter() - T0)
    phases.wrap(logits, "read_scores", "file read and checked")
    phases.wrap(logits, "_match_images", "rows matched to images")
    phases.wrap(logits, "sha256_file", HASHED)
    phases.wrap(logits, "_write_probabilities", "softmax, top-5, float16 file")
    phases.wrap(logits, "_insert_predictions", "prediction rows inserted")
    phases.wrap(logits, "end_run", "mistakes found and stored")
    moments: dict[str, float] = {}
    import_logits = logits.import_logits

    def timed_import(*args, **kwargs):
        moments["called"] = time.perf_counter()
        try:
            return import_logits(*args, **kwargs)
        finally:
            moments["returned"] = time.perf_counter()

    logits.import_logits = timed_import
    started = time.perf_counter()
    with _profiled(profile_dir, "import_logits"), contextlib.redirect_stdout(io.StringIO()) as printed:
        code = main(["import-logits", str(root), str(file), "--model", f"logits of {file.stem}"])
    done = time.perf_counter()
    assert code == 0, printed.getvalue()
    seconds = phases.seconds
    # The hash runs on a thread of its own beside the checks (since issue 34): not added in.
    inside = sum(v for k, v in seconds.items() if k not in ("imports", HASHED))
    figures = {"imports": seconds["imports"], "parser, project opened": moments["called"] - started,
               **{f"  {k}": v for k, v in seconds.items() if k != "imports"},
               "  other (runs found, run started, commit)": moments["returned"] - moments["called"] - inside,
               "printing (top-1, mistakes' split)": done - moments["returned"]}
    return {"phases": figures, "peak_mb": peak_mb(), "printed": printed.getvalue().strip().splitlines()[-1]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("predict", "import-logits"))
    parser.add_argument("project", type=Path)
    parser.add_argument("file", type=Path, nargs="?")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--profile", type=Path, default=None)
    args = parser.parse_args()
    if args.command == "predict":
        figures = run_predict(args.project, args.batch_size, args.profile)
    else:
        figures = run_import_logits(args.project, args.file, args.profile)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
