"""Issue 27's open figures on a GPU machine, in one process of about five minutes
(`bash bench/gpu_issue27.sh` runs it there with the project's wheels):

    python bench/bench_gpu_issue27.py --device cuda [--images 20000] [--json FILE]
    python bench/bench_gpu_issue27.py --device cpu --images 64 --loader-images 64 --workers 2 \\
        --reference-images 8 --cases lite0-fp32                            # a small check anywhere

Images: the 300 demo JPEGs linked --images times (decoding reads the page cache), one
project. Models: the bundled tf_efficientnet_lite0 and vit_base_patch16_224 with random
weights through --checkpoint (times as trained weights do).

  1. the imports of a predict process (`python -X importtime`), largest first;
  2. one untimed `reviewer predict --limit 512` (the page cache holds the libraries and images);
  3. `reviewer predict` over --images images for each case (lite0-fp32, lite0-bf16,
     vit-fp32: exact, TF32 off, vit-tf32) as a user runs it, with the moments of the
     process (bench_predict_fixed_costs.py): interpreter, before the call, imports, to the
     first batch, loop, storing, printing; steady rate, whole-process rate, their ratio
     (target: whole >= 0.85 x steady at 20,000 images);
  4. timm's own loader (`create_loader`, --workers workers, batch 256, prefetcher) for each
     model: fp32 as validate.py sets it (TF32 on), bf16 autocast, and for ViT fp32 exact (TF32 off);
     its whole loop, workers' start included (targets: predict steady >= 0.9 x timm's best,
     bf16 >= 0.8 x timm's bf16);
  5. the largest difference of each case's stored probabilities from timm's CPU fp32
     reference on --reference-images demo images (target: fp32 within 1e-3, float16
     storage aside), with the images above 1e-3 and top-1 changes.

Then one table of every figure and ratio against its target.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import torch  # noqa: E402
from bench_predict_fixed_costs import linked_images, load_average, run_process  # noqa: E402
from bench_predict_gpu import guarded, log, make_project, reference_diff, replicate, tf32_defaults, timm_loader_rate  # noqa: E402

MODELS = {"lite0": "tf_efficientnet_lite0", "vit": "vit_base_patch16_224"}
CASES = {"lite0-fp32": ("lite0", "fp32"), "lite0-bf16": ("lite0", "bf16"),
         "vit-fp32": ("vit", "fp32"), "vit-tf32": ("vit", "tf32")}
# (label, TF32 off) per model: fp32 as validate.py sets it (TF32 on), ViT's also exact, and bf16.
LOADERS = {"lite0": (("fp32", False), ("bf16", False)),
           "vit": (("fp32", False), ("fp32-exact", True), ("bf16", False))}


def import_costs(top: int = 12) -> list[tuple[str, float]]:
    """Seconds of the largest imports of `reviewer.runs.compute` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", "import reviewer.cli, reviewer.app.runs, "
                             "reviewer.runs.compute"], capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    rows = []
    for line in result.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = (part.strip() for part in line[len("import time:"):].split("|"))
            if cumulative.isdigit():
                rows.append((name, int(cumulative) / 1e6))
    rows.sort(key=lambda row: -row[1])
    return rows[:top]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--images", type=int, default=20_000)
    parser.add_argument("--loader-images", type=int, default=6_000)
    parser.add_argument("--workers", type=int, default=16, help="timm loader's workers")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--reference-images", type=int, default=300)
    parser.add_argument("--timeout", type=float, default=240, help="seconds for each predict process")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    device = torch.device(args.device)
    tf32 = tf32_defaults()
    figures: dict = {"device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
                     "cores": len(os.sched_getaffinity(0)), "torch": torch.__version__, "cases": {},
                     "loaders": {}, "reference": {}}
    log(f"{figures['device']}, {figures['cores']} usable cores, torch {torch.__version__}; load {load_average()}")

    def save() -> None:  # what is measured so far, should a later step not end
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1))

    figures["imports"] = guarded("imports", import_costs, [])
    log("largest imports of a predict process (cumulative s): "
        + ", ".join(f"{name} {seconds:.2f}" for name, seconds in figures["imports"]))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        root = tmp / "project"
        make_project(root, linked_images(root, args.images)).close()
        loader_root = tmp / "loader"
        replicate(loader_root / "images", args.loader_images)  # timm's ImageDataset reads the folder
        checkpoints: dict[str, Path | None] = {"lite0": None, "vit": None}
        if any(CASES[c][0] == "vit" for c in args.cases):
            import timm
            from safetensors.torch import save_file

            torch.manual_seed(0)
            checkpoints["vit"] = tmp / "vit.safetensors"
            save_file({k: v.contiguous() for k, v in timm.create_model(MODELS["vit"]).state_dict().items()},
                      str(checkpoints["vit"]))
        log(f"{args.images} images linked, project made; load {load_average()}")

        def predict_args(key: str, precision: str, *extra: str) -> list[str]:
            checkpoint = ["--checkpoint", str(checkpoints[key])] if checkpoints[key] else []
            return [*checkpoint, "--precision", precision, "--name", f"{key}-{precision}", *extra]

        guarded("warm-up", lambda: run_process(root, MODELS["lite0"], args.device,
                                               predict_args("lite0", "fp32", "--limit", "512"), None, args.timeout))
        log("warm-up predict done")
        for case in args.cases:
            key, precision = CASES[case]
            row = guarded(f"predict {case}", lambda: run_process(root, MODELS[key], args.device,
                                                                 predict_args(key, precision), None, args.timeout), {})
            figures["cases"][case] = row
            if row:
                log(f"predict {case}: steady {row['steady']:.0f} (printed {row['printed_rate']:.0f}), whole "
                    f"{row['whole']:.0f} images/s, whole/steady {row['whole'] / row['steady']:.3f}; wall "
                    f"{row['wall_s']:.1f} s = interpreter {row['interpreter_s']:.2f} + before call "
                    f"{row['before_call_s']:.2f} + imports {row['imports_s']:.2f} + to 1st batch "
                    f"{row['to_first_batch_s']:.2f} + loop {row['loop_s']:.1f} + storing {row['storing_s']:.2f} + "
                    f"printing {row['printing_s']:.2f}")
            save()
        for key in sorted({CASES[c][0] for c in args.cases}):
            for label, exact in LOADERS[key]:
                precision = label.split("-")[0]
                steady, whole = guarded(f"timm {key} {label}", lambda: timm_loader_rate(
                    MODELS[key], checkpoints[key], device, loader_root, args.workers, precision, tf32,
                    exact=exact), (0.0, 0.0))
                figures["loaders"][f"{key}-{label}"] = {"steady": steady, "whole": whole}
                log(f"timm create_loader {key} {label}, {args.workers} workers: whole loop {whole:.0f}, after the "
                    f"first batch {steady:.0f} images/s")
                save()
        for key in sorted({CASES[c][0] for c in args.cases}):
            precisions = [CASES[c][1] for c in args.cases if CASES[c][0] == key]
            figures["reference"][key] = guarded(f"reference {key}", lambda: reference_diff(
                MODELS[key], checkpoints[key], device, tmp / f"ref_{key}", precisions, args.reference_images), {})
            log(f"{key} vs timm's CPU fp32 reference ({args.reference_images} demo images): "
                f"{figures['reference'][key]}")
            save()
    print_summary(figures)
    save()
    return 0


