"""The categoriser's suggestions in the export: for every complete run, its mistakes that have no
final decision of the panel, each with the suggested category and severity, the rule that chose
each and its confidence (`reviewer.review.categorise`, `reviewer.review.suggest`), written as
`suggestions/run-<id>.json`:

    {"run": 3, "model": "resnet50", "note": "...never the panel's decisions...",
     "mistakes": {"ILSVRC2012_val_00001529.JPEG": {"top_prediction": 304,
        "suggested": {"failure category": "Fine-grained error", "failure severity": "Minor",
                      "error_type": "fine_grained", "category_rule": "near",
                      "category_confidence": 0.84, "severity_rule": "organisms",
                      "severity_confidence": 0.8, "measured": true, "reasons": "..."},
        "published": {"failure category": ..., "failure severity": ...}}, ...}}

A suggestion is never a vote or a decision: it sits under "suggested", apart from the published
answer (where an imported review judged the same image and prediction) and from the mistakes
files, which hold only the panel's and the published reviews' answers. A mistake the panel
decided is not listed here: its decision is in `mistakes/<model>_mistakes.json`. "failure
category" is the likeliest of the paper's four where the categoriser found no explanation
("error_type": "no_explanation"). The model's probability is left out of the reasons, so the
files are the same for the same labels and evidence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlmodel import Session

from db.tables import Model, Run
from reviewer.review.categorise import SuggestionMemo, decided_answers, run_mistakes, suggest_many
from reviewer.review.suggest import Suggestion
from reviewer.terms import Category, RunStatus, Severity

if TYPE_CHECKING:
    import pandas as pd

    from reviewer.labels.labelset import LabelSet

FOLDER = "suggestions"
NOTE = ("Suggestions of the categoriser (reviewer suggest; docs/suggestions.md gives its rules and how often they "
        "agree with a panel), never the panel's decisions: each mistake of the run without a final decision, the "
        "suggested category and severity under 'suggested' with the rule that chose each and its confidence (the "
        "share of the fitting half's mistakes it decided on which the paper's panel agreed).")


def _confidence(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def suggestion_record(predicted: int, suggestion: Suggestion | None, published: tuple | None) -> dict:
    """One mistake's record: its prediction, the suggestion (None where the image has no label to
    compare with) and, where a published review judged it, the published answer (category,
    severity)."""
    s = suggestion
    record: dict = {"top_prediction": predicted, "suggested": None if s is None else {
        "failure category": s.category.published, "failure severity": s.severity.caption,
        "error_type": str(s.error_type), "category_rule": str(s.category_rule),
        "category_confidence": _confidence(s.category_confidence), "severity_rule": str(s.severity_rule),
        "severity_confidence": _confidence(s.severity_confidence), "measured": s.measured, "reasons": s.reasons}}
    if published is not None:
        category, severity = published
        record["published"] = {"failure category": None if category is None else Category(category).published,
                               "failure severity": None if severity is None else Severity(severity).caption}
    return record


def suggestion_files(*, session: Session, labels: LabelSet, decisions: pd.DataFrame) -> tuple[dict[str, dict], list]:
    """({file name: its data} of every complete run, what the manifest says of each): `labels`
    before the review, `decisions` the panel's final decisions (`decisions_table`). Only the
    mistakes without a panel decision are suggested: the others are not listed."""
    runs = session.execute(select(Run.id, Model.name).join(Model, Model.id == Run.model_id)
                           .where(Run.status == RunStatus.COMPLETE).order_by(Run.id)).all()
    decided = decided_answers(session=session, decisions=decisions)
    memo = SuggestionMemo()  # a mistake two runs made is suggested once, an image's evidence read once
    files, notes = {}, []
    for run_id, model in runs:
        _, mistakes = run_mistakes(session, run_id)
        undecided = [m for m in mistakes if (m.image_id, m.predicted) not in decided.panel]
        found = suggest_many(session, undecided, labels=labels, probabilities=False, memo=memo)
        listed = {m.file_name: suggestion_record(m.predicted, s, decided.published.get((m.image_id, m.predicted)))
                  for m, s in zip(undecided, found)}
        name = f"{FOLDER}/run-{run_id}.json"
        files[name] = {"run": run_id, "model": model, "note": NOTE, "mistakes": listed}
        notes.append({"run": run_id, "model": model, "file": name, "mistakes": len(mistakes),
                      "listed_without_panel_decision": len(listed),
                      "with_published_answer": sum(1 for r in listed.values() if "published" in r)})
    return files, notes
