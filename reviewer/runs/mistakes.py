"""The mistakes of a run: images whose top-1 prediction is not among their
correct or unclear labels (the reference rule; no collapsed mappings).

A mistake is *novel* when its prediction was never reviewed before: it is
not a wrong label of the image and no imported review has judged it. The
panel's own decisions do not change novelty (they change the status).
Problematic images are not counted, as in MLA; in a project with a
multi-label set, only its images are in scope.

`stored_mistakes` is the one reader of the stored mistakes (of one run or
of all), with what every consumer needs of the image; the queue, the panel,
the split, the comparison and the reviewed mistakes all read through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np
from sqlalchemy import bindparam, delete, insert, select, update
from sqlmodel import Session

from db.tables import Image, Mistake, Prediction
from reviewer.classes.wordnet import hierarchy_levels
from reviewer.items import Item
from reviewer.labels.labelset import CORRECT, WRONG, LabelSet, accepted, evaluable
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.runs.predictions import RunPredictions

if TYPE_CHECKING:  # pandas loads with the first table (0.3 s): the window's first paint needs none
    import pandas as pd


@dataclass(frozen=True)
class StoredMistake:
    mistake_id: int
    run_id: int
    image_id: int
    predicted: int
    probability: float
    novel: bool
    hierarchy_distance: int | None
    file_name: str
    original_label: int | None
    has_file: bool

    @property
    def item(self) -> Item:
        return Item(self.image_id, self.predicted)


def stored_mistakes(*, session: Session, run_id: int | None = None,
                    runs: tuple[int, ...] | None = None) -> list[StoredMistake]:
    """The stored mistakes of a run (or of the given runs, or of every run), by run and image."""
    query = (select(Mistake.id, Mistake.run_id, Mistake.image_id, Mistake.predicted, Mistake.probability,
                    Mistake.novel, Mistake.hierarchy_distance, Image.file_name, Image.original_label, Image.path)
             .join(Image, Image.id == Mistake.image_id).order_by(Mistake.run_id, Mistake.image_id))
    if run_id is not None:
        query = query.where(Mistake.run_id == run_id)
    if runs is not None:
        query = query.where(Mistake.run_id.in_(runs or (-1,)))
    return [StoredMistake(r[0], r[1], r[2], r[3], float(r[4]), bool(r[5]), r[6], r[7], r[8], r[9] is not None)
            for r in session.connection().execute(query)]


MISTAKE_COLUMNS = ["mistake_id", "run_id", "image_id", "predicted", "probability", "novel", "hierarchy_distance",
                   "file_name", "original_label", "has_file"]


def mistakes_frame(mistakes: list[StoredMistake]) -> pd.DataFrame:
    """The same mistakes as a table (`MISTAKE_COLUMNS`)."""
    import pandas as pd

    frame = pd.DataFrame([tuple(m.__dict__.values()) for m in mistakes], columns=MISTAKE_COLUMNS)
    return frame.astype({"image_id": "int64", "predicted": "int64", "run_id": "int64", "novel": bool})


def find_mistakes(labels: LabelSet, predictions: RunPredictions) -> np.ndarray:
    """Indices into `predictions` of its mistakes."""
    positions = labels.positions(predictions.image_ids)
    known = positions >= 0
    idx = np.flatnonzero(known)
    pos = positions[known]
    wrong = evaluable(labels, pos) & ~accepted(labels, pos, predictions.top1[known])
    return idx[wrong]


def novel_mask(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """bool: the prediction is not a wrong label of its image."""
    wrong_keys = labels.rows[labels.kinds == WRONG].astype(np.int64) * 1000 + labels.classes[labels.kinds == WRONG]
    return ~np.isin(np.asarray(positions, np.int64) * 1000 + predicted, wrong_keys)


def distances_to_labels(labels: LabelSet, positions: np.ndarray, predicted: np.ndarray) -> list[int | None]:
    """WordNet hierarchy distance from each prediction to the nearest correct label
    of its image (the original label where the image has no correct label)."""
    correct = labels.kinds == CORRECT
    order = np.argsort(labels.rows[correct], kind="stable")
    rows, classes = labels.rows[correct][order], labels.classes[correct][order]
    starts = np.searchsorted(rows, positions, side="left")
    ends = np.searchsorted(rows, positions, side="right")
    out: list[int | None] = []
    classes, original = classes.tolist(), labels.original
    # The levels alone (cached per pair): the same number as hierarchy_distance(...).distance,
    # without the paths, which cost 0.7 s of a 20,000-image run's end (8,000 mistakes).
    for pos, pred, lo, hi in zip(positions.tolist(), predicted.tolist(), starts.tolist(), ends.tolist()):
        targets = classes[lo:hi] or ([int(original[pos])] if original[pos] >= 0 else [])
        out.append(min(hierarchy_levels(pred, t) for t in targets) if targets else None)
    return out


@dataclass(frozen=True)
class MistakeDiff:
    """What computing a run's mistakes again changed in its stored ones."""

    run_id: int
    mistakes: int  # stored now
    gained: int  # images that are mistakes now and were not
    lost: int  # images that were mistakes and are not now ("no longer a mistake under the current labels")
    changed: int  # still mistakes, their novelty or WordNet distance changed

    @property
    def any(self) -> bool:
        return bool(self.gained or self.lost or self.changed)


