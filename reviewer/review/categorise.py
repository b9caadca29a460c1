"""Every mistake of a run, or of an imported review, categorised: the panel's decision where there
is one, a published review's where the same image and prediction was reviewed, and the
categoriser's suggestion (`reviewer.review.suggest`) always beside them, each answer marked with
where it came from. Nothing here is written: a suggestion is never a vote or a decision.

`categorise(session=, run_id=)` or `categorise(session=, review=)` gives `CategorisedMistake`s;
`error_type_shares(rows)` the shares of each error type and severity among them (the report's
per-run error types, issue 37), counting the panel's and the published answers where they exist
and the suggestions elsewhere.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reviewer.review.suggest import ErrorType, Suggestion, SuggestionFacts, suggest
from reviewer.terms import StrEnum

if TYPE_CHECKING:
    from sqlmodel import Session


class AnswerSource(StrEnum):
    """Where a mistake's category and severity come from."""

    PANEL = "panel"  # the panel's final decision (verdict wrong, with its category and severity)
    PUBLISHED = "published"  # an imported review of the same image and prediction
    SUGGESTED = "suggested"  # the categoriser's suggestion: no one has decided it


@dataclass(frozen=True)
class CategorisedMistake:
    """One mistake: the answer counted (`error_type`, `severity`, from `source`) and the suggestion."""

    model: str
    run_id: int | None
    image_id: int
    file_name: str
    predicted: int
    error_type: str | None  # an ErrorType value; None where the deciding answer names no category
    severity: str | None  # major / minor (Borderline counts as minor, the paper's §4.1)
    source: AnswerSource
    suggestion: Suggestion | None

    def as_dict(self) -> dict:
        from reviewer.classes.vocabulary import load_classes

        return {"model": self.model, "run_id": self.run_id, "image_id": self.image_id, "file_name": self.file_name,
                "predicted": self.predicted, "predicted_name": load_classes().names[self.predicted],
                "error_type": self.error_type, "severity": self.severity, "source": str(self.source),
                "suggestion": None if self.suggestion is None else self.suggestion.as_dict()}


def _severity(value) -> str | None:
    if value is None or value != value:
        return None
    return "major" if str(value) == "major" else "minor"


def _decided(session: Session) -> tuple[dict, dict]:
    """({(image, predicted): (category, severity)} of the panel's 'wrong' decisions,
    the same of every imported review)."""
    from reviewer.panel.final import decisions_table
    from reviewer.review.reviewed_mistakes import _imported_items

    decisions = decisions_table(session=session)
    panel = {(int(r.image_id), int(r.predicted)): (r.category, r.severity)
             for r in decisions.itertuples(index=False) if str(r.verdict) == "wrong"}
    published = {}
    for r in _imported_items(session).itertuples(index=False):
        published.setdefault((int(r.image_id), int(r.predicted)), (r.category, r.severity))
    return panel, published


def categorise(*, session: Session, run_id: int | None = None, review: str | None = None
               ) -> list[CategorisedMistake]:
    """Every mistake of the run (its stored mistakes) or of the imported review named `review`
    (its model's name), in image order, categorised (module docstring)."""
    from sqlalchemy import select

    from db.tables import Image, Model, Run
    from reviewer.evidence import evidence_for
    from reviewer.labels.reviewed import reviewed_labelset
    from reviewer.review.reviewed_mistakes import _imported_items
    from reviewer.runs.mistakes import stored_mistakes

    if (run_id is None) == (review is None):
        raise ValueError("give a run or a review")
    labels = reviewed_labelset(session=session, after_review=False)
    panel, published = _decided(session)
    if run_id is not None:
        model = session.execute(select(Model.name).join(Run, Run.model_id == Model.id)
                                .where(Run.id == run_id)).scalar_one_or_none()
        if model is None:
            raise KeyError(f"no run {run_id}")
        items = [(m.image_id, m.file_name, m.predicted, m.original_label, m.probability)
                 for m in stored_mistakes(session=session, run_id=run_id)]
    else:
        frame = _imported_items(session)
        frame = frame[frame["model"] == review]
        if frame.empty:
            raise KeyError(f"no imported review of a model named {review!r}")
        model = review
        images = dict(session.execute(select(Image.id, Image.file_name)
                                      .where(Image.id.in_([int(i) for i in frame["image_id"]]))).all())
        originals = dict(session.execute(select(Image.id, Image.original_label)
                                         .where(Image.id.in_([int(i) for i in frame["image_id"]]))).all())
        items = sorted((int(r.image_id), images[int(r.image_id)], int(r.predicted), originals[int(r.image_id)], None)
                       for r in frame.itertuples(index=False))
        published = {(int(r.image_id), int(r.predicted)): (r.category, r.severity) for r in frame.itertuples(index=False)}
    import numpy as np

    positions = labels.positions(np.array([i[0] for i in items], dtype=np.int64)) if items else []
    out = []
    for (image_id, file_name, predicted, original, probability), position in zip(items, list(positions)):
        known = labels.labels_of(int(position)) if position >= 0 else {"correct": [], "wrong": []}
        targets = tuple(known["correct"]) or ((int(original),) if original is not None else ())
        lines = tuple(evidence_for(session, file_name, int(predicted), original))
        found = suggest(SuggestionFacts(int(predicted), targets, lines, wrong=tuple(known["wrong"]) or None,
                                        probability=probability))
        key = (int(image_id), int(predicted))
        decided = panel.get(key)
        source = AnswerSource.PANEL
        if decided is None and review is None and key in published:
            decided, source = published[key], AnswerSource.PUBLISHED
        if decided is None and review is not None:
            decided, source = published.get(key), AnswerSource.PUBLISHED
        if decided is None:
            error_type = None if found is None else str(found.error_type)
            severity = None if found is None else str(found.severity)
            source = AnswerSource.SUGGESTED
        else:
            category, severity = decided
            error_type = None if category is None or category != category else str(category)
            severity = _severity(severity)
        out.append(CategorisedMistake(model, run_id, int(image_id), file_name, int(predicted), error_type, severity,
                                      source, found))
    return out


ERROR_TYPES = tuple(str(t) for t in ErrorType)


def error_type_shares(rows: list[CategorisedMistake]) -> dict:
    """The shares of each error type and severity among the mistakes, and how many of each
    answer came from the panel, a published review or the suggestion."""
    n = len(rows)
    types = Counter(r.error_type for r in rows if r.error_type is not None)
    severities = Counter(r.severity for r in rows if r.severity is not None)
    sources = Counter(str(r.source) for r in rows)
    typed, rated = sum(types.values()), sum(severities.values())
    return {"mistakes": n,
            "sources": {str(s): sources.get(str(s), 0) for s in AnswerSource},
            "error_types": {t: {"count": types.get(t, 0), "share": types.get(t, 0) / typed if typed else None}
                            for t in ERROR_TYPES},
            "severity": {s: {"count": severities.get(s, 0), "share": severities.get(s, 0) / rated if rated else None}
                         for s in ("major", "minor")}}
