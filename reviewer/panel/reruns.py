"""What a new run adds to the panel's work: its mistakes no one has reviewed yet.

When a new model is run (often on a curated slice only, `reviewer predict
PROJECT --model NAME --images SLICE`), most of its mistakes are questions the
panel already answered: the same image with the same predicted class, judged
in a published review (the class is a wrong label: `Mistake.novel` is false)
or decided by the panel (a current final decision on the item). Only the rest
go to the review queue.
"""

from __future__ import annotations

import pandas as pd
from sqlalchemy import select

from db.engine import read_session
from db.tables import Image, Mistake
from reviewer.project import Project
from reviewer.labels.reviewed_mistakes import current_decisions

QUEUE_COLUMNS = ["mistake_id", "run_id", "image_id", "file_name", "predicted", "probability", "hierarchy_distance"]


def run_mistakes(project: Project, run_id: int | None = None) -> pd.DataFrame:
    """Stored mistakes (of one run, or of all runs) with `decided`: the item has a
    current final decision with a verdict."""
    query = (select(Mistake.id, Mistake.run_id, Mistake.image_id, Image.file_name, Mistake.predicted,
                    Mistake.probability, Mistake.hierarchy_distance, Mistake.novel)
             .join(Image, Image.id == Mistake.image_id).order_by(Mistake.run_id, Image.file_name))
    if run_id is not None:
        query = query.where(Mistake.run_id == run_id)
    with read_session(project.engine) as session:
        rows = [tuple(r) for r in session.connection().execute(query)]
    frame = pd.DataFrame(rows, columns=QUEUE_COLUMNS + ["novel"])
    decisions = current_decisions(project)
    decided = set(zip(decisions.loc[decisions["verdict"].notna(), "image_id"],
                      decisions.loc[decisions["verdict"].notna(), "predicted"]))
    frame["decided"] = [key in decided for key in zip(frame["image_id"], frame["predicted"])]
    return frame


def review_queue(project: Project, run_id: int | None = None) -> pd.DataFrame:
    """The mistakes still to review: novel (no published review judged the
    prediction) and without a final decision; one row per item (image, predicted
    class), the first run that made it; sorted by run and file name."""
    frame = run_mistakes(project, run_id)
    queue = frame[frame["novel"].astype(bool) & ~frame["decided"]]
    return queue.drop_duplicates(["image_id", "predicted"])[QUEUE_COLUMNS].reset_index(drop=True)


def rerun_summary(project: Project, run_id: int) -> dict:
    """How a run's mistakes split: total, already a wrong label of the image
    (annotated, or judged in a published review), already decided by the panel,
    and queued for review."""
    frame = run_mistakes(project, run_id)
    novel = frame["novel"].astype(bool)
    return {"mistakes": int(len(frame)), "known_wrong_label": int((~novel).sum()),
            "decided": int((novel & frame["decided"]).sum()), "queued": int((novel & ~frame["decided"]).sum())}
