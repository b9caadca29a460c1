"""SQLModel tables of a review project.

One module for the whole schema, as in the SQLModel application template.
Conventions:
- classes are ImageNet-1k indices 0..999 in sorted-wnid order;
- append-only history: votes, decisions and notes are never updated in place;
  the current state is the latest row (highest id) of its key;
- times are timezone-aware UTC.
Schema changes go through an Alembic migration in db/migrations/versions.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Optional

from sqlalchemy import JSON, BigInteger, Column, Index, Integer, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


# The history's ids (migration 0013): bigint on PostgreSQL, drawn by the server (a trigger), so a
# panelist can neither exhaust nor choose one; SQLite's INTEGER PRIMARY KEY is 64-bit already (and
# only INTEGER is its rowid).
HISTORY_ID = BigInteger().with_variant(Integer(), "sqlite")


class ProjectSetting(SQLModel, table=True):
    """Key/value settings of the project (name, images root, created, ...)."""

    __tablename__ = "project_setting"
    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(default="")


class Image(SQLModel, table=True):
    __tablename__ = "image"
    id: Optional[int] = Field(default=None, primary_key=True)
    file_name: str = Field(index=True, unique=True, max_length=255)
    # Path relative to the project's images root, or absolute; None: no file.
    path: Optional[str] = Field(default=None, max_length=1024)
    original_label: Optional[int] = Field(default=None, index=True)
    problematic: bool = Field(default=False)
    # Position in the ImageNet validation set (ILSVRC2012_val_00000001 -> 0).
    val_index: Optional[int] = Field(default=None, index=True)
    # In the multi-label evaluation set: a multi-label file (TFDS v3) lists the image.
    multilabel: bool = Field(default=False)


class LabelSource(SQLModel, table=True):
    """A file (or other origin) that labels came from."""

    __tablename__ = "label_source"
    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str = Field(max_length=32)  # tfds_v3, annotated20k, real, folder, export, ...
    path: str = Field(default="", max_length=1024)
    sha256: str = Field(default="", max_length=64)
    imported_at: datetime = Field(default_factory=utcnow)


class Label(SQLModel, table=True):
    """One class of one image judged correct, wrong or unclear by a label source.

    A class may be listed under two kinds of one image: the official TFDS v3
    file does so for 372 images, and evaluation reads them as the reference
    does (a correct or unclear listing wins over a wrong one).
    """

    __tablename__ = "label"
    __table_args__ = (
        UniqueConstraint("label_set", "image_id", "class_index", "kind", name="uq_label_set_image_class_kind"),
    )
    id: Optional[int] = Field(default=None, primary_key=True)
    # "multilabel": the correct/wrong/unclear labels under review; "real": ReaL labels.
    label_set: str = Field(default="multilabel", max_length=16)
    image_id: int = Field(foreign_key="image.id", index=True)
    class_index: int
    kind: str = Field(max_length=8)  # correct | wrong | unclear (ReaL: correct)
    source_id: int = Field(foreign_key="label_source.id")


class ProblematicMark(SQLModel, table=True):
    """Metadata of an imported 'problematic image' mark (reason, who, when)."""

    __tablename__ = "problematic_mark"
    id: Optional[int] = Field(default=None, primary_key=True)
    image_id: int = Field(foreign_key="image.id", index=True)
    source_id: int = Field(foreign_key="label_source.id")
    meta: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class ImageSlice(SQLModel, table=True):
    """A named subset of images (e.g. the imported or curated ImageNet-M split)."""

    __tablename__ = "image_slice"
    __table_args__ = (UniqueConstraint("name", "image_id", name="uq_slice_image"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(index=True, max_length=64)
    image_id: int = Field(foreign_key="image.id")


class Model(SQLModel, table=True):
    __tablename__ = "model"
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(unique=True, max_length=255)  # timm name or a user's name
    # hub | checkpoint | bundled | logits | review
    source: str = Field(max_length=16)
    checkpoint: Optional[str] = Field(default=None, max_length=1024)
    weights_sha256: Optional[str] = Field(default=None, max_length=64)


class Run(SQLModel, table=True):
    """One pass of a model over the project's images (or a slice of them)."""

    __tablename__ = "run"
    id: Optional[int] = Field(default=None, primary_key=True)
    model_id: int = Field(foreign_key="model.id", index=True)
    # running | complete | cancelled | failed
    status: str = Field(default="running", max_length=16)
    image_slice: Optional[str] = Field(default=None, max_length=64)
    num_images: int = 0
    device: str = Field(default="", max_length=32)
    preprocessing: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    # Figures of the run: seconds, images/s, skipped images with reasons, ...
    report: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    # Full softmax, float16 [num_images, 1000], relative to the project folder.
    probs_path: Optional[str] = Field(default=None, max_length=1024)
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: Optional[datetime] = None


