"""The zoom-hard split: the mistakes that no zoomed crop corrects, for one run or
for every one of several (an ImageNet-Hard-style set).

Taesiri et al. (2023), "ImageNet-Hard: The Hardest Images Remaining from a Study
of the Power of Zoom and Spatial Biases in Image Classification": an image is
*unclassifiable* for a model when none of its 324 zoomed crops (36 scales x a
3x3 grid, §3) is classified correctly (§4.1: "0.39% of the IN+ReaL images were
not classified correctly by any of the IN-trained classifiers"); ImageNet-Hard
keeps an image "only if none of the 324 versions are correctly classified"
(§4.4.1). Correct means the crop's top-1 is among the image's IN+ReaL labels,
the original label with ReaL's (§3; `LABELS_IN_REAL`, the default), or, when
asked, this tool's accepted labels (`LABELS_ACCEPTED`: correct or unclear
multi-labels with ReaL's).

Here, for the chosen runs (each a model's run over the project's images), each
image one of them got wrong is a candidate and gets one status, the first that
applies:

- `CLASSIFIED`: a chosen run's top-1 there is not a mistake (it classified the
  image at its standard view). The paper probes every image; this split probes
  mistakes only, so an image a run gets right is left out;
- `NOT_PREDICTED`: a chosen run has no prediction there (a run over a slice);
- `NO_LABELS`: the image has no labels to judge a crop by;
- `CORRECTED`: some run's stored probe (complete, or partial: one correct crop
  already decides it) has a crop whose top-1 is correct;
- `NEEDS_PROBE`: some run's mistake there has no complete probe of the paper's
  grid yet (all 36 scales of Appendix A.3, 224-px crops; `reviewer zoom PROJECT
  --run N` computes them);
- `UNCLASSIFIABLE`: every run's complete probe has no correct crop: the split.

Each run's probe is the result the project's owner reads among those that
count (`runs.zoom.store.is_counted`: the owner's or the chair's, never another
panelist's; complete before partial). The statuses of the candidates add up to the candidates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
from sqlalchemy import select
from sqlmodel import Session

from db.tables import Image, Run
from reviewer.errors import UserError
from reviewer.evaluation.slices import save_slice, slice_names, slice_rule
from reviewer.evaluation.split import resolve_members
from reviewer.labels.labelset import LabelSet
from reviewer.labels.reviewed import reviewed_labelset
from reviewer.runs.mistakes import stored_mistakes
from reviewer.runs.predictions import load_predictions
from reviewer.runs.zoom.grid import CROP_SIZE, PAPER_SCALES
from reviewer.runs.zoom.result import (
    ACCEPTED_RULE,
    PROBE_VERSION,
    TAESIRI_RULE,
    accepted_classes,
    summarise,
    taesiri_accepted_classes,
)
from reviewer.runs.zoom.store import run_zooms
from reviewer.terms import RunStatus

KIND = "zoom-hard"  # the `kind` of a zoom-hard slice's stored rule
LABELS_IN_REAL, LABELS_ACCEPTED = "in-real", "accepted"
LABEL_RULES = {LABELS_IN_REAL: TAESIRI_RULE, LABELS_ACCEPTED: ACCEPTED_RULE}

UNCLASSIFIABLE = "unclassifiable"
CLASSIFIED = "excluded: a run classifies it correctly"
NOT_PREDICTED = "excluded: a run has no prediction for it"
NO_LABELS = "excluded: no labels"
CORRECTED = "corrected by some crop"
NEEDS_PROBE = "needs a complete probe"
STATUSES = (UNCLASSIFIABLE, CORRECTED, NEEDS_PROBE, CLASSIFIED, NOT_PREDICTED, NO_LABELS)

# One run's word on one image (the table's per-run columns).
RUN_RIGHT, RUN_UNPREDICTED, RUN_CORRECTED = "right", "no prediction", "corrected"
RUN_NONE, RUN_UNPROBED, RUN_PARTIAL = "no correct crop", "not probed", "partial, no correct crop yet"
RULE_TEXT = ("Taesiri et al. 2023 (ImageNet-Hard), sections 4.1 and 4.4.1: an image is unclassifiable for a model "
             "when none of its 324 zoomed crops (36 scales x a 3x3 grid of 224-px crops) has a correct top-1; kept "
             "here when it is a mistake of every chosen run and every run's complete probe has no correct crop")


class ZoomHardError(UserError):
    """A zoom-hard split that cannot be made as asked."""


@dataclass(frozen=True)
class ZoomHardRule:
    """The chosen runs, (run id, model name) each, and which labels make a crop correct."""

    runs: tuple[tuple[int, str], ...]
    labels: str = LABELS_IN_REAL

    def __post_init__(self) -> None:
        if self.labels not in LABEL_RULES:
            raise ZoomHardError(f"labels must be one of {', '.join(LABEL_RULES)}, not {self.labels!r}")
        if not self.runs:
            raise ZoomHardError("a zoom-hard split needs at least one run")

    def as_dict(self) -> dict:
        return {"kind": KIND, "rule": RULE_TEXT, "labels": self.labels, "labels_rule": LABEL_RULES[self.labels],
                "probe_version": PROBE_VERSION, "runs": [{"run": run, "model": model} for run, model in self.runs]}


@dataclass
class ZoomHardResult:
    rule: ZoomHardRule
    # One row per candidate image (a mistake of some chosen run): image_id, file_name, status,
    # and per run a column named by `run_column` with that run's word on the image (RUN_*).
    table: pd.DataFrame = field(repr=False)

    def images(self, status: str = UNCLASSIFIABLE) -> list[str]:
        """File names of the images with that status, sorted."""
        return sorted(self.table.loc[self.table["status"] == status, "file_name"])

    def image_ids(self, status: str = UNCLASSIFIABLE) -> list[int]:
        return sorted(int(i) for i in self.table.loc[self.table["status"] == status, "image_id"])

    def counts(self) -> dict[str, int]:
        return {s: int((self.table["status"] == s).sum()) for s in STATUSES}


def run_column(run_id: int, model: str) -> str:
    return f"{model} (run {run_id})"


def resolve_runs(*, session: Session, specs: list[str]) -> tuple[tuple[int, str], ...]:
    """(run id, model) of each spec: a run id, run:ID, or a model name (its latest complete run over
    the whole set), as `reviewer split` takes them; an imported review is refused (no model to probe)."""
    members = resolve_members(session=session, specs=specs)
    reviews = [m.label for m in members if m.kind != "run"]
    if reviews:
        raise ZoomHardError(f"{', '.join(reviews)}: an imported review has no model to probe; name runs")
    out = []
    for member in members:
        status = session.execute(select(Run.status).where(Run.id == member.id)).scalar_one()
        if status != RunStatus.COMPLETE:
            raise ZoomHardError(f"run {member.id} ({member.model}) is {status}, not complete: its mistakes are "
                                "stored when it completes (run 'reviewer predict' again to finish it)")
        out.append((member.id, member.model))
    return tuple(out)


def _accepted(labels: LabelSet, image_id: int, rule: str) -> frozenset[int] | None:
    try:
        return (taesiri_accepted_classes(labels, image_id) if rule == LABELS_IN_REAL
                else accepted_classes(labels, image_id))
    except KeyError:
        return None


def zoom_hard_split(*, session: Session, rule: ZoomHardRule, labels: LabelSet | None = None) -> ZoomHardResult:
    """Every candidate's status under `rule` (module docstring); nothing is written. `labels`:
    the label set before the review (default: read here), as the zoom probe's views use."""
    labels = reviewed_labelset(session=session, after_review=False) if labels is None else labels
    words: dict[int, dict[str, str]] = {}  # image -> run column -> the run's word
    accepted_of: dict[int, frozenset[int] | None] = {}
    predicted_by: list[tuple[str, set[int]]] = []
    for run_id, model in rule.runs:
        column = run_column(run_id, model)
        predicted_by.append((column, set(load_predictions(session=session, run_id=run_id).image_ids.tolist())))
        zooms = run_zooms(session=session, run_id=run_id, counted_only=True)  # the owner's and the chair's
        for mistake in stored_mistakes(session=session, run_id=run_id):
            image = int(mistake.image_id)
            if image not in accepted_of:
                accepted_of[image] = _accepted(labels, image, rule.labels)
            accepted = accepted_of[image]
            chosen = zooms.get((image, int(mistake.predicted)))
            if chosen is None or accepted is None:
                word = RUN_UNPROBED
            else:
                summary = summarise(chosen.result, predicted=mistake.predicted, accepted=accepted)
                # No correct crop is final only over the paper's 324 crops (36 scales, 224 px).
                grid = chosen.result.params
                whole = summary.complete and grid.scales == PAPER_SCALES and grid.crop_size == CROP_SIZE
                word = RUN_CORRECTED if summary.corrected else (RUN_NONE if whole else RUN_PARTIAL)
            words.setdefault(image, {})[column] = word
    rows = []
    for image, by_run in words.items():
        for column, ids in predicted_by:
            if column not in by_run:
                by_run[column] = RUN_RIGHT if image in ids else RUN_UNPREDICTED
        said = set(by_run.values())
        if RUN_RIGHT in said:
            status = CLASSIFIED
        elif RUN_UNPREDICTED in said:
            status = NOT_PREDICTED
        elif accepted_of[image] is None:
            status = NO_LABELS
        elif RUN_CORRECTED in said:
            status = CORRECTED
        elif said != {RUN_NONE}:
            status = NEEDS_PROBE
        else:
            status = UNCLASSIFIABLE
        rows.append({"image_id": image, "status": status, **by_run})
    columns = ["image_id", "file_name", "status", *(column for column, _ in predicted_by)]
    table = pd.DataFrame(rows, columns=[c for c in columns if c != "file_name"])
    names = dict(session.execute(select(Image.id, Image.file_name).where(Image.id.in_(list(words)))).all()) \
        if words else {}
    table.insert(1, "file_name", [names.get(int(i), "") for i in table["image_id"]])
    table = table.sort_values("file_name", ignore_index=True)
    return ZoomHardResult(rule=rule, table=table)


