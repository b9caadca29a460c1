"""The major-error split (ImageNet-M style) and evaluating a run on a slice.

The paper's rule: among the mistakes of m diverse models, keep the images where
at least k of them (3 of 4) made a mistake the panel rated major, after
checking that no model's prediction there is a correct new label. Here:

- members are runs of the project or imported published reviews of a model;
- a member's mistake on an image is *major* when the item's current final
  decision is "wrong" with severity major, or, undecided, when a published
  review rated that item Major (Borderline is not major);
- an image is **selected** when >= k members made a major mistake there, none
  of the members' predictions there was decided correct (a new correct
  label), and every member's mistake there has been reviewed;
- it **needs review** when unreviewed mistakes could still decide it (its
  major count plus unreviewed mistakes reaches k), and is **excluded** when a
  prediction was decided correct.

Evaluating a run on a slice: a prediction is correct when it is among the
image's correct or unclear labels after the review (collapsed mappings
applied), reported as a count with a Clopper-Pearson 95% interval.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from sqlalchemy import select
from statsmodels.stats.proportion import proportion_confint

from db.engine import read_session
from db.tables import ImportedReview, ImportedReviewItem, Mistake, Model, Run
from reviewer.errors import UserError
from reviewer.judgements import reviewed_labelset
from reviewer.labelset import LabelSet
from reviewer.metrics import accepted
from reviewer.predictions import load_predictions
from reviewer.project import Project
from reviewer.reviewed import current_decisions, image_table
from reviewer.slices import save_slice, slice_image_ids

SELECTED, NEEDS_REVIEW, EXCLUDED, NOT_ENOUGH = "selected", "needs review", "excluded: correct new label", "below k"


class SplitError(UserError):
    """A split rule that cannot be applied as given."""


@dataclass(frozen=True)
class SplitMember:
    """One model's mistakes: a run (kind "run") or an imported review (kind "review")."""

    kind: str
    id: int
    model: str

    @property
    def label(self) -> str:
        return f"{self.model} (run {self.id})" if self.kind == "run" else f"{self.model} (review {self.id})"


@dataclass(frozen=True)
class SplitRule:
    members: tuple[SplitMember, ...]
    k: int = 3

    def as_dict(self) -> dict:
        return {"rule": "at least k of m members made a mistake rated major; no member's prediction decided "
                        "correct; every member's mistake there reviewed",
                "k": self.k, "m": len(self.members), "members": [asdict(m) for m in self.members]}


@dataclass
class SplitResult:
    rule: SplitRule
    # One row per image any member got wrong: image_id, file_name, major, reviewed, unreviewed,
    # correct_new, status, and one column per member with its prediction (-1: no mistake there).
    table: pd.DataFrame = field(repr=False)

    def images(self, status: str = SELECTED) -> list[str]:
        """File names of the images with that status, sorted."""
        return sorted(self.table.loc[self.table["status"] == status, "file_name"])

    def counts(self) -> dict[str, int]:
        return {s: int((self.table["status"] == s).sum()) for s in (SELECTED, NEEDS_REVIEW, EXCLUDED, NOT_ENOUGH)}


def resolve_members(project: Project, specs: list[str]) -> tuple[SplitMember, ...]:
    """Members from their names on the command line: a run id ("12", "run:12"), an
    imported review ("review:3"), or a model name (its latest complete run over the
    whole set, else its latest imported review)."""
    members = []
    with read_session(project.engine) as session:
        for spec in specs:
            members.append(_resolve(session, spec.strip()))
    if len(set(members)) != len(members):
        raise SplitError(f"the members {', '.join(specs)} name the same run or review twice")
    return tuple(members)


