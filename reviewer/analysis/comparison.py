"""Model against model, as the paper compares ViT-3B and Greedy Soups (§3.1, §4.3).

For every pair of models with a complete run over the whole set (a model's
latest such run):

- **overlap of their mistakes** over the images both runs predicted: the
  mistakes only A made ("B corrected", 209 in the paper), only B made (170),
  and those both made, with the same prediction or a different one (28);
  mistakes are the runs' stored mistakes (top-1 not among the correct or
  unclear labels before the panel's review, problematic images skipped);
- **novel predictions judged correct** per model: of a run's novel mistakes
  (the prediction was not a wrong label of the image, §3.1), how many the
  panel's final decision turned into a correct or unclear label or whose
  image it flagged problematic, "deemed correct (or the ground truth deemed
  incorrect)" (ViT-3B 140 of 221, Greedy Soups 92 of 198); the share is over
  the decided ones, undecided ones are counted apart. Beside it, each verdict's
  own share: judged correct (`correct_share`, correct alone) and judged
  unclear (`unclear_share`), so that "judged correct" never counts unclear;
- **the chi-square test of that difference**: Pearson's test of independence
  on the 2 x 2 table (model x judged correct or not), without Yates'
  correction by default, as the paper's printed 2 x 2 tests are (§4.2: the
  uncorrected statistic reproduces "χ2(1,N=776)=0.36, p=.55"); where an
  expected count is below 5, marked, with Fisher's exact p beside it
  (`tables.independence_test`).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from sqlalchemy import select
from sqlmodel import Session

from db.tables import Model, Prediction, Run
from reviewer.analysis.tables import TEST_COLUMNS, independence_test
from reviewer.runs.mistakes import mistakes_frame, stored_mistakes
from reviewer.terms import RunStatus, Verdict

OVERLAP_COLUMNS = ["model_a", "model_b", "run_a", "run_b", "images", "mistakes_a", "mistakes_b", "only_a", "only_b",
                   "both_same", "both_different"]
NOVEL_COLUMNS = ["model", "run_id", "novel", "undecided", "decided", "correct", "unclear", "problematic", "wrong",
                 "judged_correct", "share", "correct_share", "unclear_share"]


def compared_runs(*, session: Session) -> dict[str, int]:
    """{model: its latest complete run over the whole set}, by model name."""
    rows = session.execute(select(Model.name, Run.id).join(Run, Run.model_id == Model.id)
                           .where(Run.status == RunStatus.COMPLETE, Run.image_slice.is_(None))
                           .order_by(Run.id)).all()
    return dict(sorted({name: run_id for name, run_id in rows}.items()))


def run_mistakes(*, session: Session, runs: dict[str, int]) -> dict[int, pd.DataFrame]:
    """{run id: its stored mistakes (image_id, predicted, novel)}, the runs' in one read (pass
    them to `mistake_overlap` and `novel_judgements`, which read them otherwise)."""
    frame = mistakes_frame(stored_mistakes(session=session))
    wanted = set(runs.values())
    groups = {int(run_id): group[["image_id", "predicted", "novel"]].reset_index(drop=True)
              for run_id, group in frame.groupby("run_id") if int(run_id) in wanted}
    empty = frame[["image_id", "predicted", "novel"]].iloc[:0]
    return {run_id: groups.get(run_id, empty) for run_id in runs.values()}


def _predicted_images(session: Session, run_id: int) -> np.ndarray:
    return np.array(session.execute(select(Prediction.image_id).where(Prediction.run_id == run_id))
                    .scalars().all(), dtype=np.int64)


def mistake_overlap(*, session: Session, runs: dict[str, int], predicted: dict[int, np.ndarray] | None = None,
                    mistakes: dict[int, pd.DataFrame] | None = None) -> pd.DataFrame:
    """One row per pair of models: the overlap of their mistakes (module docstring).
    `predicted` (run id -> the images it predicted) and `mistakes` (`run_mistakes`), when
    the caller has them.

    Every run's images and mistakes are laid over one axis of all their images, so that a
    pair costs a few passes over boolean arrays (there are n(n - 1)/2 pairs of n runs)."""
    mistakes = run_mistakes(session=session, runs=runs) if mistakes is None else mistakes
    predicted = predicted or {}
    images = {model: np.asarray(predicted[run_id]) if run_id in predicted else _predicted_images(session, run_id)
              for model, run_id in runs.items()}
    axis = np.unique(np.concatenate([np.zeros(0, np.int64), *images.values()]))
    done, wrong = {}, {}
    for model, run_id in runs.items():
        done[model] = np.zeros(len(axis), bool)
        done[model][np.searchsorted(axis, images[model])] = True
        wrong[model] = np.full(len(axis), -1, dtype=np.int64)  # the mistake's prediction, -1: none
        frame = mistakes[run_id]
        at = np.searchsorted(axis, frame["image_id"].to_numpy(np.int64))
        inside = (at < len(axis)) & (axis[np.minimum(at, len(axis) - 1)] == frame["image_id"].to_numpy(np.int64)) \
            if len(axis) else np.zeros(len(frame), bool)
        wrong[model][at[inside]] = frame["predicted"].to_numpy(np.int64)[inside]
    rows = []
    for a, b in combinations(runs, 2):
        common = done[a] & done[b]
        ma, mb = common & (wrong[a] >= 0), common & (wrong[b] >= 0)
        both = ma & mb
        same = int(np.count_nonzero(both & (wrong[a] == wrong[b])))
        n_a, n_b, n_both = int(np.count_nonzero(ma)), int(np.count_nonzero(mb)), int(np.count_nonzero(both))
        rows.append({"model_a": a, "model_b": b, "run_a": runs[a], "run_b": runs[b],
                     "images": int(np.count_nonzero(common)), "mistakes_a": n_a, "mistakes_b": n_b,
                     "only_a": n_a - n_both, "only_b": n_b - n_both, "both_same": same,
                     "both_different": n_both - same})
    return pd.DataFrame(rows, columns=OVERLAP_COLUMNS)


def novel_judgements(*, session: Session, runs: dict[str, int], decisions: pd.DataFrame,
                     mistakes: dict[int, pd.DataFrame] | None = None) -> pd.DataFrame:
    """Per model: its novel mistakes and what the panel's standing decisions (`decisions_table`)
    made of them; `mistakes` (`run_mistakes`) when the caller has them."""
    decided = decisions.set_index(["image_id", "predicted"])
    mistakes = run_mistakes(session=session, runs=runs) if mistakes is None else mistakes
    rows = []
    for model, run_id in runs.items():
        novel = mistakes[run_id]
        novel = novel[novel["novel"]]
        index = pd.MultiIndex.from_frame(novel[["image_id", "predicted"]])
        verdict = decided["verdict"].reindex(index)
        problematic = decided["problematic"].reindex(index).fillna(False).astype(bool)
        has = verdict.notna()
        correct = int((verdict == Verdict.CORRECT).sum())
        unclear = int((verdict == Verdict.UNCLEAR).sum())
        flagged = int((has & problematic & (verdict == Verdict.WRONG)).sum())  # correct/unclear already count
        judged = correct + unclear + flagged
        n_decided = int(has.sum())
        rows.append({"model": model, "run_id": run_id, "novel": int(len(novel)), "undecided": int((~has).sum()),
                     "decided": n_decided, "correct": correct, "unclear": unclear,
                     "problematic": int((has & problematic).sum()), "wrong": int((verdict == Verdict.WRONG).sum()),
                     "judged_correct": judged, "share": _share(judged, n_decided),
                     "correct_share": _share(correct, n_decided), "unclear_share": _share(unclear, n_decided)})
    return pd.DataFrame(rows, columns=NOVEL_COLUMNS)


def _share(count: int, total: int) -> float:
    return count / total if total else np.nan


def novel_share_tests(novel: pd.DataFrame, *, yates: bool = False) -> pd.DataFrame:
    """Pearson's chi-square test, for every pair of models, of whether their decided novel
    predictions are judged correct (or their image problematic) at the same rate (with the
    small-sample check of `independence_test`). Columns: `TEST_COLUMNS`."""
    rows = []
    table = novel.set_index("model")
    for a, b in combinations(table.index, 2):
        counts = np.array([[table.loc[m, "judged_correct"], table.loc[m, "decided"] - table.loc[m, "judged_correct"]]
                           for m in (a, b)], dtype=np.int64)
        rows.append({"model_a": a, "model_b": b, **independence_test(counts, yates=yates)})
    return pd.DataFrame(rows, columns=TEST_COLUMNS)