def print_summary(figures: dict) -> None:
    print(f"\nissue 27 on {figures['device']} ({figures['cores']} cores), torch {figures['torch']}")
    loaders = figures["loaders"]
    for case, row in figures["cases"].items():
        if not row:
            print(f"{case}: predict failed")
            continue
        key, precision = CASES[case]
        ratio = row["whole"] / row["steady"]
        fixed = row["wall_s"] - row["loop_s"]
        line = (f"{case}: predict steady {row['steady']:,.0f}, whole {row['whole']:,.0f} images/s: whole/steady "
                f"{ratio:.2f} (target 0.85: {'met' if ratio >= 0.85 else 'NOT met'}); fixed {fixed:.1f} s "
                f"(before the call {row['interpreter_s'] + row['before_call_s']:.1f}, imports {row['imports_s']:.1f}, "
                f"to the 1st batch {row['to_first_batch_s']:.1f}, after the last {row['storing_s'] + row['printing_s']:.1f})")
        if precision == "bf16":
            timm = loaders.get(f"{key}-bf16", {}).get("whole", 0.0)
            if timm:
                line += (f"; vs timm bf16 {timm:,.0f}: {row['steady'] / timm:.2f} (target 0.8: "
                         f"{'met' if row['steady'] >= 0.8 * timm else 'NOT met'})")
        else:
            best = max((loaders.get(f"{key}-{label}", {}).get("whole", 0.0) for label, _ in LOADERS[key]
                        if not label.startswith("bf16")), default=0.0)
            if best:
                line += (f"; vs timm's best fp32 {best:,.0f}: {row['steady'] / best:.2f} (target 0.9: "
                         f"{'met' if row['steady'] >= 0.9 * best else 'NOT met'})")
        print(line)
    for name, row in loaders.items():
        print(f"timm create_loader {name}: whole loop {row['whole']:,.0f} images/s")
    for key, rows in figures["reference"].items():
        for precision, diff in (rows or {}).items():
            print(f"{key} {precision} vs timm's CPU fp32 reference: max {diff['max_diff']:.2g} "
                  f"({diff['images_over_1e-3']} images > 1e-3, {diff['top1_changed']} top-1 changed; float16 "
                  f"storage alone {diff['float16_rounding_bound']:.2g})")


if __name__ == "__main__":
    raise SystemExit(main())
