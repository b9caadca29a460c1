"""`reviewer predict` on an accelerator against timm's own loader, a plain loop and the forward pass.

    python bench/bench_predict_gpu.py --device cuda                      # the table in the README
    python bench/bench_predict_gpu.py --device cpu --images 96 --loader-images 64 --plain-images 32 \\
        --forward-iters 2 --reference-images 20                           # a small check anywhere

Images: the 300 demo JPEGs in assets/demo, replicated by symbolic link to
--images files (decoding reads from the page cache, as on a warm dataset). For
each model (the bundled tf_efficientnet_lite0; vit_base_patch16_224 with random
weights through --checkpoint, which times the same as trained ones), images/s of:

  forward      the forward pass alone (models.Classifier.predict on a decoded batch
               on the device: normalise, forward, softmax, copy back), fp32 and bf16;
  timm N       timm's create_loader as timm's validate.py uses it (prefetcher, pinned
               memory, N workers, batch 256), model forward + softmax, fp32 (and bf16
               for the most workers); TF32 matmuls and cudnn.benchmark on, as validate.py
               sets them; steady (from the first batch) and whole loop (workers' start too);
  plain        one process: PIL open, timm's transform, stack, forward, softmax;
  predict      `python -m reviewer predict` in a subprocess over --images files: its
               own "images/s" (steady) and images / the whole process's wall time,
               fp32 and bf16, with the first-batch and storing times it prints.

Then the largest difference of `predict`'s stored probabilities (float16) from
timm's CPU fp32 reference (PIL + create_transform + the model on the CPU) on the
300 demo images, for fp32 and bf16, with the number above 1e-3 and top-1 changes.
A JSON of every figure goes to --json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image as PILImage  # noqa: E402
from sqlalchemy import insert  # noqa: E402
from timm.data import ImageNetInfo, create_transform, resolve_data_config  # noqa: E402

from db.engine import write_session  # noqa: E402
from db.tables import Image  # noqa: E402
from models import Classifier, InferenceConfig, load_model, open_probabilities  # noqa: E402
from models.pipeline import create_image_transform, decode_image  # noqa: E402
from reviewer.project import Project  # noqa: E402
from reviewer.runs.compute import predict  # noqa: E402

DEMO = REPO / "assets" / "demo" / "images"
MODELS = {"lite0": ("tf_efficientnet_lite0", False), "vit": ("vit_base_patch16_224", True)}
LINE = re.compile(r"(\d+) of (\d+) images predicted in ([\d.]+) s \(([\d.]+) images/s; first batch ([\d.]+) s "
                  r"after the start, storing ([\d.]+) s")


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def replicate(folder: Path, count: int) -> list[Path]:
    """`count` links to the demo JPEGs, cycling, named so that their order is the demo's."""
    demo = sorted(DEMO.iterdir())
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i in range(count):
        source = demo[i % len(demo)]
        link = folder / f"{i:06d}_{source.name}"
        link.symlink_to(source)
        files.append(link)
    return files


def make_project(root: Path, files: list[Path]) -> Project:
    index = {wnid: i for i, wnid in enumerate(ImageNetInfo().label_names())}
    project = Project.create(root)
    with write_session(project.engine) as session:
        session.execute(insert(Image), [
            {"file_name": f.name, "path": str(f), "original_label": index.get(f.name.split("_")[1])}
            for f in files])
    return project


def tf32_defaults() -> dict:
    """torch's TF32 settings at start (restored before timm's loops, as validate.py runs)."""
    conv = getattr(torch.backends.cudnn, "conv", None)
    if conv is not None and hasattr(conv, "fp32_precision"):
        return {"matmul": torch.backends.cuda.matmul.fp32_precision, "conv": conv.fp32_precision}
    return {"allow_matmul": torch.backends.cuda.matmul.allow_tf32, "allow_conv": torch.backends.cudnn.allow_tf32}


def guarded(label: str, work, default=None):
    """One measurement; a failure is printed and the others still run (one device call)."""
    try:
        return work()
    except Exception as exc:  # noqa: BLE001
        import traceback

        log(f"{label} FAILED: {exc!r}\n{traceback.format_exc()[-1500:]}")
        return default


