"""The zoom probe in the report: per model, the mistakes that some crop corrects,
split by the panel's decision.

Definition (Taesiri et al. 2023, "ImageNet-Hard: The Hardest Images Remaining
from a Study of the Power of Zoom and Spatial Biases in Image Classification",
§3 and §4.1): the image's shorter side is resized to a scale S, a 3x3 grid of
224-px crops is taken, over 36 scales from 10 to 1024 px: 324 crops. An image is
"correctly classified given the optimal zoom" when the top-1 of at least 1 of
the 324 crops is correctly labeled; "proper framing of the input image can lead
to the correct classification of 98.91% of ImageNet images". Here a mistake
counts as *corrected* when the top-1 of at least one crop of its stored probe
is among the image's accepted labels, by two rules, each named:

- this tool's (`ACCEPTED_RULE`, `reviewer.runs.zoom.result.accepted_classes`):
  the correct and unclear multi-labels with ReaL's labels when imported, before
  the panel's review, as the review window shows it (`reviewer.app.zoom`).
  Every count below but `taesiri_corrected` uses it.
- Taesiri et al.'s (`TAESIRI_RULE`, `taesiri_accepted_classes`): "For each IN
  image, we use the union of the IN and ReaL labels (IN+ReaL)" (§3), the
  original label with ReaL's labels: `taesiri_corrected` of the same probed
  mistakes, the figure to set beside theirs. Their 98.91% (ViT-B/32, Table 1c)
  is over all 50,000 validation images, this over a model's probed mistakes.

Counted per model (a run's model name; a mistake (image, predicted class) made
by several runs of one model counts once, with its complete result if any):
the model's mistakes with a stored result (table `zoom_probe`); the complete
ones (every crop of the grid computed) are `probed` and the shares are over
them; a partial result (a stopped probe) is counted apart, with how many of them
a computed crop already corrects, and takes no part in a share. Split by the
panel's standing final decision: its verdict (correct / wrong / unclear; no
decision, or a reopened one: "undecided"), and for the mistakes decided wrong
the severity (major / minor) and category (`reviewer.terms.Category`, as
stored; "unrated" where the decision gives none) and their crosstab. By zoom
group (the paper's zoom-out S < 224, zoom-224, zoom-in S > 224): the probed
mistakes that some crop of that group corrects (one mistake may count in
several groups).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
from sqlalchemy import and_, select
from sqlmodel import Session

from db.tables import Mistake, Model, Run, ZoomProbe
from reviewer.evaluation.zoom_hard import ZoomHardSlice, zoom_hard_slices
from reviewer.labels.labelset import LabelSet
from reviewer.runs.zoom.result import (
    ACCEPTED_RULE,
    TAESIRI_RULE,
    ZoomGroup,
    ZoomResult,
    accepted_classes,
    summarise,
    taesiri_accepted_classes,
)
from reviewer.runs.zoom.store import ZoomProvenance, choose, counting_ids, is_counted, readable, zoom_provenance
from reviewer.terms import Category, RunStatus, Severity, Verdict

UNDECIDED = "undecided"
UNRATED = "unrated"
VERDICTS = (Verdict.CORRECT.value, Verdict.WRONG.value, Verdict.UNCLEAR.value, UNDECIDED)
SEVERITIES = tuple(s.value for s in Severity.panel()) + (UNRATED,)
CATEGORIES = tuple(c.value for c in Category) + (UNRATED,)
GROUPS = tuple(str(g) for g in ZoomGroup)
# Taesiri et al.'s figure (§4.1, Table 1c): ViT-B/32, IN+ReaL, at least 1 of the 324 crops right, over all IN images.
PAPER_OPTIMAL_ZOOM = {"share": 0.9891, "model": "ViT-B/32", "labels": "IN+ReaL",
                      "over": "all 50,000 ImageNet validation images (not a model's mistakes)"}
HOW_TO_PROBE = ("No mistake has a zoom probe yet: press X on a mistake in the review window to run its model over "
                "the 324 crops (Taesiri et al. 2023), or probe all of a run's mistakes with 'reviewer zoom PROJECT "
                "--run N'; the result is stored with the run.")


def _pairs(levels) -> dict[str, list[int]]:
    return {level: [0, 0] for level in levels}  # [corrected, probed]


@dataclass(frozen=True)
class ModelZoom:
    """One model's probed mistakes. Each count is [corrected, probed] over complete results."""

    model: str
    runs: tuple[int, ...]
    mistakes: int  # the model's mistakes (image, predicted), probed or not
    probed: int = 0  # with a complete result
    corrected: int = 0  # by this tool's accepted labels (ACCEPTED_RULE), as every count below but the next
    taesiri_corrected: int = 0  # by Taesiri et al.'s IN+ReaL (TAESIRI_RULE), of the same probed mistakes
    partial: int = 0  # with a partial result only (not in the shares)
    partial_corrected: int = 0  # of those, already corrected by a computed crop
    by_verdict: dict[str, list[int]] = field(default_factory=lambda: _pairs(VERDICTS))
    by_severity: dict[str, list[int]] = field(default_factory=lambda: _pairs(SEVERITIES))  # decided wrong
    by_category: dict[str, list[int]] = field(default_factory=lambda: _pairs(CATEGORIES))  # decided wrong
    crosstab: dict[str, dict[str, list[int]]] = field(
        default_factory=lambda: {s: _pairs(CATEGORIES) for s in SEVERITIES})  # severity x category, wrong
    by_group: dict[str, int] = field(default_factory=lambda: dict.fromkeys(GROUPS, 0))  # corrected by the group

    @property
    def share(self) -> float | None:
        return self.corrected / self.probed if self.probed else None

    @property
    def taesiri_share(self) -> float | None:
        return self.taesiri_corrected / self.probed if self.probed else None

    @property
    def unclassifiable(self) -> int:
        """Complete probes with no crop correct by IN+ReaL: Taesiri et al.'s "unclassifiable" (§4.1, §4.4.1)."""
        return self.probed - self.taesiri_corrected

    def as_dict(self) -> dict:
        def pairs(d):
            return {k: {"corrected": c, "probed": n} for k, (c, n) in d.items()}
        return {"model": self.model, "runs": list(self.runs), "mistakes": self.mistakes, "probed": self.probed,
                "corrected": self.corrected, "share": self.share, "accepted_rule": ACCEPTED_RULE,
                "taesiri_in_real": {"rule": TAESIRI_RULE, "corrected": self.taesiri_corrected,
                                    "probed": self.probed, "share": self.taesiri_share,
                                    "unclassifiable": self.unclassifiable},
                "partial": self.partial,
                "partial_corrected": self.partial_corrected, "by_verdict": pairs(self.by_verdict),
                "wrong_by_severity": pairs(self.by_severity), "wrong_by_category": pairs(self.by_category),
                "wrong_severity_by_category": {s: pairs(row) for s, row in self.crosstab.items()},
                "by_group": {g: {"corrected": k, "probed": self.probed} for g, k in self.by_group.items()}}


