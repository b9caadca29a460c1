#!/usr/bin/env python
"""Build assets/wordnet/imagenet_wordnet.json from WordNet 3.0 and timm's class list.

The asset holds the 1000 ImageNet-1k classes (index order = sorted wnids, as
timm ships them) and every synset on their hypernym paths: name, lemmas,
definition and parent wnids (hypernyms and instance hypernyms). The app reads
only this file, so it needs neither nltk nor a WordNet download to run.

    python scripts/build_wordnet_assets.py                 # write the asset
    python scripts/build_wordnet_assets.py --check         # exit 1 if the shipped asset differs
    python scripts/build_wordnet_assets.py --wordnet-dir /path/to/wordnet/dict

WordNet comes from `--wordnet-dir` (a WordNet 3.0 "dict" directory; default
/usr/share/wordnet, Debian's wordnet-base package) or, when that does not
exist, from nltk's own data (`nltk.download('wordnet')`). The output is
byte-identical on every run: sorted keys, one synset per line, no timestamps.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any, Iterator

REPO_ROOT = Path(__file__).resolve().parent.parent
ASSET_PATH = REPO_ROOT / "assets" / "wordnet" / "imagenet_wordnet.json"
DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
WORDNET_VERSION = "3.0"
# dog.n.01 sits at this byte offset of data.noun in WordNet 3.0 only: a cheap
# check that the database is the version the ImageNet wnids refer to.
DOG_OFFSET_WN30 = 2084071

# The database files nltk's WordNetCorpusReader opens (those present are copied).
WORDNET_FILES = (
    "lexnames", "cntlist.rev", "index.sense",
    "index.adj", "index.adv", "index.noun", "index.verb",
    "data.adj", "data.adv", "data.noun", "data.verb",
    "adj.exc", "adv.exc", "noun.exc", "verb.exc",
)

# The fixed table of lexicographer files of WordNet 3.0, from `man 5 lexnames`
# (lexnames(5WN): "file number, file name, syntactic category" with 1 noun,
# 2 verb, 3 adjective, 4 adverb). Debian's wordnet-base omits the `lexnames`
# file that nltk's reader needs, so it is written from this table.
LEXNAMES = """\
00\tadj.all\t3
01\tadj.pert\t3
02\tadv.all\t4
03\tnoun.Tops\t1
04\tnoun.act\t1
05\tnoun.animal\t1
06\tnoun.artifact\t1
07\tnoun.attribute\t1
08\tnoun.body\t1
09\tnoun.cognition\t1
10\tnoun.communication\t1
11\tnoun.event\t1
12\tnoun.feeling\t1
13\tnoun.food\t1
14\tnoun.group\t1
15\tnoun.location\t1
16\tnoun.motive\t1
17\tnoun.object\t1
18\tnoun.person\t1
19\tnoun.phenomenon\t1
20\tnoun.plant\t1
21\tnoun.possession\t1
22\tnoun.process\t1
23\tnoun.quantity\t1
24\tnoun.relation\t1
25\tnoun.shape\t1
26\tnoun.state\t1
27\tnoun.substance\t1
28\tnoun.time\t1
29\tverb.body\t2
30\tverb.change\t2
31\tverb.cognition\t2
32\tverb.communication\t2
33\tverb.competition\t2
34\tverb.consumption\t2
35\tverb.contact\t2
36\tverb.creation\t2
37\tverb.emotion\t2
38\tverb.motion\t2
39\tverb.perception\t2
40\tverb.possession\t2
41\tverb.social\t2
42\tverb.stative\t2
43\tverb.weather\t2
44\tadj.ppl\t3
"""


class BuildError(RuntimeError):
    """The asset cannot be built here; the message says what to install."""


class WordNetUnavailable(BuildError):
    """No WordNet 3.0 database was found (or the one found is another version)."""


def imagenet_wnids() -> list[str]:
    """The 1000 ImageNet-1k wnids in class-index order, from timm's packaged list.

    The file is located without importing timm (which would import torch).
    """
    spec = importlib.util.find_spec("timm")
    if spec is None or spec.origin is None:
        raise BuildError("timm is not installed: pip install timm (it ships the ImageNet class list)")
    path = Path(spec.origin).parent / "data" / "_info" / "imagenet_synsets.txt"
    if not path.exists():
        raise BuildError(f"{path} is missing: this timm version does not ship the ImageNet class list")
    wnids = path.read_text(encoding="utf-8").split()
    if len(wnids) != 1000 or wnids != sorted(wnids) or len(set(wnids)) != 1000:
        raise BuildError(f"{path}: expected 1000 distinct sorted wnids, got {len(wnids)}")
    return wnids


def _reader_class() -> type:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class _WordNet30Reader(WordNetCorpusReader):
        """A reader over a plain WordNet 3.0 dict directory.

        nltk >= 3.9 compares the loaded version ("3.0") with the corpus name
        "wordnet" and, as they differ, loads nltk's downloaded wordnet to map
        multilingual (OMW) ids. Without an OMW reader there is nothing to map,
        and that lookup would fail on a machine without nltk data.
        """

        def map_wn(self, version: str = "wordnet") -> None:
            return None

    return _WordNet30Reader


@contextlib.contextmanager
def _reader_over_dir(wordnet_dir: Path) -> Iterator[Any]:
    """A WordNetCorpusReader over a copy of `wordnet_dir` completed with `lexnames`."""
    import nltk.data

    if not (wordnet_dir / "data.noun").is_file():
        raise WordNetUnavailable(f"{wordnet_dir} is not a WordNet dict directory (no data.noun in it)")
    with tempfile.TemporaryDirectory(prefix="wordnet-") as tmp:
        root = Path(tmp)
        for name in WORDNET_FILES:
            if (wordnet_dir / name).is_file():
                # Copies, not symlinks: nltk's path checks refuse files that
                # resolve outside its allowed data roots.
                shutil.copyfile(wordnet_dir / name, root / name)
        if not (root / "lexnames").exists():
            (root / "lexnames").write_text(LEXNAMES, encoding="utf-8")
        # nltk (>= 3.9.3) only opens files under its data path; allow our copy.
        nltk.data.path.insert(0, str(root))
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="The multilingual functions")
                yield _reader_class()(str(root), None)
        finally:
            nltk.data.path.remove(str(root))


@contextlib.contextmanager
def open_wordnet(wordnet_dir: Path | str | None = None) -> Iterator[Any]:
    """WordNet 3.0 from `wordnet_dir`, else /usr/share/wordnet, else nltk's data."""
    if wordnet_dir is None and DEBIAN_WORDNET_DIR.is_dir():
        wordnet_dir = DEBIAN_WORDNET_DIR
    if wordnet_dir is not None:
        with _reader_over_dir(Path(wordnet_dir)) as reader:
            _check_version(reader, str(wordnet_dir))
            yield reader
        return
    try:
        from nltk.corpus import wordnet

        wordnet.ensure_loaded()
    except (ImportError, LookupError) as exc:
        raise WordNetUnavailable(
            "no WordNet 3.0 found: install Debian's wordnet-base (/usr/share/wordnet), pass "
            "--wordnet-dir DIR (a WordNet 3.0 dict directory), or run "
            "python -c \"import nltk; nltk.download('wordnet')\""
        ) from exc
    _check_version(wordnet, "nltk's wordnet")
    yield wordnet


