"""Validation images leaked into the training set (the paper's §4.5 and Table 4), from
the duplicates `reviewer index` found (`reviewer.neighbours`):

- leaked: the project's validation images with an exact duplicate in the training folder
  (identical decoded pixels: the paper's "pixelwise L2 distance of 0"); how many have
  more than one, and how many distinct training images are copies (the paper: 797
  images, 34 more than once, 831 training images);
- labels: how many training copies carry another label than the validation image's
  original label (the paper: all of them), and, for the leaked images in the multi-label
  set, how many training labels the multi-labels accept (correct or unclear, the MLA
  rule, `reviewer.labels.labelset.accepted`: the paper's 219 of 331);
- per complete run: top-1 (original labels) and MLA (the reference definition,
  `reviewer.evaluation.metrics`) over all its images and over the leaked ones, Table 4's
  columns;
- near duplicates, apart: validation images whose nearest copy in training is only near
  (perceptual hash, or embedding similarity at the index's threshold), and exact
  duplicates inside the project (Flaws of ImageNet's pairs inside validation).

`leakage(...)` computes from plain inputs (tested on a hand-built case);
`project_leakage` gathers them from a project and its newest index.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Mapping, Sequence

import numpy as np

from reviewer.evaluation.metrics import Score, multilabel_accuracy, top1_accuracy
from reviewer.labels.labelset import LabelSet, accepted


@dataclass(frozen=True)
class RunLeakage:
    """Table 4's columns for one run: top-1 and MLA over all its images and the leaked ones."""

    run_id: int
    model: str
    top1: Score
    top1_leaked: Score
    mla: Score
    mla_leaked: Score
    mla_reason: str | None = None  # why there is no MLA (no multi-label set, ...)


@dataclass(frozen=True)
class NearDuplicates:
    """Validation images whose nearest training copy is near, not exact (one kind each)."""

    kind: str  # "perceptual" or "embedding"
    images: int  # validation images with such a copy in training and no exact one
    copies: int  # distinct training images
    different_label: int  # of those copies, labelled otherwise than the validation image


@dataclass(frozen=True)
class Leakage:
    index: str | None = None  # the model whose index found the duplicates; None: no index
    images: int = 0  # the project's images the index holds
    leaked: int = 0  # images with an exact duplicate in training
    more_than_once: int = 0  # ... with more than one
    copies: int = 0  # distinct training images that are exact duplicates of one
    copies_other_label: int = 0  # (leaked image, training copy) pairs labelled otherwise
    pairs: int = 0  # (leaked image, training copy) pairs
    pairs_unlabelled: int = 0  # pairs whose training image has no ImageNet label (its folder names none)
    images_all_other_label: int = 0  # leaked images whose every copy is labelled otherwise
    leaked_multilabel: int = 0  # leaked images in the multi-label set
    multilabel_pairs: int = 0  # their (image, copy) pairs with a training label
    multilabel_pairs_accepted: int = 0  # ... whose training label the image's multi-labels accept
    runs: tuple[RunLeakage, ...] = ()
    near: tuple[NearDuplicates, ...] = ()
    inside_exact_pairs: int = 0  # pairs of the project's images with identical pixels
    leaked_files: tuple[str, ...] = field(default=(), repr=False)

    def as_dict(self) -> dict:
        """The `leakage` key of `reviewer report --json` (docs/report-json.md)."""
        out = asdict(self)
        out["runs"] = [{"run_id": r.run_id, "model": r.model, "mla_reason": r.mla_reason,
                        **{name: getattr(r, name).as_dict() for name in ("top1", "top1_leaked", "mla", "mla_leaked")}}
                       for r in self.runs]
        out["leaked_files"] = list(self.leaked_files)
        return out


