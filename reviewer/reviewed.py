"""Each model's reviewed mistakes: what published reviews and the panel decided.

A model's reviewed mistakes come from two places:
- imported published reviews of the model (imagenet-mistakes files), each
  item (image, predicted class) with its category and severity;
- the panel's own final decisions on the mistakes of the model's runs: the
  current decision of an item with verdict "wrong" is a reviewed mistake.

Decisions are about an item (image, predicted class), whoever predicted it,
so a later decision also overrides an imported item: "wrong" takes the
decision's category and severity where it set them, "correct" or "unclear"
removes the item (it is no longer a mistake). Both the analysis report and the
imagenet-mistakes export read this one table, so they cannot disagree.
"""

from __future__ import annotations

import pandas as pd
from sqlalchemy import func, select

from db.engine import read_session
from db.tables import Decision, Image, ImportedReview, ImportedReviewItem, Mistake, Model, Reviewer, Run
from reviewer.project import Project

DECISION_COLUMNS = ["image_id", "predicted", "verdict", "problematic", "severity", "category", "oov_name",
                    "method", "reason", "decided_by", "reviewer", "created_at"]
REVIEWED_COLUMNS = ["model", "source", "image_id", "file_name", "predicted", "original_label", "category",
                    "severity", "category_raw", "severity_raw"]


def current_decisions(project: Project) -> pd.DataFrame:
    """The latest final decision of every decided item, one row per (image_id, predicted)."""
    latest = select(func.max(Decision.id)).group_by(Decision.image_id, Decision.predicted).scalar_subquery()
    query = (select(Decision.image_id, Decision.predicted, Decision.verdict, Decision.problematic,
                    Decision.severity, Decision.category, Decision.oov_name, Decision.method, Decision.reason,
                    Decision.decided_by, Reviewer.name, Decision.created_at)
             .outerjoin(Reviewer, Reviewer.id == Decision.decided_by)
             .where(Decision.id.in_(latest)).order_by(Decision.image_id, Decision.predicted))
    with read_session(project.engine) as session:
        rows = session.connection().execute(query).all()
    return pd.DataFrame([tuple(r) for r in rows], columns=DECISION_COLUMNS).astype(
        {"image_id": "int64", "predicted": "int64", "problematic": bool})


def _imported_items(project: Project) -> pd.DataFrame:
    """Imported review items; a later review of the same model replaces an earlier one's item."""
    query = (select(Model.name, ImportedReviewItem.image_id, ImportedReviewItem.predicted,
                    ImportedReviewItem.category, ImportedReviewItem.severity, ImportedReviewItem.category_raw,
                    ImportedReviewItem.severity_raw, ImportedReviewItem.id)
             .join(ImportedReview, ImportedReview.id == ImportedReviewItem.review_id)
             .join(Model, Model.id == ImportedReview.model_id))
    with read_session(project.engine) as session:
        rows = session.connection().execute(query).all()
    frame = pd.DataFrame([tuple(r) for r in rows], columns=["model", "image_id", "predicted", "category",
                                                             "severity", "category_raw", "severity_raw", "item_id"])
    frame = frame.astype({"image_id": "int64", "predicted": "int64", "item_id": "int64"})
    frame = frame.sort_values("item_id").drop_duplicates(["model", "image_id", "predicted"], keep="last")
    return frame.drop(columns="item_id").assign(source="imported")


def _run_mistakes(project: Project) -> pd.DataFrame:
    """(model, image_id, predicted) of every stored mistake of every run, once per model."""
    query = (select(Model.name, Mistake.image_id, Mistake.predicted)
             .join(Run, Run.id == Mistake.run_id).join(Model, Model.id == Run.model_id).distinct())
    with read_session(project.engine) as session:
        rows = session.connection().execute(query).all()
    return pd.DataFrame([tuple(r) for r in rows], columns=["model", "image_id", "predicted"]).astype(
        {"image_id": "int64", "predicted": "int64"})


def reviewed_mistakes(project: Project, *, decisions: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (model, image, predicted class) judged a mistake, sorted by model and file name.

    Columns: model, source ("imported" or "panel"), image_id, file_name,
    predicted, original_label (-1 when unknown), category, severity (canonical
    names, None where the panel did not set one), category_raw and severity_raw
    (the published spelling of imported items, "" for the panel's).
    """
    decisions = current_decisions(project) if decisions is None else decisions
    keyed = decisions.set_index(["image_id", "predicted"])
    imported = _imported_items(project)
    mistakes = _run_mistakes(project)

    # Panel-decided mistakes of the runs: items whose current decision is "wrong".
    wrong = decisions[decisions["verdict"] == "wrong"][["image_id", "predicted", "category", "severity"]]
    panel = mistakes.merge(wrong, on=["image_id", "predicted"]).assign(source="panel", category_raw="",
                                                                       severity_raw="")
    # Imported items: drop those a decision found not to be mistakes, and let a
    # "wrong" decision's own fields replace the imported ones.
    if len(imported):
        index = pd.MultiIndex.from_frame(imported[["image_id", "predicted"]])
        verdict = keyed["verdict"].reindex(index).to_numpy()
        decided = pd.notna(verdict)
        imported = imported[~decided | (verdict == "wrong")]
        panel_keys = set(zip(panel["model"], panel["image_id"], panel["predicted"]))
        overridden = [k in panel_keys for k in zip(imported["model"], imported["image_id"], imported["predicted"])]
        # The panel row carries the decision; where it left a field empty, keep the imported value.
        fill = imported[overridden].set_index(["model", "image_id", "predicted"])
        panel = panel.set_index(["model", "image_id", "predicted"])
        for column in ("category", "severity"):
            panel[column] = panel[column].fillna(fill[column].reindex(panel.index))
        panel = panel.reset_index()
        imported = imported[[not o for o in overridden]]
    frame = pd.concat([imported, panel], ignore_index=True) if len(imported) else panel
    frame = frame.astype({"image_id": "int64", "predicted": "int64"})
    images = image_table(project, image_ids=frame["image_id"].unique().tolist())
    frame = frame.merge(images, left_on="image_id", right_index=True, how="left")
    for column in ("category", "severity"):
        frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame.sort_values(["model", "file_name", "predicted"], ignore_index=True)[REVIEWED_COLUMNS]


def image_table(project: Project, *, image_ids: list[int] | None = None) -> pd.DataFrame:
    """file_name and original_label (-1 when unknown) of the images (all when `image_ids`
    is None), indexed by image id."""
    query = select(Image.id, Image.file_name, Image.original_label)
    if image_ids is not None and len(image_ids) < 20_000:  # within SQLite's bound-parameter limit
        query = query.where(Image.id.in_([int(i) for i in image_ids]))
    with read_session(project.engine) as session:
        rows = session.connection().execute(query).all()
    frame = pd.DataFrame([tuple(r) for r in rows], columns=["image_id", "file_name", "original_label"])
    frame["original_label"] = frame["original_label"].fillna(-1).astype("int64")
    return frame.set_index("image_id")
