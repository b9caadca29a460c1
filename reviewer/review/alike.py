"""A run's alike mistakes in sets, reviewed side by side (issue 26).

Two ways of finding alike mistakes (`AlikeBy`):
- by confusion pair: the same original label mistaken for the same predicted class (the
  paper counted 481 confused pairs over 378 images; American chameleon taken for green
  lizard 5 times), largest set first;
- by embedding neighbourhood: images whose embeddings (`reviewer index`: the project's
  own images embedded beside the training set) have cosine similarity at least
  `NEIGHBOURHOOD_SIMILARITY` with the set's first image. Greedy and deterministic:
  the image with the most such neighbours still in no set starts a set with its
  nearest neighbours in no set (at most `MAX_ALIKE`), and so on. A similarity to one
  image, not a chain: a set never drifts from its first image.

Only sets of at least two mistakes are formed; a mistake in no set is reviewed on
the review page as usual. Headless: entries in (`reviewer.review.queue_entry.QueueEntry`),
sets out; the embeddings are handed in as {file name: unit vector}.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from reviewer.items import Item
from reviewer.review.queue_entry import QueueEntry
from reviewer.terms import StrEnum

NEIGHBOURHOOD_SIMILARITY = 0.75  # the Lite0 embeddings of one class's images: about 0.5-0.8 apart
MAX_ALIKE = 12
MIN_ALIKE = 2


class AlikeBy(StrEnum):
    CONFUSION = "confusion"
    NEIGHBOURHOOD = "neighbourhood"

    @property
    def title(self) -> str:
        return {AlikeBy.CONFUSION: "Same confusion (label → prediction)",
                AlikeBy.NEIGHBOURHOOD: "Similar images (embedding neighbourhood)"}[self]


@dataclass(frozen=True)
class AlikeMistakes:
    """One set of alike mistakes, reviewed together; `reason` says in words what they share."""

    title: str
    reason: str
    entries: tuple[QueueEntry, ...]

    @property
    def items(self) -> tuple[Item, ...]:
        return tuple(e.item for e in self.entries)

    def __len__(self) -> int:
        return len(self.entries)


def alike_by_confusion(entries: Sequence[QueueEntry], *, min_size: int = MIN_ALIKE) -> list[AlikeMistakes]:
    """One set per (original label, predicted class) shared by at least `min_size`
    mistakes, largest first (ties: by the classes), each in image order."""
    from reviewer.classes.vocabulary import load_classes

    names = load_classes().names
    pairs: dict[tuple[int, int], list[QueueEntry]] = defaultdict(list)
    for entry in entries:
        if entry.original_label is not None:
            pairs[(int(entry.original_label), int(entry.predicted))].append(entry)
    ordered = sorted((p for p in pairs.items() if len(p[1]) >= min_size), key=lambda p: (-len(p[1]), p[0]))
    return [AlikeMistakes(title=f"{names[label]} → {names[predicted]}",
                          reason=f"{len(alike)} images labelled {names[label]}, each predicted {names[predicted]}",
                          entries=tuple(sorted(alike, key=lambda e: e.image_id)))
            for (label, predicted), alike in ordered]


def alike_by_neighbourhood(entries: Sequence[QueueEntry], vectors: Mapping[str, np.ndarray], *,
                           similarity: float = NEIGHBOURHOOD_SIMILARITY, max_size: int = MAX_ALIKE,
                           min_size: int = MIN_ALIKE, block: int = 1024) -> list[AlikeMistakes]:
    """Sets of mistakes whose images lie close together (the module's docstring); an
    entry whose image has no embedding is in no set."""
    from reviewer.classes.vocabulary import load_classes

    names = load_classes().names
    usable = sorted((e for e in entries if e.file_name in vectors), key=lambda e: (e.image_id, e.predicted))
    if len(usable) < min_size:
        return []
    matrix = np.stack([np.asarray(vectors[e.file_name], dtype=np.float32) for e in usable])
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    # How many others each image is close to, in blocks (10,000 mistakes never make a 10,000^2 matrix).
    close = np.zeros(len(usable), dtype=np.int64)
    for start in range(0, len(usable), block):
        close[start:start + block] = (matrix[start:start + block] @ matrix.T >= similarity).sum(axis=1) - 1
    free = np.ones(len(usable), dtype=bool)
    sets = []
    for seed in sorted(range(len(usable)), key=lambda i: (-close[i], i)):
        if not free[seed] or close[seed] + 1 < min_size:
            continue
        sims = matrix @ matrix[seed]
        others = [i for i in np.argsort(-sims, kind="stable") if i != seed and free[i] and sims[i] >= similarity]
        members = [seed, *others[:max_size - 1]]
        if len(members) < min_size:
            continue
        free[members] = False
        first = usable[seed]
        # Named by their labels, the first image's first (a reader sees at once what looks alike).
        labels = list(dict.fromkeys(names[e.original_label] for e in (usable[i] for i in members)
                                    if e.original_label is not None))
        named = " · ".join(labels[:3]) + (f" and {len(labels) - 3} more" if len(labels) > 3 else "")
        sets.append(AlikeMistakes(
            title=f"like {named}" if labels else f"like {first.file_name}",
            reason=f"{len(members)} images with cosine similarity at least {similarity:.2f} to {first.file_name} "
                   f"(the first); labelled {', '.join(labels) or 'nothing'}",
            entries=tuple(usable[i] for i in members)))
    return sets


def find_alike(entries: Sequence[QueueEntry], alike_by: AlikeBy | str, *,
               vectors: Mapping[str, np.ndarray] | None = None,
               similarity: float = NEIGHBOURHOOD_SIMILARITY) -> list[AlikeMistakes]:
    """The alike mistakes found one way, in sets (`similarity`: the neighbourhoods' threshold)."""
    alike_by = AlikeBy(alike_by)
    if alike_by == AlikeBy.CONFUSION:
        return alike_by_confusion(entries)
    return alike_by_neighbourhood(entries, vectors or {}, similarity=similarity)
