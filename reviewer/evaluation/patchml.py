"""PatchML sets as evaluation sets: Anzaku et al.'s variable top-k and ASMA over each.

A PatchML set (`reviewer patchml`, `reviewer.importers.patchml`; Anzaku et al., "The
Impact of the Single-Label Assumption in Image Recognition Benchmarking", §3.2, §4.2.3)
is stored as a slice of its images whose rule (`slice_rule`) has kind "patchml", and
each image's labels, the union of its patches' classes, as the label set "patchml"
(`LabelSet.patchml_rows`). A run over the slice (`reviewer predict --images NAME`, or
over all images) is scored on the set's images it predicted, by
`reviewer.evaluation.topk.variable_topk` (k = the image's label count, Ŷ its k most
probable classes, both per-image readings, ASMA the unweighted mean of the label-count
subgroups) with every subgroup counted: the paper's PatchML subgroups run to 9 labels,
past the 1-5 of their ImageNet protocol (`max_labels` is the set's largest patch count).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlmodel import Session

from db.tables import ProjectSetting
from reviewer.evaluation.slices import RULE_KEY, slice_image_ids
from reviewer.evaluation.topk import VariableTopK, variable_topk
from reviewer.labels.labelset import LabelSet

PATCHML = "patchml"  # the rule's kind and the label set's name


@dataclass(frozen=True, eq=False)  # eq by identity: an array field has no truth value
class PatchMLSet:
    name: str  # its slice
    image_ids: np.ndarray  # int64, sorted
    rule: dict  # how it was made (reviewer.importers.patchml.description)

    @property
    def max_labels(self) -> int:
        return int(max(self.rule.get("patch_counts") or [9]))

    def as_dict(self) -> dict:
        """How the set was made (its rule: seed, boxes file and its SHA-256, K, P, F, patches,
        images per patch count and per label count), its name and its images now."""
        return {**self.rule, "name": self.name, "images": int(len(self.image_ids))}


def patchml_sets(*, session: Session) -> dict[str, PatchMLSet]:
    """The project's PatchML sets by name (none: {})."""
    out = {}
    rows = session.execute(select(ProjectSetting.key, ProjectSetting.value)
                           .where(ProjectSetting.key.startswith(RULE_KEY)).order_by(ProjectSetting.key)).all()
    for key, value in rows:
        try:
            rule = json.loads(value) if value else None
        except json.JSONDecodeError:
            continue  # not a rule this module wrote
        if isinstance(rule, dict) and rule.get("kind") == PATCHML:
            name = key[len(RULE_KEY):]
            out[name] = PatchMLSet(name, slice_image_ids(session=session, name=name), rule)
    return out


def patchml_variable_topk(labels: LabelSet, positions: np.ndarray, ranked: np.ndarray, *, patchml: PatchMLSet
                          ) -> VariableTopK:
    """Variable top-k and ASMA of one run over the images of `patchml` it predicted
    (`positions` in `labels`, `ranked` their classes best first)."""
    usable = np.isin(labels.image_ids, patchml.image_ids)
    return variable_topk(labels.patchml_rows, labels.patchml_classes, len(labels), positions, ranked,
                         usable=usable, label_set=PATCHML, max_labels=patchml.max_labels)


def run_patchml(labels: LabelSet, positions: np.ndarray, ranked: np.ndarray, sets: dict[str, PatchMLSet]
                ) -> dict[str, VariableTopK]:
    """Per PatchML set the run predicted images of, its figures (`patchml_variable_topk`)."""
    predicted = labels.image_ids[np.asarray(positions, dtype=np.int64)]
    return {name: patchml_variable_topk(labels, positions, ranked, patchml=s) for name, s in sets.items()
            if np.isin(predicted, s.image_ids).any()}
