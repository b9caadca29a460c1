"""The major-error split (ImageNet-M style) and evaluating a run on a slice.

The rule of Vasudevan et al. (2022), §5.1: the candidates are the anchor
model's mistakes rated major (ViT-3B's 155); among m chosen models (the
anchor and three others), an image is kept when at least k of them (3 of 4)
made a mistake there rated major, after verifying "that none of them were
correct new multi-labels, and that any model's mistakes were major mistakes".
Here, with members being runs of the project or imported published reviews:

- a member's *mistake* on an image is its prediction there when that is not
  among the image's correct or unclear labels (a member that got the image
  right neither counts nor excludes it: Greedy Soups gets 19 of ImageNet-M);
- a mistake is *major* when its item's current final decision is "wrong"
  with severity major, or, undecided, when a published review rated it Major;
  *minor* likewise with severity minor or Borderline (the paper counts
  Borderline as minor);
- an image is **selected** when it is a candidate (the anchor's mistake there
  is major), >= k members made a major mistake there, no member's mistake
  there was judged a correct or unclear label, none is rated minor, and every
  member's mistake there is reviewed and rated;
- an image is a *candidate* when the anchor's mistake there is major (or not
  rated yet); every other image is **not a candidate**, and the statuses below
  sort the candidates only, so their counts add up to the candidates;
- a candidate is **excluded** when its ground truth is problematic (the paper's
  mistakes leave problematic images out, `reviewed_mistakes.problematic_images`),
  or a member's mistake was judged correct or unclear (a new label) or rated
  minor, **needs review** when unrated mistakes could still decide it, and
  **below k** otherwise.

Evaluating a run on a slice: a prediction is correct when it is among the
image's correct or unclear labels after the review (the reference notebook's
`imagenet_m_correct`), reported as a count with a Clopper-Pearson 95% interval.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from sqlalchemy import select
from sqlmodel import Session

from db.tables import ImportedReview, ImportedReviewItem, Model, Run
from reviewer.errors import UserError
from reviewer.evaluation.slices import save_slice, slice_image_ids
from reviewer.labels.labelset import LabelSet, accepted
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.panel.final import decisions_table
from reviewer.review.reviewed_mistakes import image_table, problematic_images
from reviewer.runs.mistakes import stored_mistakes
from reviewer.runs.predictions import load_predictions
from reviewer.terms import RunStatus, Severity, Verdict

SELECTED, NEEDS_REVIEW, NOT_ENOUGH = "selected", "needs review", "below k"
EXCLUDED = "excluded: correct or unclear new label"
EXCLUDED_MINOR = "excluded: a minor mistake"
EXCLUDED_PROBLEMATIC = "excluded: ground truth problematic"
NOT_CANDIDATE = "not a candidate: the anchor made no major mistake there"
STATUSES = (SELECTED, NEEDS_REVIEW, EXCLUDED, EXCLUDED_MINOR, EXCLUDED_PROBLEMATIC, NOT_CANDIDATE, NOT_ENOUGH)
MINOR_SEVERITIES = (Severity.MINOR.value, Severity.BORDERLINE.value)


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
    """The members (the anchor among them), k, and which member is the anchor (an index)."""

    members: tuple[SplitMember, ...]
    k: int = 3
    anchor: int = 0

    @property
    def anchor_member(self) -> SplitMember:
        return self.members[self.anchor]

    def as_dict(self) -> dict:
        return {"rule": "Vasudevan et al. 2022, 5.1: candidates are the anchor's mistakes rated major; kept where "
                        "at least k of the m members made a mistake rated major, no member's mistake was judged "
                        "a correct or unclear label, none is rated minor (Borderline counts as minor), and every "
                        "member's mistake there is reviewed",
                "k": self.k, "m": len(self.members), "anchor": asdict(self.anchor_member),
                "members": [asdict(m) for m in self.members]}


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
        return {s: int((self.table["status"] == s).sum()) for s in STATUSES}


def resolve_members(*, session: Session, specs: list[str]) -> tuple[SplitMember, ...]:
    """Members from their names on the command line: a run id ("12", "run:12"), an
    imported review ("review:3"), or a model name (its latest complete run over the
    whole set, else its latest imported review)."""
    members = [_resolve(session, spec.strip()) for spec in specs]
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
                          .where(Model.name == ref, Run.status == RunStatus.COMPLETE, Run.image_slice.is_(None))
                          .order_by(Run.id.desc())).first()
    if run is not None and kind != "review":
        return SplitMember("run", run[0], ref)
    review = session.execute(select(ImportedReview.id).join(Model, Model.id == ImportedReview.model_id)
                             .where(Model.name == ref).order_by(ImportedReview.id.desc())).first()
    if review is not None:
        return SplitMember("review", review[0], ref)
    raise SplitError(f"{spec!r} is neither a run id nor a model with a complete run over the whole set or an "
                     "imported review")


def _member_items(session: Session, member: SplitMember) -> pd.DataFrame:
    """(image_id, predicted, own_severity) of a member's mistakes; own_severity is the
    severity its imported review gave (None for a run)."""
    if member.kind == "run":
        return pd.DataFrame([(m.image_id, m.predicted, None) for m in stored_mistakes(session=session, run_id=member.id)],
                            columns=["image_id", "predicted", "own_severity"])
    rows = session.connection().execute(select(ImportedReviewItem.image_id, ImportedReviewItem.predicted,
                                               ImportedReviewItem.severity)
                                        .where(ImportedReviewItem.review_id == member.id)
                                        .order_by(ImportedReviewItem.id)).all()
    return pd.DataFrame([tuple(r) for r in rows], columns=["image_id", "predicted", "own_severity"])


def _published_severity(session: Session) -> pd.DataFrame:
    """(image_id, predicted, published_severity): the severity imported reviews gave
    each item (the latest import wins)."""
    rows = session.connection().execute(select(ImportedReviewItem.image_id, ImportedReviewItem.predicted,
                                               ImportedReviewItem.severity).order_by(ImportedReviewItem.id))
    frame = pd.DataFrame([tuple(r) for r in rows], columns=["image_id", "predicted", "published_severity"])
    return frame.drop_duplicates(["image_id", "predicted"], keep="last").astype({"image_id": "int64",
                                                                                 "predicted": "int64"})


def member_judgements(*, session: Session, rule: SplitRule, decisions: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per member mistake: member, image_id, predicted, verdict (None: not reviewed), severity."""
    decisions = decisions_table(session=session) if decisions is None else decisions
    decided = decisions[["image_id", "predicted", "verdict", "severity"]]
    decided = decided.rename(columns={"severity": "decided_severity"})
    published = _published_severity(session)
    frames = [_member_items(session, member).assign(member=index) for index, member in enumerate(rule.members)]
    items = pd.concat(frames, ignore_index=True).astype({"image_id": "int64", "predicted": "int64",
                                                         "member": "int64"})
    items = items.merge(decided, on=["image_id", "predicted"], how="left")
    items = items.merge(published, on=["image_id", "predicted"], how="left")
    # A review member's own rating first, else any published rating of the same item.
    fallback = items["own_severity"].astype(object).where(items["own_severity"].notna(), items["published_severity"])
    has_decision = items["verdict"].notna()
    verdict = items["verdict"].astype(object).where(has_decision, np.where(fallback.notna(), Verdict.WRONG.value, None))
    # A "wrong" decision without a severity keeps the published one.
    severity = np.where(has_decision,
                        np.where(items["decided_severity"].notna(), items["decided_severity"],
                                 np.where(verdict == Verdict.WRONG, fallback, None)),
                        fallback)
    out = items[["image_id", "predicted", "member"]].assign(verdict=verdict.to_numpy(), severity=severity)
    for column in ("verdict", "severity"):
        out[column] = out[column].astype(object).where(out[column].notna(), None)
    return out


