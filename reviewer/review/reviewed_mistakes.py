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

An image whose ground truth is problematic has no mistakes: the paper leaves
problematic images out before it categorises the mistakes (§3.1, §4.2: of 676
mistakes, "44% (296/676) ... were either problematic or correct"; the 378 left
are categorised), and the reference notebook skips them ("We ignore all
problematic images"). So do the multi-label accuracy after the review and the
novel-prediction counts here (`problematic_images`: flagged in the imported
labels, or by a standing decision on any prediction of the image).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sqlalchemy import select
from sqlmodel import Session

from db.tables import Image, ImportedReview, ImportedReviewItem, Model, Run
from reviewer.panel.final import decisions_table
from reviewer.runs.mistakes import mistakes_frame, stored_mistakes
from reviewer.terms import Verdict

REVIEWED_COLUMNS = ["model", "source", "image_id", "file_name", "predicted", "original_label", "category",
                    "severity", "category_raw", "severity_raw", "import_order"]


def imported_review_items(*, session: Session) -> pd.DataFrame:
    """Every imported published review's items as published, one row per (model, image,
    predicted class); a later review of the same model replaces an earlier one's item.

    Columns: model, image_id, predicted, category and severity (canonical names, None where
    the file gave none), category_raw and severity_raw (the published spelling), item_id
    (the stored item's id, in file order within a review) and source ("imported"). The
    panel's decisions are not applied here: `reviewed_mistakes` does that."""
    query = (select(Model.name, ImportedReviewItem.image_id, ImportedReviewItem.predicted,
                    ImportedReviewItem.category, ImportedReviewItem.severity, ImportedReviewItem.category_raw,
                    ImportedReviewItem.severity_raw, ImportedReviewItem.id)
             .join(ImportedReview, ImportedReview.id == ImportedReviewItem.review_id)
             .join(Model, Model.id == ImportedReview.model_id))
    rows = session.connection().execute(query).all()
    frame = pd.DataFrame([tuple(r) for r in rows], columns=["model", "image_id", "predicted", "category",
                                                             "severity", "category_raw", "severity_raw", "item_id"])
    frame = frame.astype({"image_id": "int64", "predicted": "int64", "item_id": "int64"})
    frame = frame.sort_values("item_id").drop_duplicates(["model", "image_id", "predicted"], keep="last")
    return frame.assign(source="imported")


def _mistakes_by_model(session: Session) -> pd.DataFrame:
    """(model, image_id, predicted) of every stored mistake of every run, once per model."""
    models = dict(session.execute(select(Run.id, Model.name).join(Model, Model.id == Run.model_id)).all())
    frame = mistakes_frame(stored_mistakes(session=session))
    frame["model"] = frame["run_id"].map(models)
    return frame[["model", "image_id", "predicted"]].drop_duplicates(ignore_index=True)


def problematic_images(*, session: Session, decisions: pd.DataFrame) -> set[int]:
    """Ids of the images whose ground truth is problematic: marked so in the imported
    labels (the TFDS multi-label set's problematic images), or flagged by a standing
    final decision (`decisions_table`) on any prediction of the image, as
    `reviewer.labels.reviewed.reviewed_labelset` marks them for the accuracy."""
    marked = session.connection().execute(select(Image.id).where(Image.problematic)).scalars()
    flagged = decisions.loc[decisions["problematic"].astype(bool), "image_id"]
    return {int(i) for i in marked} | {int(i) for i in flagged}


def reviewed_mistakes(*, session: Session, decisions: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (model, image, predicted class) judged a mistake.

    Nothing on an image whose ground truth is problematic (`problematic_images`).

    Columns: model, source ("imported": as a published review judged it;
    "panel": the current final decision says "wrong"), image_id, file_name,
    predicted, original_label (-1 when unknown), category and severity
    (canonical names; None where the panel did not set one and no published
    review did), category_raw and severity_raw (the published spelling where
    the value is the imported one, else ""), import_order (the imported item's
    id, -1 for the panel's own items). Sorted by model, import order (imported
    items as in their file), then file name.
    """
    decisions = decisions_table(session=session) if decisions is None else decisions
    decided = decisions.set_index(["image_id", "predicted"])
    imported = imported_review_items(session=session)
    runs = _mistakes_by_model(session)
    known = set(zip(imported["model"], imported["image_id"], imported["predicted"]))
    runs = runs[[k not in known for k in zip(runs["model"], runs["image_id"], runs["predicted"])]]
    frame = pd.concat([imported, runs.assign(item_id=-1)], ignore_index=True)
    frame = frame.astype({"image_id": "int64", "predicted": "int64", "item_id": "int64"})
    for column in ("category", "severity", "category_raw", "severity_raw"):
        frame[column] = frame[column].astype(object)

    index = pd.MultiIndex.from_frame(frame[["image_id", "predicted"]])
    verdict = decided["verdict"].reindex(index).to_numpy()
    has_decision = pd.notna(verdict)
    # Undecided run mistakes are not reviewed yet; decided "correct"/"unclear" items are no mistakes;
    # nor is anything on an image whose ground truth is problematic.
    keep = np.where(has_decision, verdict == Verdict.WRONG, frame["item_id"].to_numpy() >= 0)
    keep &= ~frame["image_id"].isin(problematic_images(session=session, decisions=decisions)).to_numpy()
    for column in ("category", "severity"):
        ours = decided[column].reindex(index).to_numpy()
        use = has_decision & pd.notna(ours)
        changed = use & (ours != frame[column].to_numpy())
        frame[column] = np.where(use, ours, frame[column].to_numpy())
        # The published spelling stays only where the value is still the published one.
        frame[f"{column}_raw"] = np.where(changed, "", frame[f"{column}_raw"].to_numpy())
    frame["source"] = np.where(has_decision, "panel", "imported")
    frame = frame[keep].rename(columns={"item_id": "import_order"})
    images = image_table(session=session, image_ids=frame["image_id"].unique().tolist())
    frame = frame.merge(images, left_on="image_id", right_index=True, how="left")
    for column in ("category", "severity", "category_raw", "severity_raw"):
        empty = frame[column].isna()
        frame[column] = frame[column].astype(object).where(~empty, None if "raw" not in column else "")
    frame["_panel_only"] = frame["import_order"] < 0
    frame = frame.sort_values(["model", "_panel_only", "import_order", "file_name", "predicted"], ignore_index=True)
    return frame[REVIEWED_COLUMNS]


def image_table(*, session: Session, image_ids: list[int] | None = None) -> pd.DataFrame:
    """file_name and original_label (-1 when unknown) of the images (all when `image_ids`
    is None), indexed by image id."""
    query = select(Image.id, Image.file_name, Image.original_label)
    if image_ids is not None and len(image_ids) < 20_000:  # within SQLite's bound-parameter limit
        query = query.where(Image.id.in_([int(i) for i in image_ids]))
    rows = session.connection().execute(query).all()
    frame = pd.DataFrame([tuple(r) for r in rows], columns=["image_id", "file_name", "original_label"])
    frame["original_label"] = frame["original_label"].fillna(-1).astype("int64")
    return frame.set_index("image_id")
