"""The refreshed multi-labels in the layout of the published annotation file.

`annotation_file` builds the dict behind TFDS `imagenet2012_multilabel`
(v3.0.0's `human_accuracy_v3.0.0.json`), so existing evaluation code reads it
unchanged:

- `initial_annots`: image -> {"correct", "wrong", "unclear"} wnid lists, after
  the review: imported labels, imported reviews' mistakes as wrong labels, and
  the panel's final decisions (the predicted class joins the kind it was
  judged); empty kinds are left out, as in the original. The images are those
  of the multi-label set (`Image.multilabel`), those with a judgement (in a
  project without a multi-label set, an image whose only label is its
  original one is not written), and every image of the split (TFDS looks each
  one up there);
- `problematic_images`: image -> {reason, reviewer, server_username,
  time_marked, time_reviewed}: the imported metadata, and ours for images the
  panel flagged;
- `imagenet_m`: the image names of the chosen slice (the curated split).

`original_labels` writes the original labels in the ImageNetV2 annotated-list
layout (`image_filenames: [[file_name, wnid], ...]`), which TFDS's file lacks,
and `label_table` is the flat one-row-per-image table for CSV/Parquet.
Everything is sorted by file name, so exports of the same labels are
byte-identical.
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pandas as pd
from sqlalchemy import func, select
from sqlmodel import Session

from db.tables import Decision, Image, ImportedReviewItem, Panelist, ProblematicMark
from reviewer.classes.vocabulary import load_classes
from reviewer.evaluation.slices import slice_file_names, slice_image_ids, slice_names
from reviewer.labels.labelset import KIND_CODES, LabelSet
from reviewer.panel.final import decisions_table
from reviewer.review.reviewed_mistakes import image_table
from reviewer.terms import DecisionMethod

PANEL_REASON = "marked as problematic by the review panel"


def _iso(value: datetime | None) -> str:
    if value is None:
        return ""
    if value.tzinfo is None:  # SQLite hands back naive datetimes; they were stored as UTC
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat()


def annotated_image_ids(*, session: Session, decisions: pd.DataFrame) -> np.ndarray:
    """Images of the multi-label set and images with a judgement (imported review or decision)."""
    conn = session.connection()
    labelled = conn.execute(select(Image.id).where(Image.multilabel)).scalars()
    reviewed = conn.execute(select(ImportedReviewItem.image_id).distinct()).scalars()
    ids = set(labelled) | set(reviewed) | set(decisions["image_id"].tolist())
    return np.array(sorted(ids), dtype=np.int64)


def _label_lists(labels: LabelSet, image_ids: np.ndarray) -> dict[int, dict[str, list[str]]]:
    """{image id: {kind: sorted wnids}} for the given images, empty kinds left out."""
    positions = labels.positions(image_ids)
    wanted = np.zeros(len(labels), bool)
    wanted[positions[positions >= 0]] = True
    sel = wanted[labels.rows]
    ids, kinds, classes = labels.image_ids[labels.rows[sel]], labels.kinds[sel], labels.classes[sel]
    order = np.lexsort((classes, kinds, ids))
    ids, kinds, classes = ids[order].tolist(), kinds[order].tolist(), classes[order].tolist()
    wnids = load_classes().wnids
    names = {code: name for name, code in KIND_CODES.items()}
    out: dict[int, dict[str, list[str]]] = {}
    for image_id, kind, cls in zip(ids, kinds, classes):  # sorted: lists come out sorted
        out.setdefault(image_id, {}).setdefault(names[kind], []).append(wnids[cls])
    return out


def problematic_metadata(*, session: Session, labels: LabelSet, decisions: pd.DataFrame) -> dict[int, dict]:
    """{image id: metadata} of every problematic image: the imported mark's metadata
    (latest import), else ours for an image the panel's current decision flags."""
    conn = session.connection()
    marks = {i: m for i, m in conn.execute(select(ProblematicMark.image_id, ProblematicMark.meta)
                                           .order_by(ProblematicMark.id))}
    first_flag = dict(conn.execute(select(Decision.image_id, func.min(Decision.created_at))
                                   .where(Decision.problematic).group_by(Decision.image_id)).all())
    names = dict(conn.execute(select(Panelist.id, Panelist.name)).all())
    out: dict[int, dict] = {}
    for image_id in labels.image_ids[labels.problematic].tolist():
        out[int(image_id)] = dict(marks.get(image_id, {}))
    # As reviewed_labelset: a decision's problematic flag counts with its verdict.
    flagged = decisions[decisions["problematic"]].sort_values("created_at")
    for row in flagged.itertuples(index=False):
        if int(row.image_id) in out and out[int(row.image_id)]:
            continue  # keep the imported metadata
        who = names.get(row.decided_by, "") if pd.notna(row.decided_by) else ""
        out[int(row.image_id)] = {
            # A majority lock's reason is its vote count; only a chair's override states why.
            "reason": row.reason if row.method == DecisionMethod.OVERRIDE and row.reason else PANEL_REASON, "reviewer": who or "panel", "server_username": who or "panel",
            "time_marked": _iso(first_flag.get(row.image_id, row.created_at)), "time_reviewed": _iso(row.created_at),
        }
    return out