@dataclass(frozen=True)
class ZoomReport:
    models: tuple[ModelZoom, ...] = ()
    unreadable: int = 0  # stored results this version cannot read (ZoomFormatError), left out
    real_labels: bool = True  # the project has ReaL labels (without, both rules go without them)
    # The zoom-hard splits saved as slices (`reviewer zoom-split --save`), with their rules.
    splits: tuple[ZoomHardSlice, ...] = ()
    # Whose results the counts are (the owner's and the chair's) and how many others' are left out.
    provenance: ZoomProvenance | None = None

    @property
    def note(self) -> str:
        """One line when nothing is probed ('' otherwise)."""
        return "" if any(m.probed or m.partial for m in self.models) else HOW_TO_PROBE

    def as_dict(self) -> dict:
        return {"note": self.note, "unreadable": self.unreadable, "accepted_rule": ACCEPTED_RULE,
                "taesiri_rule": TAESIRI_RULE, "paper_optimal_zoom": dict(PAPER_OPTIMAL_ZOOM),
                "real_labels": self.real_labels, "models": [m.as_dict() for m in self.models],
                "counted_results": self.provenance.as_dict() if self.provenance else None,
                "zoom_hard_splits": [{"slice": z.name, "images": z.images, "runs": z.runs,
                                      "labels": z.rule.get("labels"), "counts": z.rule.get("counts", {})}
                                     for z in self.splits]}


def _decisions_by_item(decisions: pd.DataFrame) -> dict[tuple[int, int], tuple[str, str, str]]:
    """{item (image, predicted): (verdict, severity, category)} of the standing settled decisions."""
    out = {}
    for image, predicted, verdict, severity, category in zip(decisions["image_id"], decisions["predicted"],
                                                              decisions["verdict"], decisions["severity"],
                                                              decisions["category"]):
        if verdict not in VERDICTS[:3]:
            continue  # reopened: undecided
        out[(int(image), int(predicted))] = (str(verdict), str(severity) if severity in SEVERITIES else UNRATED,
                                             str(category) if category in CATEGORIES else UNRATED)
    return out