def restore_tf32(state: dict) -> None:
    if "matmul" in state:
        torch.backends.cuda.matmul.fp32_precision = state["matmul"]
        torch.backends.cudnn.conv.fp32_precision = state["conv"]
    else:
        torch.backends.cuda.matmul.allow_tf32 = state["allow_matmul"]
        torch.backends.cudnn.allow_tf32 = state["allow_conv"]


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def forward_rate(name: str, checkpoint: Path | None, device: torch.device, files: list[Path], precision: str,
                 batch: int, iters: int) -> float:
    loaded = load_model(name, checkpoint=checkpoint, device=str(device))
    classifier = Classifier(loaded, InferenceConfig(precision=precision))
    transform = create_image_transform(loaded.data_config)
    images = [decode_image(files[i % len(files)], transform) for i in range(batch)]
    pixels = torch.stack(images).contiguous(memory_format=torch.channels_last).to(device)
    for _ in range(3):
        classifier.predict(pixels)
    sync(device)
    started = time.perf_counter()
    for _ in range(iters):
        classifier.predict(pixels)
    sync(device)
    return batch * iters / (time.perf_counter() - started)


def timm_loader_rate(name: str, checkpoint: Path | None, device: torch.device, folder: Path, workers: int,
                     precision: str, tf32: dict, batch: int = 256, exact: bool = False) -> tuple[float, float]:
    """(steady after the first batch, whole loop) images/s of timm's loader + forward.
    `exact`: TF32 off for matrix products and convolutions (what `predict` computes fp32 in)."""
    from timm.data import ImageDataset, create_loader

    from models.inference import set_tf32

    # As timm's validate.py sets them on a GPU: TF32 matrix products and cudnn.benchmark.
    restore_tf32(tf32)
    if exact:
        set_tf32(False)
    elif device.type == "cuda":
        if "matmul" in tf32:
            torch.backends.cuda.matmul.fp32_precision = "tf32"
        else:
            torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    model = load_model(name, checkpoint=checkpoint, device=str(device)).model
    cfg = resolve_data_config({}, model=model)
    dataset = ImageDataset(str(folder))
    loader = create_loader(dataset, input_size=cfg["input_size"], batch_size=batch, use_prefetcher=True,
                           interpolation=cfg["interpolation"], mean=cfg["mean"], std=cfg["std"],
                           num_workers=workers, crop_pct=cfg["crop_pct"], crop_mode=cfg.get("crop_mode", "center"),
                           pin_memory=device.type == "cuda", device=device)
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=precision == "bf16")
    count, first_at, first_count = 0, None, 0
    started = time.perf_counter()
    with torch.inference_mode():
        for x, _ in loader:
            with autocast:
                out = model(x)
            out.float().softmax(-1)
            count += len(x)
            if first_at is None:
                sync(device)
                first_at, first_count = time.perf_counter(), count
    sync(device)
    ended = time.perf_counter()
    steady = (count - first_count) / (ended - first_at) if ended > first_at and count > first_count else 0.0
    return steady, count / (ended - started)


def plain_loop_rate(name: str, checkpoint: Path | None, device: torch.device, files: list[Path],
                    batch: int = 64) -> float:
    model = load_model(name, checkpoint=checkpoint, device=str(device)).model
    transform = create_transform(**resolve_data_config({}, model=model))
    started = time.perf_counter()
    with torch.inference_mode():
        for start in range(0, len(files), batch):
            x = torch.stack([transform(PILImage.open(f).convert("RGB")) for f in files[start:start + batch]])
            model(x.to(device)).softmax(-1).cpu()
    return len(files) / (time.perf_counter() - started)


