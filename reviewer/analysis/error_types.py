"""Error types per run (issue 37): for every complete run, the shares of each error type (the
paper's four categories and "no explanation found", Peychev et al.'s model failure, NeurIPS 2023)
and of each severity among its mistakes, and against its MLA across runs, as Peychev et al.'s
figures show how the error types change with accuracy.

A run's mistakes are its stored ones (its top-1 outside the image's correct and unclear labels
before the review). Each is counted with the panel's final decision where there is one, else a
published review's answer on the same image and prediction, else the categoriser's suggestion
(`reviewer.review.categorise`, `reviewer.review.suggest`), and every count is given per source,
so a share made of suggestions is never read as the panel's. A mistake the panel judged correct
or unclear, or one on an image whose ground truth is problematic, is not counted (the paper
leaves problematic images out before it categorises); Borderline counts as minor (§4.1).

The suggestions read the labels before the review and the evidence, not the panel, so the report
keeps them per run (`suggestions_inputs`) and a vote recomputes only the answers put on them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from reviewer.review.categorise import ERROR_TYPES, SEVERITIES, SOURCES, DecidedAnswers, answered, error_type_shares


@dataclass(frozen=True)
class RunErrorTypes:
    """One run's error types: `shares` as `error_type_shares` gives them (count, share and the
    counts by source of each error type and severity; how many answers each source gave),
    and the run's MLA after the review (None: none, e.g. a project without multi-labels)."""

    run_id: int
    model: str
    mla: float | None
    shares: dict

    def share(self, level: str) -> float | None:
        """The share of an error type or a severity (None: nothing counted)."""
        table = self.shares["error_types"] if level in ERROR_TYPES else self.shares["severity"]
        return table[level]["share"]

    def as_dict(self) -> dict:
        return {"run_id": self.run_id, "model": self.model, "mla_after_review": self.mla, **self.shares}


@dataclass(frozen=True)
class ErrorTypes:
    """Every complete run's error types, in run order."""

    runs: list[RunErrorTypes] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"error_types": list(ERROR_TYPES), "severities": list(SEVERITIES), "sources": list(SOURCES),
                "runs": [r.as_dict() for r in self.runs]}


def run_error_types(suggested: dict[int, pd.DataFrame], decided: DecidedAnswers, mla: pd.DataFrame) -> ErrorTypes:
    """Each run's error types from its suggestions (`categorise.suggested_run`, by run id), the
    decided answers and the MLA table (`run_tables.mla_table`)."""
    rows = {int(r.run_id): r for r in mla.itertuples(index=False)}
    out = []
    for run_id, frame in suggested.items():
        row = rows.get(run_id)
        value = None if row is None else row.all_after
        mla_value = None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)
        out.append(RunErrorTypes(run_id, "" if row is None else str(row.model), mla_value,
                                 error_type_shares(answered(frame, decided))))
    return ErrorTypes(out)


def suggestions_inputs(*, labels: dict, run: dict | None, mistakes, evidence: dict) -> dict:
    """The key a run's suggestions are kept under: the labels before the review
    (`inputs.label_inputs`), the run (`inputs.run_inputs`), its stored mistakes (their
    aggregate in `inputs.panel_inputs`) and the evidence (`inputs.evidence_inputs`)."""
    return {"labels": labels, "run": run, "mistakes": mistakes, "evidence": evidence}