class Prediction(SQLModel, table=True):
    """Top-5 classes and probabilities of one image in one run."""

    __tablename__ = "prediction"
    run_id: int = Field(foreign_key="run.id", primary_key=True)
    image_id: int = Field(foreign_key="image.id", primary_key=True, index=True)
    # Row of this image in the run's probability file.
    row: int = 0
    pred_1: int
    pred_2: int
    pred_3: int
    pred_4: int
    pred_5: int
    prob_1: float
    prob_2: float
    prob_3: float
    prob_4: float
    prob_5: float


class Mistake(SQLModel, table=True):
    """An image whose top-1 prediction in a run is not among its valid labels."""

    __tablename__ = "mistake"
    # ix_mistake_item: every column the panel's snapshot groups by item, in item order (migration 0014).
    __table_args__ = (UniqueConstraint("run_id", "image_id", name="uq_mistake_run_image"),
                      Index("ix_mistake_item", "image_id", "predicted", "novel", "run_id", "probability",
                            "hierarchy_distance"))
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    image_id: int = Field(foreign_key="image.id", index=True)
    predicted: int
    probability: float
    # True when the prediction was never reviewed before (not a wrong label).
    novel: bool = True
    hierarchy_distance: Optional[int] = None


class Panelist(SQLModel, table=True):
    __tablename__ = "panelist"
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(unique=True, max_length=128)
    is_chair: bool = False
    created_at: datetime = Field(default_factory=utcnow)


class Vote(SQLModel, table=True):
    """A panelist's vote on one (image, predicted class); append-only.

    Each row holds the complete state of that panelist's vote after the act;
    the latest row per (panelist, image, predicted) is the current vote. An
    undo appends a row restoring the previous state (retracted=True when
    there was none).
    """

    __tablename__ = "vote"
    __table_args__ = (Index("ix_vote_item", "image_id", "predicted", "panelist_id"),
                      Index("uq_vote_panelist_batch_key", "panelist_id", "batch_key", unique=True))
    id: Optional[int] = Field(default=None, primary_key=True, sa_type=HISTORY_ID)
    image_id: int = Field(foreign_key="image.id")
    predicted: int
    panelist_id: int = Field(foreign_key="panelist.id", index=True)
    verdict: Optional[str] = Field(default=None, max_length=8)  # correct | wrong | unclear
    problematic: bool = False
    severity: Optional[str] = Field(default=None, max_length=16)  # major | minor
    category: Optional[str] = Field(default=None, max_length=32)
    oov_name: Optional[str] = Field(default=None, max_length=255)
    note: str = Field(default="")
    retracted: bool = False
    # Set on a row written by an undo: the id of the vote row it reverses.
    undoes: Optional[int] = Field(default=None, foreign_key="vote.id", sa_type=HISTORY_ID)
    # Set on a row cast by `vote --batch`: the row's key (given, or the file's hash and line),
    # unique per panelist, so a batch sent again records nothing twice.
    batch_key: Optional[str] = Field(default=None, max_length=200)
    # The review queue's order (reviewer.review.queue_filter.QueueSort's value) the panelist worked in when
    # the review page cast this row (migration 0010); None from the command line, a batch, the group
    # view or an undo. An order that picks items ("informative") changes which are decided first.
    queue_order: Optional[str] = Field(default=None, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)


class Decision(SQLModel, table=True):
    """The panel's final decision on one (image, predicted class); append-only."""

    __tablename__ = "decision"
    __table_args__ = (Index("ix_decision_item", "image_id", "predicted"),)
    id: Optional[int] = Field(default=None, primary_key=True, sa_type=HISTORY_ID)
    image_id: int = Field(foreign_key="image.id")
    predicted: int
    verdict: Optional[str] = Field(default=None, max_length=8)
    problematic: bool = False
    severity: Optional[str] = Field(default=None, max_length=16)
    category: Optional[str] = Field(default=None, max_length=32)
    oov_name: Optional[str] = Field(default=None, max_length=255)
    method: str = Field(default="majority", max_length=16)  # majority | override | reopened
    reason: str = Field(default="")
    decided_by: Optional[int] = Field(default=None, foreign_key="panelist.id")
    created_at: datetime = Field(default_factory=utcnow)


class DiscussionNote(SQLModel, table=True):
    __tablename__ = "discussion_note"
    __table_args__ = (Index("ix_note_item", "image_id", "predicted"),)
    id: Optional[int] = Field(default=None, primary_key=True, sa_type=HISTORY_ID)
    image_id: int = Field(foreign_key="image.id")
    predicted: int
    panelist_id: int = Field(foreign_key="panelist.id")
    text: str
    created_at: datetime = Field(default_factory=utcnow)


