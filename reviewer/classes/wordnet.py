"""The WordNet hierarchy over the ImageNet classes: ancestors, distances, organisms.

Works on the shipped asset (the 1000 classes and all their ancestors, with
hypernym and instance-hypernym edges), never on nltk. Functions take a class
as its index (0..999) or as a wnid ("n01440764"); any synset of the asset is
accepted where a wnid is.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Union

import numpy as np

from reviewer.classes.vocabulary import load_classes, read_wordnet_asset

ClassRef = Union[int, np.integer, str]

ORGANISM = "n00004475"  # organism.n.01 ("a living thing ...")


class Hierarchy:
    """Parent edges of the asset's synsets, with every synset's ancestors precomputed."""

    def __init__(self, parents: dict[str, tuple[str, ...]], names: dict[str, str]) -> None:
        self._parents = parents
        self._names = names
        self._ancestors = {wnid: self._bfs_up(wnid)[0] for wnid in parents}

    def __contains__(self, wnid: object) -> bool:
        return wnid in self._parents

    def __len__(self) -> int:
        return len(self._parents)

    def parents(self, wnid: str) -> tuple[str, ...]:
        """Direct hypernyms and instance hypernyms of `wnid`, sorted."""
        return self._parents[self._known(wnid)]

    def name(self, wnid: str) -> str:
        """Display name: the class name for a class, else the synset's first lemma."""
        return self._names[self._known(wnid)]

    def ancestors(self, wnid: str) -> dict[str, int]:
        """{ancestor wnid: fewest levels up}, over all parent edges, `wnid` itself at 0."""
        return dict(self._ancestors[self._known(wnid)])

    def is_descendant(self, wnid: str, ancestor: str) -> bool:
        """Whether `ancestor` is `wnid` or lies on one of its hypernym paths."""
        return ancestor in self._ancestors[self._known(wnid)]

    def path_up(self, wnid: str, ancestor: str) -> tuple[str, ...]:
        """A shortest chain of parent edges from `wnid` up to `ancestor`, both included."""
        _, came_from = self._bfs_up(self._known(wnid))
        if ancestor != wnid and ancestor not in came_from:
            raise ValueError(f"{ancestor} is not an ancestor of {wnid}")
        path = [ancestor]
        while path[-1] != wnid:
            path.append(came_from[path[-1]])
        return tuple(reversed(path))

    def levels(self, a: str, b: str) -> int:
        """The distance of `a` and `b` (below) as a number only, without the paths."""
        up_a, up_b = self._ancestors[self._known(a)], self._ancestors[self._known(b)]
        common = up_a.keys() & up_b.keys()
        if not common:  # cannot happen for nouns (all reach entity.n.01)
            raise ValueError(f"{a} and {b} have no common ancestor")
        return min(max(up_a[c], up_b[c]) for c in common)

    def distance(self, a: str, b: str) -> HierarchyDistance:
        """Levels from the farther of `a`, `b` up to their nearest common ancestor.

        The minimum over common ancestors c of max(levels a->c, levels b->c):
        identical 0, siblings or parent/child 1, same grandparent 2.
        """
        best = self.levels(a, b)
        up_a, up_b = self._ancestors[a], self._ancestors[b]
        common = up_a.keys() & up_b.keys()
        # Ties: the ancestor closest to both in total first, then by wnid.
        nearest = sorted((c for c in common if max(up_a[c], up_b[c]) == best),
                         key=lambda c: (up_a[c] + up_b[c], c))
        return HierarchyDistance(distance=best, common_ancestors=tuple(nearest),
                                 path_a=self.path_up(a, nearest[0]), path_b=self.path_up(b, nearest[0]))

    def _known(self, wnid: str) -> str:
        if wnid not in self._parents:
            raise KeyError(f"{wnid!r} is not a synset of the shipped WordNet asset "
                           "(the ImageNet-1k classes and their ancestors)")
        return wnid

    def _bfs_up(self, wnid: str) -> tuple[dict[str, int], dict[str, str]]:
        """Levels up to each ancestor and the child each was first reached from."""
        levels, came_from = {wnid: 0}, {}
        queue = deque([wnid])
        while queue:
            node = queue.popleft()
            for parent in self._parents[node]:
                if parent not in levels:
                    levels[parent] = levels[node] + 1
                    came_from[parent] = node
                    queue.append(parent)
        return levels, came_from


@dataclass(frozen=True)
class HierarchyDistance:
    """How far apart two synsets are in WordNet, and through which ancestor."""

    distance: int
    common_ancestors: tuple[str, ...]  # all nearest common ancestors; the paths go to the first
    path_a: tuple[str, ...]  # a, its parent, ..., common_ancestors[0]
    path_b: tuple[str, ...]

    def named_paths(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """path_a and path_b as display names."""
        hierarchy = load_hierarchy()
        return tuple(map(hierarchy.name, self.path_a)), tuple(map(hierarchy.name, self.path_b))

    def describe(self) -> str:
        """E.g. "Eskimo dog -> working dog <- malamute (distance 1)"."""
        names_a, names_b = self.named_paths()
        up = " -> ".join(names_a)
        down = " <- ".join(reversed(names_b[:-1]))
        return f"{up}{' <- ' + down if down else ''} (distance {self.distance})"


@lru_cache(maxsize=1)
def load_hierarchy() -> Hierarchy:
    """The hierarchy of the shipped WordNet asset (cached)."""
    synsets = read_wordnet_asset()["synsets"]
    classes = load_classes()
    names = {wnid: entry["lemmas"][0] for wnid, entry in synsets.items()}
    names.update(zip(classes.wnids, classes.names))
    return Hierarchy({wnid: tuple(entry["parents"]) for wnid, entry in synsets.items()}, names)


def to_wnid(ref: ClassRef) -> str:
    """The wnid of a class index or wnid."""
    if isinstance(ref, (int, np.integer)) and not isinstance(ref, bool):
        wnids = load_classes().wnids
        if not 0 <= ref < len(wnids):
            raise IndexError(f"class index {ref} is outside 0..{len(wnids) - 1}")
        return wnids[int(ref)]
    if isinstance(ref, str):
        return ref
    raise TypeError(f"expected a class index or a wnid, got {type(ref).__name__}")


def hierarchy_distance(a: ClassRef, b: ClassRef) -> HierarchyDistance:
    """WordNet distance between two classes (indices or wnids); see `Hierarchy.distance`."""
    return _distance(to_wnid(a), to_wnid(b))


@lru_cache(maxsize=1 << 16)
def _distance(a: str, b: str) -> HierarchyDistance:
    return load_hierarchy().distance(a, b)


@lru_cache(maxsize=1 << 18)
def hierarchy_levels(a: ClassRef, b: ClassRef) -> int:
    """`hierarchy_distance(a, b).distance` without the paths, for tables of thousands of
    mistakes (cached; the same definition, `Hierarchy.levels`)."""
    return load_hierarchy().levels(to_wnid(a), to_wnid(b))


def is_organism(ref: ClassRef) -> bool:
    """Whether the class is a living thing: organism.n.01 or one of its descendants."""
    return load_hierarchy().is_descendant(to_wnid(ref), ORGANISM)


@lru_cache(maxsize=1)
def organism_mask() -> np.ndarray:
    """bool [1000], read-only: which classes are organisms (the rest are objects)."""
    mask = np.array([is_organism(w) for w in load_classes().wnids], dtype=bool)
    mask.setflags(write=False)
    return mask
