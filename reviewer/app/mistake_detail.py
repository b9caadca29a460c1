"""Everything the review window shows about one mistake, as plain data.

`DetailSource` reads the project's images, labels and runs once and then
builds a `MistakeDetail` per (run, image, predicted class) with one small
query (the image's predictions in every run), so a window can prefetch the
next mistakes' details on a worker thread in a millisecond or two each.

A detail holds: the image file (and whether it is there), the top-1 with its
softmax score, the top-5 each marked as a correct / wrong / unclear /
unreviewed label of the image (or as the panel's standing final decision on
that prediction decided it: `decided`), other runs' top-1 on the image, the original
label, the multi-labels, the problematic flag, the WordNet relation between
the prediction and the nearest ground-truth label (distance, lowest common
ancestor, both paths), both classes' definitions, and exemplar images of the
predicted and the label class elsewhere in the project, and, once `reviewer index`
has built an index beside the project, the image's nearest training images and
duplicates (`reviewer.neighbours.lookup`: precomputed, read here from memory), and a suggested
category and severity with its reasons (`reviewer.review.suggest`), shown beside the vote.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import select

from db.tables import Image, Model, Panelist, Prediction, Run
from reviewer.classes.collapsed import acceptance_matrix
from reviewer.classes.vocabulary import load_classes
from reviewer.classes.wordnet import hierarchy_distance, load_hierarchy
from reviewer.evidence import EvidenceLine, evidence_for
from reviewer.items import Item
from reviewer.labels.labelset import CORRECT, LabelSet
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.neighbours.lookup import NeighbourFacts, NeighbourIndex
from reviewer.panel.final import DecisionNote, decision_note, read_final_decisions
from reviewer.project import Project
from reviewer.review.suggest import Suggestion, SuggestionFacts, suggest
from reviewer.runs.predictions import PROB_COLUMNS, TOPK_COLUMNS
from reviewer.runs.zoom.result import ZoomSummary, accepted_classes, summarise
from reviewer.runs.zoom.store import StoredZoom, load_zoom

EXEMPLARS = 12


@dataclass(frozen=True)
class ClassInfo:
    index: int
    wnid: str
    name: str
    definition: str

    @classmethod
    def of(cls, index: int) -> "ClassInfo":
        classes = load_classes()
        return cls(index=int(index), wnid=classes.wnids[index], name=classes.names[index],
                   definition=classes.definitions[index])


@dataclass(frozen=True)
class RankedClass:
    """One of the top-5: `label_kind` is correct / wrong / unclear, or None when
    the image has no label of that class (unreviewed); `decided` when the kind is
    the verdict of the panel's standing final decision on (image, class), which
    takes the place of the label's kind."""

    rank: int
    cls: ClassInfo
    probability: float
    label_kind: str | None
    decided: bool = False


@dataclass(frozen=True)
class OtherRunTop1:
    run_id: int
    model: str
    cls: ClassInfo
    probability: float
    label_kind: str | None
    decided: bool = False  # as RankedClass.decided


@dataclass(frozen=True)
class WordNetRelation:
    """How the prediction sits in WordNet relative to the nearest ground-truth label."""

    label: ClassInfo
    distance: int
    common_ancestor: str  # display name of the lowest common ancestor
    common_ancestor_wnid: str
    predicted_path: tuple[str, ...]  # predicted class, its parent, ..., the common ancestor
    label_path: tuple[str, ...]


@dataclass(frozen=True)
class Exemplar:
    image_id: int
    file_name: str
    path: Path | None


@dataclass(frozen=True)
class MistakeDetail:
    run_id: int
    image_id: int
    file_name: str
    image_path: Path | None
    image_exists: bool
    predicted: ClassInfo
    probability: float
    topk: tuple[RankedClass, ...]
    other_runs: tuple[OtherRunTop1, ...]
    original_label: ClassInfo | None
    correct: tuple[ClassInfo, ...]
    wrong: tuple[ClassInfo, ...]
    unclear: tuple[ClassInfo, ...]
    problematic: bool
    wordnet: WordNetRelation | None
    predicted_exemplars: tuple[Exemplar, ...]
    label_exemplars: tuple[Exemplar, ...]
    # What the imported evidence sources say about the image and both classes, one line
    # each (reviewer.evidence); empty when none is imported.
    evidence: tuple[EvidenceLine, ...] = ()
    # The panel's final decision on this prediction (reviewer.panel.final), told to every panelist.
    decision: DecisionNote | None = None
    # The nearest training images and duplicates (reviewer.neighbours); None: no index built.
    neighbours: NeighbourFacts | None = None
    # A suggested category and severity with its reasons (reviewer.review.suggest): shown beside
    # the vote, never cast. None: the image has no label to compare the prediction with.
    suggestion: Suggestion | None = None

    @property
    def label_class(self) -> ClassInfo | None:
        """The ground-truth class the prediction is compared with."""
        return self.wordnet.label if self.wordnet else self.original_label


