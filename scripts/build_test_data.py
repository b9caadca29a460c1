"""Build tests/data/ from the real published files in ../shared/data, trimmed to what the tests use.

The tests run on a fresh clone with nothing beside it, so the real files they read live in
the repository, under tests/data/ in the same layout as ../shared/data. Most are copied
whole (small, and tests check facts of the whole file); the large ones whose tests only
need part are trimmed by one rule, written down here so the trimming can be redone and
checked:

- Files about validation images keep the rows of the first `--images` validation images
  (ILSVRC2012_val_00000001 ... _00002000 by default), byte for byte as they are in the
  original (CSV lines verbatim, JSON records unchanged, the .npz arrays sliced, not rebuilt).
- imagenet-samples/ keeps the original files of the sample images that tests name plus the
  8 with the most pixels (those JPEG draft mode decodes at reduced scale); other image tests
  use the demo's 300 shipped images in assets/demo/images/.

tests/data/README.md records each file's source, license and trimming.

    python scripts/build_test_data.py [--source ../shared/data] [--out tests/data]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = REPO.parent / "shared" / "data"
DEFAULT_OUT = REPO / "tests" / "data"

# Copied whole: small, or a test checks a fact of the whole file (counts of the official
# files, the 50,000-row formats the importers require).
WHOLE = [
    "imagenet-mistakes/vit3b_mistakes.json",
    "imagenet-mistakes/greedy_soups_mistakes.json",
    "imagenet-mistakes/class_confusion_wnids.json",
    "imagenet-mistakes/class_confusion_synsets.json",
    "formats/tfds_v3_sample.json",
    "formats/imagenet-annotatedval20k.json",
    "published/real/real.json",
    "published/real/golden.npz",
    "published/real/raters_golden.npz",
    "published/tfds-multilabel-v3/imagenet2012_multilabel_validation.csv",
    "published/label-errors/imagenet_val_set_index_to_filepath.json",
    "published/label-errors/imagenet_val_set_original_labels.npy",
    "published/flaws-of-imagenet/expert_356_357_358_359.json",
    "published/flaws-of-imagenet/problem_groups_clusters.json",
]
# Trimmed to the rows of the first N validation images.
CSV_BY_IMAGE = [
    "published/flaws-of-imagenet/clean_validation.csv",
    "published/flaws-of-imagenet/label_errors.csv",
    "published/flaws-of-imagenet/finegrained.csv",
]
MTURK = "published/label-errors/imagenet_mturk.json"
RATERS = "published/real/raters.npz"
# ImageNet-X's validation annotations (CC BY-NC 4.0) come from the installed `imagenet-x` package, not
# from --source: its JSON Lines trimmed to the kept images, lines verbatim.
IMAGENET_X = {f"imagenet_x/annotations/{name}": f"imagenet-x/{name}"
              for name in ("imagenet_x_val_multi_factor.jsonl", "imagenet_x_val_top_factor.jsonl")}

# The sample images tests name (any test file's literal n<wnid>_<name>.JPEG) are found by
# scanning tests/; LARGEST of the others with the most pixels are added.
LARGEST = 8
NAME = re.compile(r"n\d{8}_[A-Za-z_-]+\.JPEG")
VAL = re.compile(r"ILSVRC2012_val_(\d{8})")


def number(name: str) -> int:
    match = VAL.search(name)
    return int(match.group(1)) if match else 0


def trim_csv(src: Path, dst: Path, keep) -> tuple[int, int]:
    """Keep the header and the lines whose first field is a kept image, verbatim."""
    lines = src.read_bytes().splitlines(keepends=True)
    kept = [lines[0]] + [line for line in lines[1:] if keep(line.split(b",", 1)[0].decode())]
    dst.write_bytes(b"".join(kept))
    return len(lines) - 1, len(kept) - 1


def trim_mturk(src: Path, dst: Path, keep) -> tuple[int, int]:
    records = json.loads(src.read_text())
    kept = [r for r in records if keep(f"ILSVRC2012_val_{r['id']:08d}.JPEG")]
    dst.write_text(json.dumps(kept, indent=2) + "\n")
    return len(records), len(kept)


def trim_raters(src: Path, dst: Path, keep) -> tuple[int, int]:
    """The questions about kept images; every rater stays (their ids match raters_golden.npz)."""
    import numpy as np

    with np.load(src, allow_pickle=False) as data:
        tensor, info, ids = data["tensor"], data["info"], data["ids"]
    rows = np.array([keep(str(name)) for name in info[:, 0]])
    np.savez_compressed(dst, tensor=tensor[:, rows], info=info[rows], ids=ids)
    with zipfile.ZipFile(dst) as z:  # the layout of the original: three members
        assert sorted(z.namelist()) == ["ids.npy", "info.npy", "tensor.npy"]
    return len(info), int(rows.sum())


def trim_jsonl(src: Path, dst: Path, keep) -> tuple[int, int]:
    """Keep the lines whose record's file_name is a kept image, verbatim."""
    lines = src.read_bytes().splitlines(keepends=True)
    kept = [line for line in lines if keep(json.loads(line)["file_name"])]
    dst.write_bytes(b"".join(kept))
    return len(lines), len(kept)


