"""The paper's collapsed class mappings: which predictions an image's label also accepts.

Vasudevan et al. (2022), Appendix C, treat some ImageNet classes as
interchangeable when scoring: read "A -> B" as "an image labelled A also
accepts the prediction B". Some rules go one way (Siberian husky -> Eskimo
dog), others both ways (sunglass <-> sunglasses; weasel, mink, polecat and
black-footed ferret all accept each other). The rules are data, in
`assets/collapsed_mappings.json`; each class there is given by index, wnid
and name, and loading checks that index and wnid agree.
"""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import permutations

import numpy as np

from reviewer.classes.vocabulary import load_classes
from reviewer.paths import asset


@lru_cache(maxsize=1)
def collapsed_pairs() -> tuple[tuple[int, int], ...]:
    """Sorted (label, accepted prediction) class-index pairs, diagonal excluded."""
    path = asset("collapsed_mappings.json")
    data = json.loads(path.read_text(encoding="utf-8"))

    def index_of(ref: dict) -> int:
        wnids = load_classes().wnids
        i = ref["index"]
        if not (isinstance(i, int) and 0 <= i < len(wnids)) or wnids[i] != ref["wnid"]:
            found = wnids[i] if isinstance(i, int) and 0 <= i < len(wnids) else "no class"
            raise ValueError(f"{path}: class {ref} does not match the vocabulary "
                             f"(index {i} is {found})")
        return i

    pairs: set[tuple[int, int]] = set()
    for rule in data["one_way"]:
        pairs.update((index_of(a), index_of(b)) for a in rule["labels"] for b in rule["accepts"])
    for group in data["equivalent"]:
        pairs.update(permutations([index_of(ref) for ref in group["classes"]], 2))
    return tuple(sorted((a, b) for a, b in pairs if a != b))


def accepts(label: int, prediction: int) -> bool:
    """Whether an image labelled `label` accepts the prediction `prediction`."""
    return bool(acceptance_matrix()[label, prediction])


@lru_cache(maxsize=1)
def acceptance_matrix() -> np.ndarray:
    """bool [1000, 1000], read-only: M[label, prediction] is True when an image
    with that label accepts that prediction (the diagonal and the collapsed pairs)."""
    n = len(load_classes())
    matrix = np.eye(n, dtype=bool)
    for label, prediction in collapsed_pairs():
        matrix[label, prediction] = True
    matrix.setflags(write=False)
    return matrix