def _resolve(session, spec: str) -> SplitMember:
    kind, _, ref = spec.partition(":") if spec.startswith(("run:", "review:")) else ("", "", spec)
    if kind in ("run", "") and ref.isdigit():
        row = session.execute(select(Run.id, Model.name).join(Model, Model.id == Run.model_id)
                              .where(Run.id == int(ref))).first()
        if row is None:
            raise SplitError(f"no run with id {ref}; 'reviewer report PROJECT' lists the runs")
        return SplitMember("run", row[0], row[1])
    if kind == "review" and ref.isdigit():
        row = session.execute(select(ImportedReview.id, Model.name).join(Model, Model.id == ImportedReview.model_id)
                              .where(ImportedReview.id == int(ref))).first()
        if row is None:
            raise SplitError(f"no imported review with id {ref}; 'reviewer report PROJECT --json' lists them")
        return SplitMember("review", row[0], row[1])
    run = session.execute(select(Run.id).join(Model, Model.id == Run.model_id)
                          .where(Model.name == ref, Run.status == "complete", Run.image_slice.is_(None))
                          .order_by(Run.id.desc())).first()
    if run is not None and kind != "review":
        return SplitMember("run", run[0], ref)
    review = session.execute(select(ImportedReview.id).join(Model, Model.id == ImportedReview.model_id)
                             .where(Model.name == ref).order_by(ImportedReview.id.desc())).first()
    if review is not None:
        return SplitMember("review", review[0], ref)
    raise SplitError(f"{spec!r} is neither a run id nor a model with a complete run over the whole set or an "
                     "imported review")


def _member_items(project: Project, member: SplitMember) -> pd.DataFrame:
    """(image_id, predicted, own_severity) of a member's mistakes; own_severity is the
    severity its imported review gave (None for a run)."""
    with read_session(project.engine) as session:
        conn = session.connection()
        if member.kind == "run":
            rows = conn.execute(select(Mistake.image_id, Mistake.predicted).where(Mistake.run_id == member.id)).all()
            return pd.DataFrame([(i, p, None) for i, p in rows], columns=["image_id", "predicted", "own_severity"])
        rows = conn.execute(select(ImportedReviewItem.image_id, ImportedReviewItem.predicted,
                                   ImportedReviewItem.severity).where(ImportedReviewItem.review_id == member.id)
                            .order_by(ImportedReviewItem.id)).all()
    return pd.DataFrame([tuple(r) for r in rows], columns=["image_id", "predicted", "own_severity"])


def _published_severity(project: Project) -> pd.DataFrame:
    """(image_id, predicted, published_severity): the severity imported reviews gave
    each item (the latest import wins)."""
    with read_session(project.engine) as session:
        rows = session.connection().execute(select(ImportedReviewItem.image_id, ImportedReviewItem.predicted,
                                                   ImportedReviewItem.severity).order_by(ImportedReviewItem.id))
        frame = pd.DataFrame([tuple(r) for r in rows], columns=["image_id", "predicted", "published_severity"])
    return frame.drop_duplicates(["image_id", "predicted"], keep="last").astype({"image_id": "int64",
                                                                                 "predicted": "int64"})


def member_judgements(project: Project, rule: SplitRule) -> pd.DataFrame:
    """One row per member mistake: member, image_id, predicted, verdict (None: not reviewed), severity."""
    decisions = current_decisions(project)
    decided = decisions.loc[decisions["verdict"].notna(), ["image_id", "predicted", "verdict", "severity"]]
    decided = decided.rename(columns={"severity": "decided_severity"})
    published = _published_severity(project)
    frames = [_member_items(project, member).assign(member=index) for index, member in enumerate(rule.members)]
    items = pd.concat(frames, ignore_index=True).astype({"image_id": "int64", "predicted": "int64",
                                                         "member": "int64"})
    items = items.merge(decided, on=["image_id", "predicted"], how="left")
    items = items.merge(published, on=["image_id", "predicted"], how="left")
    # A review member's own rating first, else any published rating of the same item.
    fallback = items["own_severity"].astype(object).where(items["own_severity"].notna(), items["published_severity"])
    has_decision = items["verdict"].notna()
    verdict = items["verdict"].astype(object).where(has_decision, np.where(fallback.notna(), "wrong", None))
    # A "wrong" decision without a severity keeps the published one.
    severity = np.where(has_decision,
                        np.where(items["decided_severity"].notna(), items["decided_severity"],
                                 np.where(verdict == "wrong", fallback, None)),
                        fallback)
    out = items[["image_id", "predicted", "member"]].assign(verdict=verdict.to_numpy(), severity=severity)
    for column in ("verdict", "severity"):
        out[column] = out[column].astype(object).where(out[column].notna(), None)
    return out