def imagenet_x_files() -> dict[str, Path] | None:
    """The package's annotation files by their place here, or None when imagenet-x is not installed."""
    from importlib import metadata

    try:
        distribution = metadata.distribution("imagenet-x")
    except metadata.PackageNotFoundError:
        return None
    return {rel: Path(str(distribution.locate_file(packaged))) for packaged, rel in IMAGENET_X.items()}


def sample_images(source: Path, tests: Path) -> list[Path]:
    from PIL import Image

    named = set()
    for path in tests.rglob("*.py"):
        named.update(NAME.findall(path.read_text()))
    files = sorted((source / "imagenet-samples").iterdir())

    def pixels(path: Path) -> int:
        with Image.open(path) as image:
            return image.size[0] * image.size[1]

    largest = sorted(files, key=pixels, reverse=True)[:LARGEST]
    missing = named - {f.name for f in files}
    if missing:
        sys.exit(f"tests name sample images that are not in {source / 'imagenet-samples'}: {sorted(missing)}")
    return sorted({f for f in files if f.name in named} | set(largest))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--images", type=int, default=2000, help="keep rows of validation images 1..N")
    args = parser.parse_args(argv)
    if not args.source.is_dir():
        sys.exit(f"{args.source} not found: give --source, the folder of the real published data")

    def keep(name: str) -> bool:
        return 1 <= number(name) <= args.images

    def target(rel: str) -> Path:
        path = args.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    for rel in WHOLE:
        shutil.copyfile(args.source / rel, target(rel))
        print(f"{rel}: whole")
    for rel in CSV_BY_IMAGE:
        print(f"{rel}: %d of %d rows" % trim_csv(args.source / rel, target(rel), keep)[::-1])
    print(f"{MTURK}: %d of %d records" % trim_mturk(args.source / MTURK, target(MTURK), keep)[::-1])
    print(f"{RATERS}: %d of %d questions" % trim_raters(args.source / RATERS, target(RATERS), keep)[::-1])
    packaged = imagenet_x_files()
    for rel, src in (packaged or {}).items():
        print(f"{rel}: %d of %d records" % trim_jsonl(src, target(rel), keep)[::-1])
    if packaged is None:
        print("imagenet-x is not installed (pip install imagenet-x): its files in tests/data are left as they are")

    images = target("imagenet-samples/x").parent
    for old in images.glob("*.JPEG"):
        old.unlink()
    chosen = sample_images(args.source, REPO / "tests")
    for path in chosen:
        shutil.copyfile(path, images / path.name)
    print(f"imagenet-samples: {len(chosen)} of {len(list((args.source / 'imagenet-samples').iterdir()))} images")
    total = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"{args.out}: {total / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
