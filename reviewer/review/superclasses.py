"""Fine-grained superclasses of the ImageNet classes, built from the shipped WordNet asset.

Peychev et al. ("Automated Classification of Model Errors on ImageNet", NeurIPS 2023) group the
1000 classes into 161 hand-written superclasses and call a mistake fine-grained when the
prediction shares one with a label. Here the grouping is built the same way every time from
WordNet alone: a class's superclass is its ancestor with the most classes below it that still
holds at most `MAX_ORGANISMS` classes (a living thing) or `MAX_OBJECTS` (anything else; ties go to
the higher wnid). Living things get the larger bound so that, e.g., all 118 dogs are one
superclass, as in Peychev et al.; objects the smaller one, so that 'container' or 'device'
(hundreds of unlike classes) are not. The bounds were chosen on the fitting half of the
published reviews (docs/suggestions.md); they give 158 superclasses, 93 of them with more than
one class.
"""

from __future__ import annotations

from functools import lru_cache

from reviewer.classes.vocabulary import load_classes
from reviewer.classes.wordnet import is_organism, load_hierarchy, to_wnid

MAX_ORGANISMS = 130  # classes below a living thing's superclass at most (the dogs are 118)
MAX_OBJECTS = 30  # classes below any other class's superclass at most


@lru_cache(maxsize=1)
def _classes_below() -> dict[str, frozenset[int]]:
    """{synset: the class indices at or below it}."""
    hierarchy = load_hierarchy()
    below: dict[str, set[int]] = {}
    for index, wnid in enumerate(load_classes().wnids):
        for ancestor in hierarchy.ancestors(wnid):
            below.setdefault(ancestor, set()).add(index)
    return {wnid: frozenset(classes) for wnid, classes in below.items()}


@lru_cache(maxsize=1)
def superclass_table() -> tuple[str, ...]:
    """The superclass (a synset's wnid) of each class, in class-index order."""
    below = _classes_below()
    hierarchy = load_hierarchy()
    out = []
    for index, wnid in enumerate(load_classes().wnids):
        bound = MAX_ORGANISMS if is_organism(index) else MAX_OBJECTS
        out.append(max((len(below[a]), a) for a in hierarchy.ancestors(wnid) if len(below[a]) <= bound)[1])
    return tuple(out)


def superclass_of(cls) -> str:
    """The wnid of a class's superclass (a class index or wnid)."""
    return superclass_table()[load_classes().index(to_wnid(cls))]


def same_superclass(a: int, b: int) -> bool:
    """Whether two classes (indices) share a superclass."""
    table = superclass_table()
    return table[int(a)] == table[int(b)]


def superclass_name(cls: int) -> str:
    """The display name of a class's superclass, e.g. 'dog' or 'beetle'."""
    return load_hierarchy().name(superclass_table()[int(cls)])


def superclass_size(cls: int) -> int:
    """How many classes share the class's superclass (itself included)."""
    return len(_classes_below()[superclass_table()[int(cls)]])