class DetailSource:
    """The project's images, labels and runs, read once, for building details.

    Safe to use from one worker thread at a time per instance; `refresh()`
    re-reads after imports or new runs.
    """

    def __init__(self, project: Project, *, image_ids: list[int] | None = None) -> None:
        """`image_ids`: read those images' labels only (`reviewer show` of one image, where the whole
        project's were half a second at 50,000 images); their details then have no exemplars of
        other images."""
        self.project = project
        self.image_ids = image_ids
        self.refresh()

    def refresh(self) -> None:
        with self.project.read() as session:
            conn = session.connection()
            query = select(Image.id, Image.file_name, Image.path).order_by(Image.id)
            if self.image_ids is not None:
                query = query.where(Image.id.in_(self.image_ids))
            images = conn.execute(query).all()
            self._models = dict(conn.execute(
                select(Run.id, Model.name).join(Model, Model.id == Run.model_id)).all())
            self.labels: LabelSet = reviewed_labelset(session=session, after_review=False, image_ids=self.image_ids)
        self._files = {r[0]: (r[1], r[2]) for r in images}
        self._paths: dict[int, Path | None] = {}
        self._exemplars = _class_index(self.labels, {r[0] for r in images if r[2]})
        self._neighbours = NeighbourIndex.open(self.project.root)

    def neighbour_facts(self, file_name: str, predicted: int) -> NeighbourFacts | None:
        """The image's nearest training images and duplicates (None: no index); an index
        built since (`reviewer index` in another process) is read again."""
        index = self._neighbours
        if index is None or index.stale():
            index = self._neighbours = NeighbourIndex.open(self.project.root)
        return None if index is None else index.facts(file_name, predicted=predicted)

    def image_path(self, image_id: int) -> Path | None:
        """The image's file (None: the project has none), resolved once per image: each detail
        asks for two dozen exemplars' paths, and building a table row per path to ask
        `Project.image_file` was most of a detail's time on the reader thread."""
        if image_id not in self._paths:
            self._paths[image_id] = self.project.stored_path_file(self._files.get(image_id, ("", None))[1])
        return self._paths[image_id]

    def model_name(self, run_id: int) -> str:
        return self._models.get(run_id, f"run {run_id}")

    def exemplars(self, class_index: int, *, exclude: int | None = None, limit: int = EXEMPLARS) -> tuple[Exemplar, ...]:
        """Other images of the project whose correct labels include the class."""
        ids = [i for i in self._exemplars.get(int(class_index), ()) if i != exclude][:limit]
        return tuple(Exemplar(image_id=i, file_name=self._files[i][0], path=self.image_path(i)) for i in ids)

    def detail(self, *, run_id: int, image_id: int, predicted: int | None = None) -> MistakeDetail:
        """The detail of the image in the run (the prediction defaults to the run's top-1)."""
        with self.project.read() as session:
            rows = session.connection().execute(
                select(Prediction.run_id, *TOPK_COLUMNS, *PROB_COLUMNS)
                .where(Prediction.image_id == image_id).order_by(Prediction.run_id)).all()
            image = session.get(Image, image_id)
            top1 = next((int(r[1]) for r in rows if r[0] == run_id), None)
            shown_class = top1 if predicted is None else int(predicted)
            evidence = () if image is None or shown_class is None else tuple(evidence_for(
                session, image.file_name, predicted=shown_class, original=image.original_label))
            shown = {int(r[1 + k]) for r in rows for k in range(5)}
            finals = read_final_decisions(session=session, items=[Item(image_id, c) for c in sorted(shown)])
            panel = {item.predicted: str(d.verdict) for item, d in finals.items()}
            shown_decision = finals.get(Item(image_id, shown_class)) if shown_class is not None else None
            decision = None if shown_decision is None else decision_note(
                shown_decision, dict(session.execute(select(Panelist.id, Panelist.name)).all()))
            # The run's zoom probe of its top-1, when stored: the suggestion reads it.
            zoom = load_zoom(session=session, run_id=run_id, image=image_id) \
                if image is not None and shown_class is not None and shown_class == top1 else None
        if image is None:
            raise KeyError(f"no image with id {image_id} in {self.project.root}")
        by_run = {r[0]: (r[1:6], r[6:11]) for r in rows}
        if run_id not in by_run:
            raise KeyError(f"run {run_id} has no prediction for image {image.file_name}")
        position = int(self.labels.positions(np.array([image_id]))[0])
        labels = self.labels.labels_of(position) if position >= 0 else {"correct": [], "wrong": [], "unclear": []}
        classes, probs = by_run[run_id]
        predicted = int(classes[0]) if predicted is None else int(predicted)
        probability = float(probs[list(classes).index(predicted)]) if predicted in classes else float("nan")
        original = ClassInfo.of(image.original_label) if image.original_label is not None else None
        targets = labels["correct"] or ([original.index] if original else [])
        path = self.project.image_file(image)
        neighbours = self.neighbour_facts(image.file_name, predicted)
        return MistakeDetail(
            run_id=run_id, image_id=image_id, file_name=image.file_name, image_path=path,
            image_exists=bool(path and path.is_file()),
            predicted=ClassInfo.of(predicted), probability=probability,
            topk=ranked_classes(classes, probs, panel, labels),
            other_runs=tuple(OtherRunTop1(run_id=r, model=self.model_name(r), cls=ClassInfo.of(int(c[0])),
                                          probability=float(p[0]),
                                          label_kind=panel.get(int(c[0]), label_kind(labels, int(c[0]))),
                                          decided=int(c[0]) in panel)
                             for r, (c, p) in by_run.items() if r != run_id),
            original_label=original,
            correct=tuple(map(ClassInfo.of, labels["correct"])),
            wrong=tuple(map(ClassInfo.of, labels["wrong"])),
            unclear=tuple(map(ClassInfo.of, labels["unclear"])),
            problematic=bool(self.labels.problematic[position]) if position >= 0 else bool(image.problematic),
            wordnet=wordnet_relation(predicted, targets),
            predicted_exemplars=self.exemplars(predicted, exclude=image_id),
            label_exemplars=self.exemplars(targets[0], exclude=image_id) if targets else (),
            evidence=evidence,
            decision=decision,
            neighbours=neighbours,
            suggestion=suggest(SuggestionFacts(predicted, tuple(targets), evidence,
                                               self._zoom_summary(zoom, image_id, predicted, position), neighbours)),
        )

    def runs_top5(self, image_id: int) -> dict[int, tuple[RankedClass, ...]]:
        """{run: its top-5 on the image, each class with the labels' or the panel's word}, every run
        in one read (`reviewer show` lists them all; a `detail` per run read twenty runs' evidence,
        zoom probes and neighbours to print their top-5)."""
        with self.project.read() as session:
            rows = session.connection().execute(
                select(Prediction.run_id, *TOPK_COLUMNS, *PROB_COLUMNS)
                .where(Prediction.image_id == image_id).order_by(Prediction.run_id)).all()
            shown = {int(r[1 + k]) for r in rows for k in range(5)}
            finals = read_final_decisions(session=session, items=[Item(image_id, c) for c in sorted(shown)])
        panel = {item.predicted: str(d.verdict) for item, d in finals.items()}
        position = int(self.labels.positions(np.array([image_id]))[0])
        labels = self.labels.labels_of(position) if position >= 0 else {"correct": [], "wrong": [], "unclear": []}
        return {int(r[0]): ranked_classes(r[1:6], r[6:11], panel, labels) for r in rows}

    def _zoom_summary(self, zoom: StoredZoom | None, image_id: int, predicted: int,
                      position: int) -> ZoomSummary | None:
        if zoom is None or position < 0:
            return None
        return summarise(zoom.result, predicted=predicted, accepted=accepted_classes(self.labels, image_id))


