"""`reviewer init`, `import-images`, `import-labels`, `import-review`."""

from __future__ import annotations

import argparse
import contextlib
import sys

from reviewer.cli import CommandError
from reviewer.cli.progress import working
from reviewer.errors import InputError
from reviewer.project import Project

MISSING_HELP = ("add the file's images that the project lacks, without a file (a project of image files refuses "
                "them otherwise; a project made from label files takes them anyway)")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("init", help="create a project from an image folder and label files",
                              description="Create a project from an image folder and label files (any mix; "
                                          "label files are told apart by content). Every input is checked "
                                          "before the project folder is made.")
    p.add_argument("project", help="folder of the new project")
    p.add_argument("--images", metavar="DIR", help="folder of images (flat <wnid>_*.JPEG, per-wnid folders, "
                                                   "or ILSVRC2012_val_*.JPEG)")
    p.add_argument("--labels", metavar="FILE", nargs="+", action="extend", default=[],
                   help="label files: TFDS multilabel annotations, the 20k annotated list, ReaL labels, "
                        "or a text/CSV 'file_name label' list")
    p.add_argument("--db", metavar="URL", help="database URL (default: SQLite in the project folder), "
                                               "e.g. postgresql://host/dbname for a panel on several machines")
    p.set_defaults(func=run_init, creates_project=True)

    p = subparsers.add_parser("import-images", help="add the images of a folder to a project",
                              description="Add the images of a folder (same layouts as 'init --images'). "
                                          "Images already in the project keep their files.")
    p.add_argument("project", help="the project folder")
    p.add_argument("directory", help="folder of images")
    p.set_defaults(func=run_import_images)

    p = subparsers.add_parser("import-labels", help="add label files to a project",
                              description="Add label files, told apart by their content. All files are "
                                          "checked before any is imported; each is written in one transaction.")
    p.add_argument("project", help="the project folder")
    p.add_argument("--add-missing-images", action="store_true", help=MISSING_HELP)
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="TFDS multilabel annotations (the v3 JSON or its CSV dump), the 20k annotated list, "
                        "ReaL labels (timm's imagenet_real_labels.json), or original labels: a text/CSV "
                        "'file_name label' list, LOC_val_solution.csv or the 50,000 validation wnids in order")
    p.set_defaults(func=run_import_labels)

    p = subparsers.add_parser("import-review", help="import a published panel review of a model "
                                                    "(imagenet-mistakes metadata JSON)",
                              description="Import a published review of one model's mistakes "
                                          "(google-research/imagenet-mistakes *_mistakes.json): each "
                                          "image's top prediction with its failure category and severity.")
    p.add_argument("project", help="the project folder")
    p.add_argument("file", help="e.g. vit3b_mistakes.json")
    p.add_argument("--model", required=True, help="name of the reviewed model, e.g. vit3b")
    p.add_argument("--add-missing-images", action="store_true", help=MISSING_HELP)
    p.set_defaults(func=run_import_review)


def _print_summaries(summaries) -> None:
    for summary in summaries:
        print(summary.describe())
        for note in summary.notes:
            print(f"  {note}")
        for warning in summary.warnings:
            print(f"  note: {warning}")


def run_init(args: argparse.Namespace) -> int:
    from reviewer.app.imports import init_project

    try:
        with working("init", "reading the inputs"):
            project, summaries = init_project(args.project, images=args.images, labels=args.labels, db_url=args.db)
    except InputError as exc:
        raise CommandError(f"{exc}\nNo project was made; fix the input and run the command again.") from None
    _print_summaries(summaries)
    print(f"project {project.root}: {project.image_count()} images")
    return 0


def run_import_images(args: argparse.Namespace) -> int:
    from reviewer.app.imports import import_images

    project = Project.open(args.project)
    with _nothing_imported():
        _print_summaries([import_images(project, args.directory, progress=_runs_progress).value])
    return 0


def run_import_labels(args: argparse.Namespace) -> int:
    from reviewer.app.imports import import_labels

    project = Project.open(args.project)
    with _nothing_imported():  # every file is checked before any is written; all in one transaction
        _print_summaries(import_labels(project, args.files, add_missing_images=args.add_missing_images,
                                       progress=_runs_progress).value)
    return 0


def run_import_review(args: argparse.Namespace) -> int:
    from reviewer.app.imports import import_review

    project = Project.open(args.project)
    with _nothing_imported():
        done = import_review(project, args.file, model=args.model, add_missing_images=args.add_missing_images,
                             progress=_runs_progress).value
    print(f"imported a review of {args.model}: {done.items} reviewed mistakes")
    if done.images_added:
        print(f"  {done.images_added} images added without a file"
              + (" (--add-missing-images): their reviews count, no model runs on them" if done.project_has_files
                 else " (a project of label files)"))
    for line in done.runs_changed:
        print(f"  {line}")
    return 0


_said = [0.0]


def _runs_progress(done: int, total: int) -> None:
    """On stderr: the runs' mistakes brought in line with the new labels, one updating line on a
    terminal, else a line every two seconds or so (and the last), so a log is not flooded."""
    import time

    words = f"the runs' mistakes under the new labels: run {done} of {total}"
    if sys.stderr.isatty():
        print(f"\r{words}", end="\n" if done == total else "", file=sys.stderr, flush=True)
    elif done == total or time.monotonic() - _said[0] > 2:
        _said[0] = time.monotonic()
        print(words, file=sys.stderr, flush=True)


@contextlib.contextmanager
def _nothing_imported():
    """Bad input: the importers checked it all before writing, so say nothing was imported."""
    try:
        yield
    except InputError as exc:
        raise CommandError(f"{exc}\nNothing was imported; fix the file and run the command again.") from None