def apply_split_rule(*, session: Session, rule: SplitRule) -> SplitResult:
    """Apply the rule to the project's current reviews; nothing is written."""
    if not rule.members:
        raise SplitError("a split needs at least one run or review")
    if not 1 <= rule.k <= len(rule.members):
        raise SplitError(f"k must be between 1 and the number of members ({len(rule.members)}), got {rule.k}")
    if not 0 <= rule.anchor < len(rule.members):
        raise SplitError("the anchor must be one of the members")
    decisions = decisions_table(session=session)
    items = member_judgements(session=session, rule=rule, decisions=decisions)
    wrong = items["verdict"] == Verdict.WRONG
    items["major"] = wrong & (items["severity"] == Severity.MAJOR)
    items["minor"] = wrong & items["severity"].isin(MINOR_SEVERITIES)
    items["unreviewed"] = items["verdict"].isna() | (wrong & items["severity"].isna())
    items["reviewed"] = ~items["unreviewed"]
    items["new_label"] = items["verdict"].isin((Verdict.CORRECT.value, Verdict.UNCLEAR.value))
    anchor = items["member"] == rule.anchor
    items["anchor_major"] = anchor & items["major"]
    items["anchor_open"] = anchor & items["unreviewed"]
    table = items.groupby("image_id")[["major", "minor", "reviewed", "unreviewed", "new_label", "anchor_major",
                                       "anchor_open"]].sum()
    for column in ("minor", "new_label", "anchor_major", "anchor_open"):
        table[column] = table[column] > 0
    predicted = items.pivot_table(index="image_id", columns="member", values="predicted", aggfunc="first")
    for index, member in enumerate(rule.members):
        column = predicted[index] if index in predicted.columns else pd.Series(dtype=float)
        table[member.label] = column.reindex(table.index).fillna(-1).astype("int64")
    candidate = table["anchor_major"] | table["anchor_open"]
    reachable = table["major"] + table["unreviewed"] >= rule.k
    problematic = table.index.isin(list(problematic_images(session=session, decisions=decisions)))
    # Candidates first (the anchor's major or still unrated mistakes): the exclusions are
    # counted among them only, so the counts add up to the candidates.
    status = np.select(
        [~candidate, problematic, table["new_label"], table["minor"],
         table["anchor_major"] & (table["major"] >= rule.k) & (table["unreviewed"] == 0), reachable],
        [NOT_CANDIDATE, EXCLUDED_PROBLEMATIC, EXCLUDED, EXCLUDED_MINOR, SELECTED, NEEDS_REVIEW], default=NOT_ENOUGH)
    table["status"] = status
    table = table.rename(columns={"new_label": "correct_new"}).drop(columns=["anchor_major", "anchor_open"])
    names = image_table(session=session, image_ids=table.index.tolist())
    table.insert(0, "file_name", names["file_name"].reindex(table.index))
    table = table.reset_index().sort_values("file_name", ignore_index=True)
    return SplitResult(rule=rule, table=table)


def save_split(*, session: Session, result: SplitResult, name: str, replace: bool = False) -> int:
    """Store the selected images as the slice `name`, with the rule; returns its size."""
    ids = result.table.loc[result.table["status"] == SELECTED, "image_id"].tolist()
    return save_slice(session=session, name=name, image_ids=ids, rule={**result.rule.as_dict(), "selected": len(ids)},
                      replace=replace)


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
    from statsmodels.stats.proportion import proportion_confint  # with scipy, a second to import

    low, high = proportion_confint(correct, total, alpha=0.05, method="beta")
    return SliceScore(correct, total, correct / total, float(low), float(high), missing)


def evaluate_on_slice(*, session: Session, run_id: int, slice_name: str, labels: LabelSet | None = None
                      ) -> SliceScore:
    """How many of the slice's images the run gets right (labels after the review)."""
    labels = reviewed_labelset(session=session, after_review=True) if labels is None else labels
    image_ids = slice_image_ids(session=session, name=slice_name)
    predictions = load_predictions(session=session, run_id=run_id)
    return score_on_images(labels, image_ids, predictions.image_ids, predictions.top1.astype(np.int64))