def ranked_classes(classes, probs, panel: dict[int, str], labels: dict[str, list[int]]) -> tuple[RankedClass, ...]:
    """A run's top-5, each class judged by the panel's standing final decision where there is one,
    else by the image's labels (`label_kind`)."""
    return tuple(RankedClass(rank=k + 1, cls=ClassInfo.of(int(c)), probability=float(p),
                             label_kind=panel.get(int(c), label_kind(labels, int(c))), decided=int(c) in panel)
                 for k, (c, p) in enumerate(zip(classes, probs)))


def label_kind(labels: dict[str, list[int]], class_index: int) -> str | None:
    """How the image's labels judge a class: its own label first, then "correct"
    when a correct label accepts it through the collapsed class mappings."""
    for kind in ("correct", "unclear", "wrong"):
        if class_index in labels[kind]:
            return kind
    matrix = acceptance_matrix()
    if any(matrix[c, class_index] for c in labels["correct"]):
        return "correct"
    return None


def wordnet_relation(predicted: int, targets: list[int]) -> WordNetRelation | None:
    """The relation to the nearest of the ground-truth classes (ties: the first)."""
    if not targets:
        return None
    best = min(targets, key=lambda t: (hierarchy_distance(predicted, t).distance, targets.index(t)))
    relation = hierarchy_distance(predicted, best)
    hierarchy = load_hierarchy()
    ancestor = relation.common_ancestors[0]
    predicted_path, label_path = relation.named_paths()
    return WordNetRelation(label=ClassInfo.of(best), distance=relation.distance,
                           common_ancestor=hierarchy.name(ancestor), common_ancestor_wnid=ancestor,
                           predicted_path=predicted_path, label_path=label_path)


def _class_index(labels: LabelSet, with_files: set[int]) -> dict[int, list[int]]:
    """class -> image ids (with a file) having it as a correct label, by image id."""
    correct = labels.kinds == CORRECT
    out: dict[int, list[int]] = {}
    for row, cls in zip(labels.rows[correct].tolist(), labels.classes[correct].tolist()):
        image_id = int(labels.image_ids[row])
        if image_id in with_files:
            out.setdefault(int(cls), []).append(image_id)
    for ids in out.values():
        ids.sort()
    return out