def _check_version(reader: Any, source: str) -> None:
    version = reader.get_version()
    try:
        dog = reader.synset_from_pos_and_offset("n", DOG_OFFSET_WN30).name()
    except Exception:  # noqa: BLE001 - any failure means "not 3.0"
        dog = None
    if version != WORDNET_VERSION or dog != "dog.n.01":
        raise WordNetUnavailable(
            f"{source} is WordNet {version}, not {WORDNET_VERSION}; ImageNet wnids are WordNet 3.0 offsets"
        )


def wnid_of(synset: Any) -> str:
    return "n%08d" % synset.offset()


def _parents(synset: Any) -> list[Any]:
    return synset.hypernyms() + synset.instance_hypernyms()


def build_asset(wordnet_dir: Path | str | None = None) -> dict:
    """The asset's content as a dict (see the module docstring)."""
    classes = imagenet_wnids()
    synsets: dict[str, dict] = {}
    with open_wordnet(wordnet_dir) as wn:
        todo = [wn.synset_from_pos_and_offset("n", int(w[1:])) for w in classes]
        for wnid, synset in zip(classes, todo):
            if wnid_of(synset) != wnid:
                raise BuildError(f"{wnid} is not a noun synset offset of WordNet {WORDNET_VERSION}")
        while todo:
            synset = todo.pop()
            wnid = wnid_of(synset)
            if wnid in synsets:
                continue
            parents = _parents(synset)
            synsets[wnid] = {
                "name": synset.name(),
                "lemmas": [lemma.name().replace("_", " ") for lemma in synset.lemmas()],
                "definition": synset.definition(),
                "parents": sorted({wnid_of(p) for p in parents}),
            }
            todo.extend(parents)
    return {"wordnet_version": WORDNET_VERSION, "classes": classes,
            "synsets": {k: synsets[k] for k in sorted(synsets)}}


def serialize(asset: dict) -> str:
    """JSON text with sorted keys, one class and one synset per line (small diffs)."""
    def dump(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=True)

    lines = ["{", '"classes": [']
    lines += [dump(w) + ("," if i < len(asset["classes"]) - 1 else "") for i, w in enumerate(asset["classes"])]
    lines += ["],", '"synsets": {']
    items = sorted(asset["synsets"].items())
    lines += [f"{dump(k)}: {dump(v)}" + ("," if i < len(items) - 1 else "") for i, (k, v) in enumerate(items)]
    lines += ["},", f'"wordnet_version": {dump(asset["wordnet_version"])}', "}"]
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == asset
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wordnet-dir", type=Path, default=None,
                        help=f"WordNet 3.0 dict directory (default: {DEBIAN_WORDNET_DIR} when it exists, "
                             "else nltk's downloaded wordnet)")
    parser.add_argument("--output", type=Path, default=ASSET_PATH, help=f"default: {ASSET_PATH}")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if the existing output differs from a fresh build")
    args = parser.parse_args(argv)
    try:
        text = serialize(build_asset(args.wordnet_dir))
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else None
        if current != text:
            print(f"{args.output} is out of date: run python scripts/build_wordnet_assets.py", file=sys.stderr)
            return 1
        print(f"{args.output} is up to date")
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}: {len(text.splitlines())} lines, {len(text.encode())} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
