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


def _mistakes_of_run(session: Session, run_id: int) -> pd.DataFrame:
    return mistakes_frame(stored_mistakes(session=session, run_id=run_id))[["image_id", "predicted", "novel"]]


def _predicted_images(session: Session, run_id: int) -> np.ndarray:
    return np.array(session.execute(select(Prediction.image_id).where(Prediction.run_id == run_id))
                    .scalars().all(), dtype=np.int64)


def mistake_overlap(*, session: Session, runs: dict[str, int]) -> pd.DataFrame:
    """One row per pair of models: the overlap of their mistakes (module docstring)."""
    mistakes = {model: _mistakes_of_run(session, run_id) for model, run_id in runs.items()}
    predicted = {model: _predicted_images(session, run_id) for model, run_id in runs.items()}
    rows = []
    for a, b in combinations(runs, 2):
        common = np.intersect1d(predicted[a], predicted[b])
        ma = mistakes[a][mistakes[a]["image_id"].isin(common)].set_index("image_id")["predicted"]
        mb = mistakes[b][mistakes[b]["image_id"].isin(common)].set_index("image_id")["predicted"]
        both = ma.index.intersection(mb.index)
        same = int((ma.loc[both] == mb.loc[both]).sum())
        rows.append({"model_a": a, "model_b": b, "run_a": runs[a], "run_b": runs[b], "images": int(len(common)),
                     "mistakes_a": int(len(ma)), "mistakes_b": int(len(mb)), "only_a": int(len(ma) - len(both)),
                     "only_b": int(len(mb) - len(both)), "both_same": same, "both_different": int(len(both) - same)})
    return pd.DataFrame(rows, columns=OVERLAP_COLUMNS)


def novel_judgements(*, session: Session, runs: dict[str, int], decisions: pd.DataFrame) -> pd.DataFrame:
    """Per model: its novel mistakes and what the panel's standing decisions (`decisions_table`)
    made of them."""
    decided = decisions.set_index(["image_id", "predicted"])
    rows = []
    for model, run_id in runs.items():
        novel = _mistakes_of_run(session, run_id)
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
