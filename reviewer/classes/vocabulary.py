"""The 1000 ImageNet-1k classes: wnids, display names, lemmas and definitions.

Read from the shipped WordNet asset (`assets/wordnet/imagenet_wordnet.json`,
built by `scripts/build_wordnet_assets.py`), so the app needs neither timm,
nltk nor a WordNet download for its vocabulary. Class index i is the i-th
sorted wnid, as in timm and torchvision.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache

from reviewer.paths import asset

NUM_CLASSES = 1000


@lru_cache(maxsize=1)
def read_wordnet_asset() -> dict:
    """The parsed asset: {"wordnet_version", "classes": [wnid], "synsets": {wnid: {...}}}."""
    path = asset("wordnet", "imagenet_wordnet.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    classes = data["classes"]
    if len(classes) != NUM_CLASSES or classes != sorted(classes):
        raise ValueError(f"{path}: expected {NUM_CLASSES} sorted class wnids, got {len(classes)}")
    missing = [w for w in classes if w not in data["synsets"]]
    if missing:
        raise ValueError(f"{path}: classes without a synset entry: {missing[:5]}")
    return data


@dataclass(frozen=True)
class ImageNetClasses:
    """The class vocabulary, indexed by class index (0..999)."""

    wnids: tuple[str, ...]
    names: tuple[str, ...]  # unique display names
    lemmas: tuple[tuple[str, ...], ...]
    definitions: tuple[str, ...]
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {w: i for i, w in enumerate(self.wnids)})

    def __len__(self) -> int:
        return len(self.wnids)

    def index(self, wnid: str) -> int:
        """Class index of `wnid`; KeyError naming the wnid when it is not an ImageNet-1k class."""
        try:
            return self._index[wnid]
        except KeyError:
            hint = "" if _looks_like_wnid(wnid) else " (a wnid looks like 'n01440764': 'n' and 8 digits)"
            raise KeyError(f"{wnid!r} is not one of the {len(self)} ImageNet-1k class wnids{hint}") from None

    def label(self, i: int) -> str:
        """"248 Eskimo dog": the class index and display name."""
        return f"{i} {self.names[i]}"


def _looks_like_wnid(text: object) -> bool:
    return isinstance(text, str) and len(text) == 9 and text[0] == "n" and text[1:].isdigit()


def display_names(wnids: list[str], synsets: dict[str, dict]) -> list[str]:
    """First lemma of each class, made unique where two share it (ignoring case).

    A clashing class gets its second lemma in parentheses, or its parent's
    first lemma when it has only one ("crane (wading bird)", "crane (lifting
    device)", "maillot (tights)", "maillot (tank suit)").
    """
    names = [synsets[w]["lemmas"][0] for w in wnids]
    groups: dict[str, list[int]] = defaultdict(list)
    for i, name in enumerate(names):
        groups[name.lower()].append(i)
    for members in groups.values():
        if len(members) < 2:
            continue
        for i in members:
            entry = synsets[wnids[i]]
            extra = entry["lemmas"][1] if len(entry["lemmas"]) > 1 else synsets[entry["parents"][0]]["lemmas"][0]
            names[i] = f"{names[i]} ({extra})"
    clashes = len(names) - len({n.lower() for n in names})
    if clashes:
        raise ValueError(f"{clashes} ImageNet display names still clash after disambiguation")
    return names


@lru_cache(maxsize=1)
def load_classes() -> ImageNetClasses:
    """The ImageNet-1k vocabulary from the shipped WordNet asset (cached)."""
    data = read_wordnet_asset()
    wnids, synsets = data["classes"], data["synsets"]
    return ImageNetClasses(
        wnids=tuple(wnids),
        names=tuple(display_names(wnids, synsets)),
        lemmas=tuple(tuple(synsets[w]["lemmas"]) for w in wnids),
        definitions=tuple(synsets[w]["definition"] for w in wnids),
    )