class ImportedReview(SQLModel, table=True):
    """A published panel review of one model (imagenet-mistakes metadata format)."""

    __tablename__ = "imported_review"
    id: Optional[int] = Field(default=None, primary_key=True)
    model_id: int = Field(foreign_key="model.id", index=True)
    path: str = Field(default="", max_length=1024)
    sha256: str = Field(default="", max_length=64)
    imported_at: datetime = Field(default_factory=utcnow)


class ImportedReviewItem(SQLModel, table=True):
    __tablename__ = "imported_review_item"
    id: Optional[int] = Field(default=None, primary_key=True)
    review_id: int = Field(foreign_key="imported_review.id", index=True)
    image_id: int = Field(foreign_key="image.id", index=True)
    predicted: int
    category: str = Field(max_length=32)  # normalised, see reviewer.vocab_terms
    severity: str = Field(max_length=16)  # major | minor | borderline
    category_raw: str = Field(default="", max_length=64)
    severity_raw: str = Field(default="", max_length=32)


# -- Evidence from published relabelings (migration 0007) ----------------------------------------
# Kept apart from the ground truth: nothing here is read by the metrics, and importing evidence
# never touches image, label or problematic_mark. Rows name images by file name (no foreign key):
# a published file covers the 50,000 validation images whether the project holds them or not.


class EvidenceSource(SQLModel, table=True):
    """One imported evidence file (ReaL, cleanlab, Flaws of ImageNet, TFDS v3, ...)."""

    __tablename__ = "evidence_source"
    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str = Field(max_length=32, index=True)  # reviewer.evidence.kinds.EvidenceKind
    file_name: str = Field(max_length=255)
    path: str = Field(default="", max_length=1024)
    sha256: str = Field(max_length=64)
    imported_at: datetime = Field(default_factory=utcnow)
    n_items: int = 0  # rows stored: images, or classes for class groups
    # The file's counts (images, questions, raters, ...) and what reading and storing it took.
    figures: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class EvidenceItem(SQLModel, table=True):
    """What one source says about one image: a compact JSON payload, read by reviewer.evidence."""

    __tablename__ = "evidence_item"
    __table_args__ = (UniqueConstraint("source_id", "image_name", name="uq_evidence_item_source_image"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    source_id: int = Field(foreign_key="evidence_source.id")
    image_name: str = Field(max_length=255, index=True)
    payload: str = Field(default="")


class EvidenceClass(SQLModel, table=True):
    """What one source says about one class (the problem groups of Flaws of ImageNet)."""

    __tablename__ = "evidence_class"
    __table_args__ = (UniqueConstraint("source_id", "class_index", name="uq_evidence_class_source_class"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    source_id: int = Field(foreign_key="evidence_source.id")
    class_index: int = Field(index=True)
    group_number: int = 0
    payload: str = Field(default="")


# -- Zoom probe results (migration 0008) -------------------------------------------------------
class ZoomProbe(SQLModel, table=True):
    """A run's model over the zoom grid of one image it got wrong (reviewer.runs.zoom):
    the result as compact JSON, with who computed it. A cache of a computation, appended
    when computed again (readers take the best of the rows: reviewer.runs.zoom.store)."""

    __tablename__ = "zoom_probe"
    __table_args__ = (Index("ix_zoom_probe_item", "image_id", "predicted"),
                      Index("ix_zoom_probe_run_image", "run_id", "image_id", "probe_version"))
    id: Optional[int] = Field(default=None, primary_key=True, sa_type=HISTORY_ID)
    run_id: int = Field(foreign_key="run.id")
    image_id: int = Field(foreign_key="image.id")
    predicted: int  # the run's top-1 for the image
    probe_version: int  # reviewer.runs.zoom.PROBE_VERSION of the algorithm that computed it
    complete: bool = False  # all crops computed (else a stopped probe's partial result)
    payload: str  # reviewer.runs.zoom.to_json
    computed_at: datetime = Field(default_factory=utcnow)
    # Whose process computed it (None: the project's owner, or a result stored before 0009).
    # Results are appended, never updated: a panelist's role can insert only its own.
    computed_by: Optional[int] = Field(default=None, foreign_key="panelist.id")


class AppLock(SQLModel, table=True):
    """The locks the app takes before a read-then-write on PostgreSQL (db.engine.serialise),
    as rows taken with SELECT ... FOR UPDATE: (1, panelist id), (2, 0) decisions, (3, 0)
    migrations, (4, 0) evidence imports. Row-level security lets a panelist's role lock
    only its own row (and the chair the decisions'), where advisory keys were anyone's."""

    __tablename__ = "app_lock"
    scope: int = Field(primary_key=True)
    key: int = Field(primary_key=True, sa_type=BigInteger)
