"""`reviewer import-evidence` and `reviewer evidence`: published relabelings beside the ground truth."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict

from reviewer.cli import CommandError
from reviewer.errors import InputError
from reviewer.project import Project


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "import-evidence", help="import published relabelings as evidence (never changes the ground truth)",
        description="Import published relabelings of the validation set as evidence sources, told apart by "
                    "content: ReaL (real.json, raters.npz, golden.npz, raters_golden.npz), cleanlab's "
                    "imagenet_mturk.json (and its auxiliary index and original-label files), Flaws of ImageNet "
                    "(clean_validation.csv, label_errors.csv, finegrained.csv, expert_356_357_358_359.json, "
                    "problem_groups_clusters.json), the TFDS v3 multi-labels and ImageNet-X's factor annotations "
                    "(imagenet_x_val_multi_factor.jsonl, imagenet_x_val_top_factor.jsonl; CC BY-NC 4.0). Every "
                    "file is checked before any is stored; all are stored in one transaction. The same file again "
                    "changes nothing; another file of a kind replaces the stored one. The labels that metrics use "
                    "never change.")
    p.add_argument("project", help="the project folder")
    p.add_argument("files", nargs="*", metavar="FILE", help="evidence files (see above)")
    p.add_argument("--imagenet-x", action="store_true",
                   help="also ImageNet-X's validation annotations from the installed imagenet-x package "
                        "(pip install 'imagenet-mistake-reviewer[imagenetx]'; annotations CC BY-NC 4.0)")
    p.set_defaults(func=run_import_evidence)

    p = subparsers.add_parser(
        "evidence", help="what the imported evidence sources say about an image and a predicted class",
        description="Without --image: the imported evidence sources. With --image and --predicted: one line per "
                    "source about the image, the predicted class and the original label.")
    p.add_argument("project", help="the project folder")
    p.add_argument("--image", metavar="FILE", help="the image's file name, e.g. ILSVRC2012_val_00000293.JPEG")
    p.add_argument("--predicted", metavar="CLASS", help="the predicted class: index 0-999, wnid or whole name")
    p.add_argument("--original", metavar="CLASS",
                   help="the original label (default: the project's, when it holds the image)")
    p.add_argument("--json", action="store_true", help="JSON instead of text")
    p.set_defaults(func=run_evidence)

    p = subparsers.add_parser(
        "adopt-evidence", help="make an imported label-set source the project's ground truth (asked explicitly)",
        description="The one way evidence reaches the labels that metrics use. real_labels (ReaL's real.json) "
                    "becomes the project's ReaL labels; tfds_multilabel (the TFDS v3 multi-labels) becomes the "
                    "project's multi-label set, as 'reviewer import-labels' of the same file would make them. The "
                    "other sources propose labels for some images and cannot be adopted.")
    p.add_argument("project", help="the project folder")
    p.add_argument("source", metavar="SOURCE", help="the imported source to adopt: real_labels or tfds_multilabel")
    p.set_defaults(func=run_adopt_evidence)


def run_adopt_evidence(args: argparse.Namespace) -> int:
    from reviewer.app.evidence import adopt_evidence
    from reviewer.evidence.adopt import ADOPTABLE
    from reviewer.evidence.kinds import EvidenceKind

    summary = adopt_evidence(Project.open(args.project), args.source).value
    print(summary.describe())
    for line in (*summary.notes, *summary.warnings):
        print(f"  {line}")
    print(f"adopted as {ADOPTABLE[EvidenceKind(args.source)]}; metrics, exports and the split now read it")
    return 0


def run_import_evidence(args: argparse.Namespace) -> int:
    from reviewer.app.evidence import import_evidence

    if not args.files and not args.imagenet_x:
        raise CommandError("give the evidence files to import, or --imagenet-x")
    project = Project.open(args.project)
    started = time.perf_counter()
    try:
        results = import_evidence(project, args.files, imagenet_x=args.imagenet_x).value
    except InputError as exc:
        raise CommandError(f"{exc}\nNothing was imported; fix the file and run the command again.") from None
    for result in results:
        print(result.describe())
    changed = sum(1 for r in results if r.status != "unchanged")
    print(f"{changed} of {len(results)} files imported in {time.perf_counter() - started:.1f} s; the project's labels "
          "are unchanged (evidence is kept apart from the ground truth)")
    return 0


def class_argument(text: str, option: str) -> int:
    """A class given as index, wnid or whole display name (`lookup.resolve_class`)."""
    from reviewer.panel.lookup import NotInProjectError, resolve_class

    try:
        return resolve_class(text)
    except NotInProjectError as exc:
        raise CommandError(f"{option}: {exc}") from None


def run_evidence(args: argparse.Namespace) -> int:
    from reviewer.app.evidence import evidence_sources, image_evidence
    from reviewer.importers._read import image_name

    project = Project.open(args.project)
    if args.image is None:
        if args.predicted is not None or args.original is not None:
            raise CommandError("--predicted and --original need --image")
        sources = evidence_sources(project)
        if args.json:
            print(json.dumps([asdict(s) for s in sources], indent=2, ensure_ascii=False))
        elif not sources:
            print("no evidence imported ('reviewer import-evidence PROJECT FILE...')")
        for s in sources if not args.json else ():
            print(f"{s.id:3}  {s.title:38} {s.kind:20} {s.file_name}  {s.n_items:,} rows  {s.imported_at[:19]}")
        return 0
    if args.predicted is None:
        raise CommandError("--image needs --predicted CLASS (index 0-999, wnid or whole class name)")
    try:
        name = image_name(args.image.rsplit("/", 1)[-1], source="--image", record=None)
    except InputError as exc:
        raise CommandError(str(exc)) from None
    predicted = class_argument(args.predicted, "--predicted")
    found = image_evidence(project, name, predicted,
                           class_argument(args.original, "--original") if args.original is not None else None)
    lines = found.lines
    if args.json:
        print(json.dumps({"image": name, "predicted": predicted, "original": found.original,
                          "in_project": found.in_project, "evidence": [asdict(line) for line in lines]},
                         indent=2, ensure_ascii=False))
        return 0
    if not found.in_project:
        print(f"note: {name} is not an image of this project; the evidence is shown all the same")
    if not lines:
        print("no evidence imported ('reviewer import-evidence PROJECT FILE...')")
    for line in lines:
        print(line.text)
    return 0
