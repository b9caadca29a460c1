"""`reviewer patchml`: a PatchML set of object patches (Anzaku et al. §3.2, Algorithm 1)."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "patchml", help="make a PatchML set: object patches of the project's images on black canvases",
        description="Anzaku et al.'s PatchML (§3.2, Algorithm 1): every box of --boxes is a patch; for k = 2, 3, 4, "
                    "6, 9 patches per image (resized so their longer side is 256, 256, 256, 170, 128 px), the whole "
                    "pool is drawn in random groups of k, each patch in its own cell of a grid on a 512 x 512 black "
                    "canvas with a random offset; an image's labels are its patches' classes. The images go to "
                    "PROJECT/patchml/NAME/ with manifest.json, and into the project as the slice NAME: run models "
                    "on it with 'reviewer predict PROJECT --images NAME'; 'reviewer report' gives their variable "
                    "top-k and ASMA on it. Every box is checked before anything is made.")
    p.add_argument("project", help="the project folder")
    p.add_argument("--boxes", required=True, metavar="FILE",
                   help="object boxes in the layout of ImageNet's LOC_val_solution.csv: 'ImageId,PredictionString', "
                        "each row an image of the project and its boxes 'wnid x_min y_min x_max y_max ...' in pixels")
    p.add_argument("--seed", required=True, type=int, metavar="S",
                   help="seed of the sampling and offsets: the same boxes and seed give the same set")
    p.add_argument("--name", metavar="NAME", help="the set's slice and folder name (default patchml-s<SEED>)")
    p.add_argument("--skip-missing", action="store_true",
                   help="leave out the rows of images the project lacks (the full LOC_val_solution.csv over a "
                        "project of part of the validation set), instead of refusing the file")
    p.set_defaults(func=run_patchml)


def run_patchml(args: argparse.Namespace) -> int:
    from reviewer.app.patchml import make_patchml
    from reviewer.cli import CommandError
    from reviewer.errors import InputError
    from reviewer.project import Project
    from reviewer.wording import counted

    project = Project.open(args.project)

    def progress(done: int, total: int) -> None:
        if done == total or done % 1000 == 0:
            print(f"drawn {done} of {total} images", file=sys.stderr, flush=True)

    try:
        made = make_patchml(project, args.boxes, seed=args.seed, name=args.name, skip_missing=args.skip_missing,
                            progress=progress).value
    except InputError as exc:
        raise CommandError(f"{exc}\nNothing was made; fix the file and run the command again.") from None
    rule = made.rule
    per_k = ", ".join(f"k={k}: {n}" for k, n in rule["images_per_k"].items())
    per_labels = ", ".join(f"{k}: {n}" for k, n in rule["images_per_label_count"].items())
    print(f"PatchML set '{made.name}' (seed {rule['seed']}): {counted(rule['images'], 'image')} from "
          f"{counted(rule['patches'], 'patch', 'patches')} of {rule['boxes']}")
    print(f"  images per patch count: {per_k}")
    print(f"  images per label count: {per_labels}")
    if rule["skipped_images"]:
        print(f"  left out (--skip-missing): {counted(rule['skipped_boxes'], 'box', 'boxes')} of "
              f"{counted(rule['skipped_images'], 'image')} the project lacks")
    print(f"  files and manifest.json: {made.folder}")
    print(f"next: reviewer predict {project.root} --model MODEL --images {made.name}")
    return 0