def leakage(duplicates: Mapping[str, Sequence], *, image_ids: Mapping[str, int], labels: LabelSet,
            runs: Sequence[tuple[int, str, np.ndarray, np.ndarray]], index: str | None = None,
            indexed_images: int = 0, class_of_wnid: Mapping[str, int] | None = None) -> Leakage:
    """The leakage of the project's images. `duplicates`: {file name: its duplicates}
    (`reviewer.neighbours.lookup.Duplicate`: kind, collection, path, wnid); `image_ids`:
    {file name: image id}; `labels`: the multi-labels the training labels are checked
    against; `runs`: (run id, model, image ids, top-1 classes) of each complete run;
    `class_of_wnid`: {wnid: class index} (default the 1000 classes)."""
    if class_of_wnid is None:
        from reviewer.classes.vocabulary import load_classes

        class_of_wnid = {w: i for i, w in enumerate(load_classes().wnids)}
    leaked: dict[str, list] = {}
    near: dict[str, dict[str, list]] = {"perceptual": {}, "embedding": {}}
    inside = set()
    for name, found in duplicates.items():
        if name not in image_ids:
            continue
        exact = [d for d in found if d.kind == "exact" and d.collection == "train"]
        if exact:
            leaked[name] = list({d.path: d for d in exact}.values())
        else:
            for kind in near:
                copies = [d for d in found if d.kind == kind and d.collection == "train"]
                if copies:
                    near[kind][name] = copies
        inside |= {frozenset((name, d.file_name)) for d in found if d.kind == "exact" and d.collection == "project"}
    positions = labels.positions(np.array([image_ids[n] for n in sorted(leaked)], dtype=np.int64))
    pairs = other = unlabelled = all_other = in_ml = ml_pairs = ml_accepted = 0
    for name, position in zip(sorted(leaked), positions):
        original = int(labels.original[position]) if position >= 0 else -1
        classes = [class_of_wnid.get(d.wnid) for d in leaked[name]]
        pairs += len(classes)
        unlabelled += sum(c is None for c in classes)
        differs = [c is not None and c != original for c in classes]
        other += sum(differs)
        all_other += all(differs)
        if position >= 0 and labels.multilabel[position]:
            in_ml += 1
            known = [c for c in classes if c is not None]
            ml_pairs += len(known)
            # One copy at a time: `accepted` takes one prediction per image.
            ml_accepted += sum(bool(accepted(labels, [position], [c])[0]) for c in known)
    leaked_ids = np.array([image_ids[n] for n in leaked], dtype=np.int64)
    return Leakage(
        index=index, images=indexed_images, leaked=len(leaked),
        more_than_once=sum(len(c) > 1 for c in leaked.values()),
        copies=len({d.path for c in leaked.values() for d in c}), copies_other_label=other, pairs=pairs,
        pairs_unlabelled=unlabelled, images_all_other_label=all_other, leaked_multilabel=in_ml,
        multilabel_pairs=ml_pairs, multilabel_pairs_accepted=ml_accepted,
        runs=tuple(_run_leakage(run_id, model, ids, top1, leaked_ids, labels) for run_id, model, ids, top1 in runs),
        near=tuple(NearDuplicates(kind=kind, images=len(found), copies=len({d.path for c in found.values() for d in c}),
                                  different_label=sum(_differs(d, name, image_ids, labels, class_of_wnid)
                                                      for name, c in found.items() for d in c))
                   for kind, found in near.items()),
        inside_exact_pairs=len(inside), leaked_files=tuple(sorted(leaked)))


def _differs(duplicate, name: str, image_ids, labels: LabelSet, class_of_wnid) -> bool:
    position = int(labels.positions(np.array([image_ids[name]]))[0])
    original = int(labels.original[position]) if position >= 0 else -1
    cls = class_of_wnid.get(duplicate.wnid)
    return cls is not None and cls != original


def _run_leakage(run_id: int, model: str, image_ids: np.ndarray, top1: np.ndarray, leaked_ids: np.ndarray,
                 labels: LabelSet) -> RunLeakage:
    positions = labels.positions(np.asarray(image_ids, dtype=np.int64))
    known = positions >= 0
    positions, top1 = positions[known], np.asarray(top1)[known]
    subset = np.isin(np.asarray(image_ids)[known], leaked_ids)
    mla, mla_leaked = (multilabel_accuracy(labels, positions[s], top1[s]) for s in (slice(None), subset))
    return RunLeakage(run_id=run_id, model=model, top1=top1_accuracy(labels, positions, top1),
                      top1_leaked=top1_accuracy(labels, positions[subset], top1[subset]),
                      mla=mla.all, mla_leaked=mla_leaked.all, mla_reason=mla.reason)


def project_leakage(project, *, session, labels: LabelSet, predictions: Mapping, models: Mapping[int, str]
                    ) -> Leakage:
    """The leakage of the project's images from its newest complete index (an empty
    `Leakage`, index None, when there is none); `predictions`: {run id: RunPredictions}."""
    from sqlalchemy import select

    from db.tables import Image
    from reviewer.neighbours.lookup import NeighbourIndex

    index = NeighbourIndex.open(project.root)
    if index is None:
        return Leakage()
    image_ids = dict(session.execute(select(Image.file_name, Image.id)).all())
    runs = [(run_id, models.get(run_id, f"run {run_id}"), p.image_ids, p.topk[:, 0])
            for run_id, p in predictions.items()]
    return leakage(index.all_duplicates(), image_ids=image_ids, labels=labels, runs=runs, index=index.model,
                   indexed_images=int(index.manifest.get("counts", {}).get("project", 0)))