def zoom_report(*, session: Session, labels: LabelSet, decisions: pd.DataFrame) -> ZoomReport:
    """Every model's probed mistakes (module docstring). `labels`: the label set before the review
    (`reviewed_labelset(after_review=False)`), `decisions`: `reviewer.panel.final.decisions_table`."""
    complete_run = Run.status == RunStatus.COMPLETE
    mistakes = session.execute(
        select(Model.name, Run.id, Mistake.image_id, Mistake.predicted)
        .join(Run, Run.model_id == Model.id).join(Mistake, Mistake.run_id == Run.id).where(complete_run)).all()
    per_model: dict[str, set] = {}
    runs: dict[str, set] = {}
    for name, run_id, image, predicted in mistakes:
        per_model.setdefault(name, set()).add((int(image), int(predicted)))
        runs.setdefault(name, set()).add(int(run_id))
    rows = session.execute(
        select(Model, ZoomProbe)
        .join(Run, Run.id == ZoomProbe.run_id).join(Model, Model.id == Run.model_id)
        .join(Mistake, and_(Mistake.run_id == ZoomProbe.run_id, Mistake.image_id == ZoomProbe.image_id,
                            Mistake.predicted == ZoomProbe.predicted))
        .where(complete_run)).all()
    # Per model and mistake, the result the project's owner would read (reviewer.runs.zoom.store:
    # the owner's or the chair's, complete before partial, the newest;
    # a damaged payload or another model's result passed over and counted as unreadable).
    # Only the results that count (the owner's and the chair's: reviewer.runs.zoom.store.is_counted); a
    # panelist's own result serves their window, and the report says how many it leaves out.
    chairs = counting_ids(session)
    grouped: dict[tuple[str, int, int], list] = {}
    for model, row in rows:
        if is_counted(row, chairs):
            grouped.setdefault((model.name, int(row.image_id), int(row.predicted)), []).append((model, row))
    chosen: dict[tuple[str, int, int], ZoomResult | None] = {}
    for mistake, pairs in grouped.items():
        model_of = {id(row): model for model, row in pairs}
        chosen[mistake] = next((result for row in choose([r for _, r in pairs], reader_id=None, trusted=chairs)
                            if (result := readable(row, model_of[id(row)])) is not None), None)
    decided = _decisions_by_item(decisions)
    models = {name: ModelZoom(model=name, runs=tuple(sorted(runs[name])), mistakes=len(items))
              for name, items in sorted(per_model.items())}
    counts = {name: {"probed": 0, "corrected": 0, "taesiri_corrected": 0, "partial": 0, "partial_corrected": 0}
              for name in models}
    unreadable = 0
    for (name, image, predicted), result in sorted(chosen.items()):
        if result is None:
            unreadable += 1
            continue
        try:
            accepted = accepted_classes(labels, image)
            taesiri = taesiri_accepted_classes(labels, image)
        except KeyError:
            unreadable += 1
            continue
        summary = summarise(result, predicted=predicted, accepted=accepted)
        c, m = counts[name], models[name]
        if not summary.complete:
            c["partial"] += 1
            c["partial_corrected"] += int(summary.corrected)
            continue
        hit = int(summary.corrected)
        c["probed"] += 1
        c["corrected"] += hit
        c["taesiri_corrected"] += int(summarise(result, predicted=predicted, accepted=taesiri).corrected)
        verdict, severity, category = decided.get((image, predicted), (UNDECIDED, UNRATED, UNRATED))
        for table, level in ((m.by_verdict, verdict),) + (
                ((m.by_severity, severity), (m.by_category, category), (m.crosstab[severity], category))
                if verdict == Verdict.WRONG.value else ()):
            table[level][0] += hit
            table[level][1] += 1
        for group, n in summary.by_group.items():
            m.by_group[group] += int(n > 0)
    out = []
    for name, m in models.items():
        c = counts[name]
        out.append(ModelZoom(model=m.model, runs=m.runs, mistakes=m.mistakes, probed=c["probed"],
                             corrected=c["corrected"], taesiri_corrected=c["taesiri_corrected"],
                             partial=c["partial"], partial_corrected=c["partial_corrected"],
                             by_verdict=m.by_verdict, by_severity=m.by_severity, by_category=m.by_category,
                             crosstab=m.crosstab, by_group=m.by_group))
    return ZoomReport(models=tuple(out), unreadable=unreadable, real_labels=bool(len(labels.real_rows)),
                      splits=tuple(zoom_hard_slices(session=session)),
                      provenance=zoom_provenance(session=session,
                                                 run_ids=sorted({r for rs in runs.values() for r in rs})))