def save_zoom_hard(*, session: Session, result: ZoomHardResult, name: str, replace: bool = False) -> int:
    """Store the unclassifiable images as the slice `name`, with the rule and the counts; returns its size."""
    ids = result.image_ids(UNCLASSIFIABLE)
    if not ids:
        counts = result.counts()
        raise ZoomHardError(f"no image is unclassifiable under this rule, so slice {name!r} would be empty "
                            f"({counts[NEEDS_PROBE]} need a complete probe first: 'reviewer zoom PROJECT --run N')")
    return save_slice(session=session, name=name, image_ids=ids,
                      rule={**result.rule.as_dict(), "counts": result.counts()}, replace=replace)


@dataclass(frozen=True)
class ZoomHardSlice:
    """A saved zoom-hard slice as the report and the export name it."""

    name: str
    images: int
    rule: dict

    @property
    def runs(self) -> list[str]:
        return [f"{r['model']} (run {r['run']})" for r in self.rule.get("runs", [])]


def zoom_hard_slices(*, session: Session) -> list[ZoomHardSlice]:
    """The project's slices saved by `save_zoom_hard` (their rule's kind is `KIND`), by name."""
    out = []
    for name, size in slice_names(session=session).items():
        rule = slice_rule(session=session, name=name)
        if isinstance(rule, dict) and rule.get("kind") == KIND:
            out.append(ZoomHardSlice(name, size, rule))
    return out