def predict_process(project: Path, name: str, checkpoint: Path | None, device: torch.device, precision: str,
                    label: str, extra: list[str], timeout: float = 180) -> dict:
    """`reviewer predict` as a user runs it: its printed figures and its whole wall time."""
    command = [sys.executable, "-m", "reviewer", "predict", str(project), "--model", name, "--name", label,
               "--device", str(device), "--precision", precision, "--rerun", *extra]
    if checkpoint:
        command += ["--checkpoint", str(checkpoint)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    lines: dict[str, list[tuple[float, str]]] = {"out": [], "err": []}

    def read(stream, key):
        for line in stream:
            lines[key].append((time.perf_counter() - started, line))

    readers = [threading.Thread(target=read, args=(process.stdout, "out")),
               threading.Thread(target=read, args=(process.stderr, "err"))]
    for reader in readers:
        reader.start()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        log(f"predict did not end in {timeout} s")
    for reader in readers:
        reader.join()
    wall = time.perf_counter() - started
    out = "".join(line for _, line in lines["out"])
    found = LINE.search(out)
    if process.returncode != 0 or not found:
        log(f"predict failed ({process.returncode}): {out[-800:]} {''.join(l for _, l in lines['err'])[-2000:]}")
        return {"error": process.returncode}
    images = int(found.group(1))
    # Phases of the process: "run #N: M images" goes to stderr once the models are loaded and the
    # run prepared (imports before it); after the last printed line, the interpreter's exit.
    run_line = next((t for t, line in lines["err"] if line.startswith("run #")), None)
    return {"steady": float(found.group(4)), "whole": images / wall, "wall_s": wall, "loop_s": float(found.group(3)),
            "first_batch_s": float(found.group(5)), "storing_s": float(found.group(6)), "images": images,
            "run_line_at_s": run_line, "last_line_at_s": lines["out"][-1][0] if lines["out"] else None}


def reference_diff(name: str, checkpoint: Path | None, device: torch.device, root: Path,
                   precisions: list[str], images: int = 300) -> dict:
    """Max |predict's stored probabilities - timm's CPU fp32 reference| on the 300 demo images."""
    files = sorted(DEMO.iterdir())[:images]
    model = load_model(name, checkpoint=checkpoint, device="cpu").model
    transform = create_transform(**resolve_data_config({}, model=model))
    reference = []
    with torch.inference_mode():
        for start in range(0, len(files), 50):
            x = torch.stack([transform(PILImage.open(f).convert("RGB")) for f in files[start:start + 50]])
            reference.append(model(x).softmax(-1).numpy())
    reference = np.concatenate(reference)
    project = Project.create(root)
    with write_session(project.engine) as session:
        session.execute(insert(Image), [{"file_name": f.name, "path": str(f)} for f in files])
    out = {}
    for precision in precisions:
        result = predict(project, name, checkpoint=checkpoint, device=str(device), precision=precision,
                         name=f"{name}-{precision}")
        with project.read() as session:
            from db.tables import Run
            run = session.get(Run, result.run_id)
            probs = np.asarray(open_probabilities(project.root / run.probs_path), dtype=np.float32)
        diff = np.abs(probs - reference)
        out[precision] = {"max_diff": float(diff.max()), "images_over_1e-3": int((diff.max(axis=1) > 1e-3).sum()),
                          "top1_changed": int((probs.argmax(1) != reference.argmax(1)).sum()),
                          "float16_rounding_bound": float(np.abs(reference - reference.astype(np.float16)).max())}
    project.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--images", type=int, default=20_000, help="images of each predict run")
    parser.add_argument("--loader-images", type=int, default=8_000, help="images of each timm loader run")
    parser.add_argument("--loader-workers", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--plain-images", type=int, default=640)
    parser.add_argument("--forward-batch", type=int, default=256)
    parser.add_argument("--forward-iters", type=int, default=20)
    parser.add_argument("--reference-images", type=int, default=300, help="demo images of the reference check")
    parser.add_argument("--predict-args", default="", help="extra arguments of every predict run")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    device = torch.device(args.device)
    tf32 = tf32_defaults()
    figures: dict = {"device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
                     "cores": len(os.sched_getaffinity(0)), "torch": torch.__version__, "models": {}}
    log(f"{figures['device']}, {figures['cores']} usable cores, torch {torch.__version__}, tf32 defaults {tf32}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = replicate(tmp / "images", args.images)
        replicate(tmp / "loader" / "images", args.loader_images)  # timm's ImageDataset reads the folder
        project = make_project(tmp / "project", files)
        project.close()
        log(f"{len(files)} images linked, project made")
        for key in args.models:
            name, random_weights = MODELS[key]
            checkpoint = None
            if random_weights:
                import timm
                from safetensors.torch import save_file

                torch.manual_seed(0)
                checkpoint = tmp / f"{name}.safetensors"
                save_file({k: v.contiguous() for k, v in timm.create_model(name).state_dict().items()},
                          str(checkpoint))
            row: dict = {}
            figures["models"][name] = row
            for precision in ("fp32", "bf16"):
                row[f"forward_{precision}"] = guarded(f"{name} forward {precision}", lambda: forward_rate(
                    name, checkpoint, device, files, precision, args.forward_batch, args.forward_iters), 0.0)
                log(f"{name} forward {precision}: {row[f'forward_{precision}']:.0f} images/s")
            for workers in args.loader_workers:
                for precision in (("fp32", "bf16") if workers == max(args.loader_workers) else ("fp32",)):
                    steady, whole = guarded(f"{name} timm {workers} {precision}", lambda: timm_loader_rate(
                        name, checkpoint, device, tmp / "loader", workers, precision, tf32), (0.0, 0.0))
                    row[f"timm_{workers}_{precision}"] = {"steady": steady, "whole": whole}
                    log(f"{name} timm create_loader {workers} workers {precision}: steady {steady:.0f}, "
                        f"whole loop {whole:.0f} images/s")
            row["plain"] = guarded(f"{name} plain", lambda: plain_loop_rate(
                name, checkpoint, device, files[:args.plain_images]), 0.0)
            log(f"{name} plain loop: {row['plain']:.0f} images/s")
            for precision in ("fp32", "bf16"):
                extra = args.predict_args.split() if args.predict_args else []
                row[f"predict_{precision}"] = figures_ = predict_process(
                    project.root, name, checkpoint, device, precision, f"{key}-{precision}", extra)
                log(f"{name} predict {precision}: {figures_}")
            if args.json:  # what is measured so far, should a later step not end
                args.json.write_text(json.dumps(figures, indent=1))
            row["reference"] = guarded(f"{name} reference", lambda: reference_diff(
                name, checkpoint, device, tmp / f"ref_{key}", ["fp32", "bf16"], args.reference_images), {})
            log(f"{name} vs timm's CPU fp32 reference ({args.reference_images} demo images): {row['reference']}")
    print_table(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


def print_table(figures: dict) -> None:
    names = list(figures["models"])
    print(f"\nimages/s on {figures['device']} ({figures['cores']} cores), torch {figures['torch']}")
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))

    def cell(row: dict, key: str, part: str | None = None) -> str:
        value = row.get(key)
        if isinstance(value, dict):
            value = value.get(part or "steady")
        return f"{value:,.0f}" if isinstance(value, (int, float)) else "-"

    rows = figures["models"]
    lines = [("forward pass alone, fp32 / bf16", lambda r: f"{cell(r, 'forward_fp32')} / {cell(r, 'forward_bf16')}")]
    for key in sorted({k for r in rows.values() for k in r if k.startswith("timm_")}):
        _, workers, precision = key.split("_")
        lines.append((f"timm create_loader, {workers} workers, {precision}: steady / whole loop",
                      lambda r, key=key: f"{cell(r, key)} / {cell(r, key, 'whole')}"))
    lines.append(("plain loop in one process", lambda r: cell(r, "plain")))
    for precision in ("fp32", "bf16"):
        lines.append((f"reviewer predict {precision}: steady / whole process (first batch s, storing s)",
                      lambda r, p=precision: f"{cell(r, f'predict_{p}')} / {cell(r, f'predict_{p}', 'whole')} "
                      f"({r.get(f'predict_{p}', {}).get('first_batch_s', '-')}, "
                      f"{r.get(f'predict_{p}', {}).get('storing_s', '-')})"))
    for precision in ("fp32", "bf16"):
        lines.append((f"max diff from timm's CPU fp32 reference, {precision} (images > 1e-3, top-1 changed)",
                      lambda r, p=precision: "{max_diff:.2g} ({images_over_1e-3}, {top1_changed})".format(
                          **r["reference"][p]) if p in r.get("reference", {}) else "-"))
    for label, render in lines:
        print(f"| {label} | " + " | ".join(render(rows[n]) for n in names) + " |")


if __name__ == "__main__":
    raise SystemExit(main())