def store_mistakes(*, session: Session, run_id: int, labels: LabelSet | None = None) -> MistakeDiff:
    """Compute the run's mistakes under the project's labels as they are now and bring the
    stored ones in line: rows of images no longer mistakes deleted, new ones inserted, a
    changed novelty or distance updated, the rest left as they are (their ids kept).
    `labels`: the project's labels before the panel's review (`reviewed_labelset(after_review=False)`),
    read once by a caller that updates every run."""
    if labels is None:
        labels = reviewed_labelset(session=session, after_review=False)
    conn = session.connection()
    result = [tuple(r) for r in conn.execute(
        select(Prediction.image_id, Prediction.pred_1, Prediction.prob_1).where(Prediction.run_id == run_id)
        .order_by(Prediction.image_id))]
    table = np.array(result, dtype=np.float64).reshape(len(result), 3)
    predictions = RunPredictions(run_id=run_id, image_ids=table[:, 0].astype(np.int64),
                                 topk=table[:, 1:2].astype(np.int16), probs=table[:, 2:3].astype(np.float32),
                                 rows=np.zeros(len(table), np.int64))
    idx = find_mistakes(labels, predictions)
    positions = labels.positions(predictions.image_ids[idx])
    predicted = predictions.top1[idx].astype(np.int64)
    novel = novel_mask(labels, positions, predicted)
    distances = distances_to_labels(labels, positions, predicted)
    wanted = {int(predictions.image_ids[i]): (int(p), float(predictions.probs[i, 0]), bool(n), d)
              for i, p, n, d in zip(idx, predicted, novel, distances)}
    stored = {r[1]: r for r in conn.execute(
        select(Mistake.id, Mistake.image_id, Mistake.predicted, Mistake.probability, Mistake.novel,
               Mistake.hierarchy_distance).where(Mistake.run_id == run_id))}
    lost = [r[0] for image_id, r in stored.items() if image_id not in wanted or wanted[image_id][0] != r[2]]
    gained = [image_id for image_id, w in wanted.items() if image_id not in stored or stored[image_id][2] != w[0]]
    changed = [(r[0], wanted[image_id]) for image_id, r in stored.items()
               if image_id in wanted and wanted[image_id][0] == r[2]
               and (bool(r[4]) != wanted[image_id][2] or r[5] != wanted[image_id][3])]
    for start in range(0, len(lost), 900):  # SQLite's bound-parameter limit
        session.execute(delete(Mistake).where(Mistake.id.in_(lost[start:start + 900])))
    if gained:
        conn.execute(insert(Mistake.__table__), [
            {"run_id": run_id, "image_id": image_id, "predicted": wanted[image_id][0],
             "probability": wanted[image_id][1], "novel": wanted[image_id][2],
             "hierarchy_distance": wanted[image_id][3]} for image_id in sorted(gained)])
    if changed:
        conn.execute(update(Mistake.__table__).where(Mistake.__table__.c.id == bindparam("mistake_id"))
                     .values(novel=bindparam("new_novel"), hierarchy_distance=bindparam("new_distance")),
                     [{"mistake_id": mid, "new_novel": w[2], "new_distance": w[3]} for mid, w in changed])
    return MistakeDiff(run_id=run_id, mistakes=len(wanted), gained=len(gained), lost=len(lost), changed=len(changed))


MISTAKES_REVISION = "mistakes_revision"  # project setting: bumped whenever stored mistakes change in place


def follow_labels(*, session: Session, progress: Callable[[int, int], None] | None = None) -> list[MistakeDiff]:
    """Every complete run's stored mistakes brought in line with the project's labels as
    they are now (the multi-label set, problematic marks, original labels, published
    reviews), so that a run's mistakes never depend on the order in which files and runs
    arrived. The label imports run this in their own unit of work. Returns each run's diff
    (runs whose mistakes did not change too). The run's report keeps the new count, and
    the project's `mistakes_revision` setting is bumped when anything changed, so that
    figures kept between calls know they must be computed again. `progress(done, total)` is
    told after each run (twenty runs of 50,000 images take seconds)."""
    from db.tables import ProjectSetting, Run
    from reviewer.terms import RunStatus

    runs = session.execute(select(Run).where(Run.status == RunStatus.COMPLETE).order_by(Run.id)).scalars().all()
    if not runs:
        return []
    labels = reviewed_labelset(session=session, after_review=False)
    diffs = []
    for done, run in enumerate(runs, 1):
        diff = store_mistakes(session=session, run_id=run.id, labels=labels)
        if progress is not None:
            progress(done, len(runs))
        if (run.report or {}).get("mistakes") != diff.mistakes:
            run.report = {**(run.report or {}), "mistakes": diff.mistakes}
            session.add(run)
        diffs.append(diff)
    if any(d.any for d in diffs):
        setting = session.get(ProjectSetting, MISTAKES_REVISION)
        value = str(int(setting.value or 0) + 1) if setting is not None else "1"
        session.merge(ProjectSetting(key=MISTAKES_REVISION, value=value))
    session.flush()
    return diffs