def annotation_file(*, session: Session, labels: LabelSet, split: str | None = "imagenet_m",
                    decisions: pd.DataFrame | None = None, images: pd.DataFrame | None = None) -> dict:
    """The TFDS-layout dict of the labels after review (pass `reviewed_labelset(after_review=True)`)."""
    decisions = decisions_table(session=session) if decisions is None else decisions
    images = image_table(session=session) if images is None else images
    ids = annotated_image_ids(session=session, decisions=decisions)
    has_split = bool(split) and split in slice_names(session=session)
    split_names = slice_file_names(session=session, name=split) if has_split else []
    if split_names:
        # TFDS builds its imagenet_m split by looking each name up in initial_annots
        # (a KeyError otherwise), so every split image is written there with its labels.
        ids = np.union1d(ids, slice_image_ids(session=session, name=split))
    lists = _label_lists(labels, ids)
    problematic = problematic_metadata(session=session, labels=labels, decisions=decisions)
    names = images["file_name"]
    annots = {names[i]: lists.get(int(i), {}) for i in ids.tolist()}
    return {
        "initial_annots": dict(sorted(annots.items())),
        "problematic_images": dict(sorted((names[i], meta) for i, meta in problematic.items())),
        "imagenet_m": split_names,
    }


def original_labels(*, images: pd.DataFrame) -> dict:
    """{"image_filenames": [[file_name, wnid], ...]} of the images with a known original label
    (`images`: `image_table`)."""
    known = images[images["original_label"] >= 0].sort_values("file_name")
    wnids = load_classes().wnids
    return {"image_filenames": [[name, wnids[c]] for name, c in zip(known["file_name"], known["original_label"])]}


def label_table(*, labels: LabelSet, annotation: dict, images: pd.DataFrame) -> pd.DataFrame:
    """One row per image in the export: file_name, original_wnid, original_name,
    correct / wrong / unclear (space-separated wnids), num_correct, annotated
    (explicit multi-labels; otherwise the original label stands in), problematic,
    in_split. Images in the export: those with a known original label, a
    multi-label annotation, a problematic mark or a place in the split."""
    annots, split = annotation["initial_annots"], set(annotation["imagenet_m"])
    problematic = set(annotation["problematic_images"])
    known = images["original_label"] >= 0
    listed = images["file_name"].isin(set(annots) | problematic | split)
    images = images[known | listed].sort_values("file_name")
    fallback = _label_lists(labels, images.index.to_numpy())
    classes = load_classes()
    rows = []
    for image_id, name, original in zip(images.index, images["file_name"], images["original_label"]):
        entry = annots.get(name) or fallback.get(int(image_id), {})
        rows.append({
            "file_name": name,
            "original_wnid": classes.wnids[original] if original >= 0 else "",
            "original_name": classes.names[original] if original >= 0 else "",
            "correct": " ".join(entry.get("correct", [])), "wrong": " ".join(entry.get("wrong", [])),
            "unclear": " ".join(entry.get("unclear", [])), "num_correct": len(entry.get("correct", [])),
            "annotated": name in annots, "problematic": name in problematic, "in_split": name in split,
        })
    return pd.DataFrame(rows, columns=["file_name", "original_wnid", "original_name", "correct", "wrong", "unclear",
                                       "num_correct", "annotated", "problematic", "in_split"])
