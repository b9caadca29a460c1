"""`reviewer index`: the nearest training images and duplicates of the project's images (issue 26)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "index", help="embed a training folder and find each mistake's nearest training images and duplicates",
        description="Embeds every image under --images (ImageNet's train layout: one folder per wnid) and the "
                    "project's own images with a model's pooled pre-logits features (L2-normalised, float16, "
                    "stored in PROJECT/index/MODEL/), finds exact duplicates (identical decoded pixels) and near "
                    "duplicates (perceptual hash, embedding similarity) of the project's images, and stores the K "
                    "nearest training images (exact search) of every mistake of every complete run. Resumable: "
                    "run it again after a kill, or after new runs, and it does only what is missing. Every file an "
                    "earlier build left is checked first (the manifest records each one's size and checksum) and a "
                    "damaged one is computed again.")
    p.add_argument("project", help="the project folder")
    p.add_argument("--images", required=True, metavar="TRAIN_DIR", help="the training images (one folder per wnid)")
    p.add_argument("--model", default="tf_efficientnet_lite0", metavar="NAME",
                   help="timm model whose features embed the images (default: the bundled tf_efficientnet_lite0, "
                        "offline)")
    p.add_argument("--checkpoint", metavar="FILE", help="the model's weights from a local file")
    p.add_argument("--k", type=int, default=None, metavar="K", help="nearest training images kept per mistake "
                   "(default 10, as the paper, or every training image of a smaller set; at most the number of "
                   "training images)")
    p.add_argument("--device", default="cpu", help="cpu (default), cuda, cuda:N, mps or auto")
    p.add_argument("--batch-size", type=int, default=16, metavar="N", help="images per forward pass (default 16)")
    p.add_argument("--approximate", action="store_true",
                   help="find the neighbours with an approximate index (faiss IVF-PQ, the best candidates re-scored "
                        "exactly) instead of exact search: for very large training sets; its recall against exact "
                        "search is measured by bench/bench_index.py")
    p.add_argument("--nprobe", type=int, default=None, metavar="N",
                   help="with --approximate: cells scanned per query (default 32; more: higher recall, slower)")
    p.set_defaults(func=run_index)


def run_index(args: argparse.Namespace) -> int:
    from reviewer.app.index import build_index
    from reviewer.project import Project

    if args.k is not None and args.k < 1:
        from reviewer.cli import CommandError

        raise CommandError("--k must be at least 1")
    project = Project.open(args.project)
    summary = build_index(project, images=Path(args.images), model=args.model, checkpoint=args.checkpoint, k=args.k,
                          device=args.device, batch_size=args.batch_size, approximate=args.approximate,
                          nprobe=args.nprobe, progress=lambda line: print(line, file=sys.stderr, flush=True)).value
    for name, problem in summary.repaired:
        print(f"repaired: {name} {problem}: computed again")
    for name, count in summary.counts.items():
        skipped = summary.skipped.get(name, [])
        print(f"{name}: {count} images, {len(skipped)} skipped")
        for path, reason in skipped[:20]:
            print(f"    skipped {path}: {reason}")
        if len(skipped) > 20:
            print(f"    ... and {len(skipped) - 20} more (manifest.json lists them all)")
    dups = ", ".join(f"{n} {kind}" for kind, n in sorted(summary.duplicates.items())) or "none"
    print(f"duplicates: {dups}")
    print(f"neighbours computed for {summary.neighbours_computed} mistaken images; search: {summary.search}")
    print(f"index: {summary.folder} ({summary.seconds:.1f} s)")
    return 0