def apply_split_rule(project: Project, rule: SplitRule) -> SplitResult:
    """Apply the rule to the project's current reviews; nothing is written."""
    if not rule.members:
        raise SplitError("a split needs at least one run or review")
    if not 1 <= rule.k <= len(rule.members):
        raise SplitError(f"k must be between 1 and the number of members ({len(rule.members)}), got {rule.k}")
    items = member_judgements(project, rule)
    items["major"] = (items["verdict"] == "wrong") & (items["severity"] == "major")
    items["unreviewed"] = items["verdict"].isna()
    items["reviewed"] = ~items["unreviewed"]
    items["correct_new"] = items["verdict"] == "correct"
    table = items.groupby("image_id")[["major", "reviewed", "unreviewed", "correct_new"]].sum()
    table["correct_new"] = table["correct_new"] > 0
    predicted = items.pivot_table(index="image_id", columns="member", values="predicted", aggfunc="first")
    for index, member in enumerate(rule.members):
        column = predicted[index] if index in predicted.columns else pd.Series(dtype=float)
        table[member.label] = column.reindex(table.index).fillna(-1).astype("int64")
    status = np.where(table["correct_new"], EXCLUDED,
                      np.where((table["major"] >= rule.k) & (table["unreviewed"] == 0), SELECTED,
                               np.where(table["major"] + table["unreviewed"] >= rule.k, NEEDS_REVIEW, NOT_ENOUGH)))
    table["status"] = status
    names = image_table(project, image_ids=table.index.tolist())
    table.insert(0, "file_name", names["file_name"].reindex(table.index))
    table = table.reset_index().sort_values("file_name", ignore_index=True)
    return SplitResult(rule=rule, table=table)


def save_split(project: Project, result: SplitResult, *, name: str, replace: bool = False) -> int:
    """Store the selected images as the slice `name`, with the rule; returns its size."""
    ids = result.table.loc[result.table["status"] == SELECTED, "image_id"].tolist()
    return save_slice(project, name, ids, rule={**result.rule.as_dict(), "selected": len(ids)}, replace=replace)


@dataclass(frozen=True)
class SliceScore:
    """Correct predictions of a run on a slice, with a Clopper-Pearson 95% interval."""

    correct: int
    total: int
    value: float  # NaN when the run predicted none of the slice's images
    low: float
    high: float
    missing: int  # slice images the run has no prediction for

    def as_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        if not self.total:
            return "no prediction on the slice"
        return f"{self.correct} of {self.total} ({100 * self.value:.1f}%, 95% CI {100 * self.low:.1f}-" \
               f"{100 * self.high:.1f}%)"


def score_on_images(labels: LabelSet, image_ids: np.ndarray, pred_ids: np.ndarray, top1: np.ndarray) -> SliceScore:
    """Score the predictions (`pred_ids` -> `top1`) restricted to `image_ids`."""
    on_slice = np.isin(pred_ids, image_ids)
    positions = labels.positions(pred_ids[on_slice])
    known = positions >= 0
    ok = accepted(labels, positions[known], top1[on_slice][known])
    correct, total = int(ok.sum()), int(len(ok))
    missing = int(len(np.setdiff1d(image_ids, pred_ids[on_slice][known])))
    if not total:
        return SliceScore(0, 0, float("nan"), float("nan"), float("nan"), missing)
    low, high = proportion_confint(correct, total, alpha=0.05, method="beta")
    return SliceScore(correct, total, correct / total, float(low), float(high), missing)


def evaluate_on_slice(project: Project, run_id: int, slice_name: str, *, labels: LabelSet | None = None
                      ) -> SliceScore:
    """How many of the slice's images the run gets right (labels after the review)."""
    labels = reviewed_labelset(project, after_review=True) if labels is None else labels
    image_ids = slice_image_ids(project, slice_name)
    predictions = load_predictions(project, run_id)
    return score_on_images(labels, image_ids, predictions.image_ids, predictions.top1.astype(np.int64))
