"""Every mistake of a run, or of an imported review, categorised: the panel's decision where there
is one, a published review's where the same image and prediction was reviewed, and the
categoriser's suggestion (`reviewer.review.suggest`) always beside them, each answer marked with
where it came from. Nothing here is written: a suggestion is never a vote or a decision.

`categorise(session=, run_id=)` or `categorise(session=, review=)` gives `CategorisedMistake`s;
`error_type_shares(rows)` the shares of each error type and severity among them (the report's
per-run error types, issue 37), counting the panel's and the published answers where they exist
and the suggestions elsewhere, with how many answers of each error type and severity came from
each source.

A mistake the panel judged not to be one (its final decision says the prediction is correct or
unclear), or one on an image whose ground truth is problematic (the paper leaves those out before
it categorises, as `reviewer.review.reviewed_mistakes` does), is listed but not counted
(`CategorisedMistake.counted`).

In bulk, for the report and the export: the labels and the evidence of a run's thousands of
mistakes are read at once (`suggest_many`), and what depends on the panel is kept apart from what
does not: `suggested_run` (the suggestions, a table that a vote leaves as it is, so the report
keeps it per run) and `answered` (the panel's and the published answers put on it).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

from reviewer.review.suggest import ErrorType, Suggestion, SuggestionFacts, suggest
from reviewer.terms import StrEnum

if TYPE_CHECKING:
    import pandas as pd
    from sqlmodel import Session

    from reviewer.labels.labelset import LabelSet


class AnswerSource(StrEnum):
    """Where a mistake's category and severity come from."""

    PANEL = "panel"  # the panel's final decision (verdict wrong, with its category and severity)
    PUBLISHED = "published"  # an imported review of the same image and prediction
    SUGGESTED = "suggested"  # the categoriser's suggestion: no one has decided it


ERROR_TYPES = tuple(str(t) for t in ErrorType)
SEVERITIES = ("major", "minor")
SOURCES = tuple(str(s) for s in AnswerSource)


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
    # False: no longer a mistake (the panel judged the prediction correct or unclear, or the image's
    # ground truth is problematic): listed, not counted in the shares.
    counted: bool = True

    def as_dict(self) -> dict:
        from reviewer.classes.vocabulary import load_classes

        return {"model": self.model, "run_id": self.run_id, "image_id": self.image_id, "file_name": self.file_name,
                "predicted": self.predicted, "predicted_name": load_classes().names[self.predicted],
                "error_type": self.error_type, "severity": self.severity, "source": str(self.source),
                "counted": self.counted,
                "suggestion": None if self.suggestion is None else self.suggestion.as_dict()}


def _severity(value) -> str | None:
    if value is None or value != value:
        return None
    return "major" if str(value) == "major" else "minor"


def _category(value) -> str | None:
    return None if value is None or value != value else str(value)


@dataclass(frozen=True)
class DecidedAnswers:
    """What was decided about mistakes, by (image id, predicted class): the panel's final
    decisions (verdict, category, severity), every imported review's items (category,
    severity), and the images whose ground truth is problematic."""

    panel: dict[tuple[int, int], tuple[str, str | None, str | None]]
    published: dict[tuple[int, int], tuple[str | None, str | None]]
    problematic: frozenset[int]


def decided_answers(*, session: Session, decisions: pd.DataFrame | None = None) -> DecidedAnswers:
    """The decided answers (`DecidedAnswers`); `decisions`: `decisions_table`, read when not given."""
    from reviewer.panel.final import decisions_table
    from reviewer.review.reviewed_mistakes import imported_review_items, problematic_images

    decisions = decisions_table(session=session) if decisions is None else decisions
    panel = {(int(i), int(p)): (str(v), _category(c), _severity(s)) for i, p, v, c, s in zip(
        decisions["image_id"], decisions["predicted"], decisions["verdict"], decisions["category"],
        decisions["severity"])}
    published: dict = {}
    items = imported_review_items(session=session)
    for i, p, c, s in zip(items["image_id"], items["predicted"], items["category"], items["severity"]):
        published.setdefault((int(i), int(p)), (_category(c), _severity(s)))
    return DecidedAnswers(panel, published, frozenset(problematic_images(session=session, decisions=decisions)))


def answer_for(key: tuple[int, int], suggestion: tuple[str | None, str | None], decided: DecidedAnswers, *,
               published: dict | None = None) -> tuple[str | None, str | None, AnswerSource, bool]:
    """(error type, severity, source, counted) of one mistake: the panel's final decision where
    there is one, else the published answer (`published`: a review's own items, which then stand
    for the whole of `decided.published`), else the suggestion (error type, severity)."""
    counted = key[0] not in decided.problematic
    panel = decided.panel.get(key)
    if panel is not None:
        verdict, category, severity = panel
        if verdict != "wrong":
            return None, None, AnswerSource.PANEL, False
        return category, severity, AnswerSource.PANEL, counted
    found = (decided.published if published is None else published).get(key)
    if found is not None:
        return found[0], found[1], AnswerSource.PUBLISHED, counted
    return suggestion[0], suggestion[1], AnswerSource.SUGGESTED, counted


# -- suggestions in bulk ------------------------------------------------------------------
@dataclass(frozen=True)
class MistakeToSuggest:
    """What a suggestion of one mistake reads besides the labels and the evidence."""

    image_id: int
    file_name: str
    predicted: int
    original: int | None
    probability: float | None = None


def _label_lists(labels: LabelSet, positions) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
    """{position: (its correct classes, its wrong ones), each sorted} of the given positions, in
    one pass over the label rows (`LabelSet.labels_of` reads them all once per image)."""
    import numpy as np

    from reviewer.labels.labelset import CORRECT, WRONG

    wanted = np.unique(np.asarray([p for p in positions if p >= 0], dtype=np.int64))
    if not len(wanted):
        return {}
    chosen = np.flatnonzero(np.isin(labels.rows, wanted))
    order = chosen[np.lexsort((labels.classes[chosen], labels.rows[chosen]))]
    out: dict[int, tuple[list, list]] = {}
    for row, cls, kind in zip(labels.rows[order].tolist(), labels.classes[order].tolist(),
                              labels.kinds[order].tolist()):
        if kind == CORRECT:
            out.setdefault(row, ([], []))[0].append(cls)
        elif kind == WRONG:
            out.setdefault(row, ([], []))[1].append(cls)
    return {row: (tuple(correct), tuple(wrong)) for row, (correct, wrong) in out.items()}


@dataclass
class SuggestionMemo:
    """What one read keeps between the runs it suggests for (a report's, an export's): each
    mistake's suggestion, by (image, prediction, probability), and each image's evidence rows."""

    suggestions: dict = field(default_factory=dict)
    evidence_rows: dict = field(default_factory=dict)


def suggest_many(session: Session, mistakes: Sequence[MistakeToSuggest], *, labels: LabelSet,
                 probabilities: bool = True, memo: SuggestionMemo | None = None) -> list[Suggestion | None]:
    """The suggestion of each mistake, as `suggest` gives it one at a time (the image's correct
    labels before the review, its original label where it has none, the labels marked wrong on it,
    every imported evidence source), reading the labels and the evidence of all of them at once.

    `probabilities` False: the model's probability is left out of the reasons (it decides
    nothing), so that `memo`, kept between calls of one read, serves a (image, prediction) that
    another run made too; it keeps the images' evidence rows too."""
    import numpy as np

    from reviewer.evidence import evidence_for_many

    memo = SuggestionMemo() if memo is None else memo
    known = memo.suggestions
    out: list[Suggestion | None] = [None] * len(mistakes)
    todo = []
    for index, m in enumerate(mistakes):
        key = (m.image_id, m.predicted, m.probability if probabilities else None)
        if key in known:
            out[index] = known[key]
        else:
            todo.append((index, key, m))
    if not todo:
        return out
    positions = labels.positions(np.array([m.image_id for _, _, m in todo], dtype=np.int64)).tolist()
    lists = _label_lists(labels, positions)
    # The lines' words are not read by any rule: left out, they cost most of the time.
    lines = evidence_for_many(session, [(m.file_name, m.predicted, m.original) for _, _, m in todo], texts=False,
                              rows=memo.evidence_rows)
    for (index, key, m), position in zip(todo, positions):
        correct, wrong = lists.get(position, ((), ()))
        targets = correct or ((m.original,) if m.original is not None else ())
        found = suggest(SuggestionFacts(m.predicted, targets, tuple(lines[(m.file_name, m.predicted, m.original)]),
                                        wrong=wrong or None, probability=m.probability if probabilities else None))
        known[key] = out[index] = found
    return out


def run_mistakes(session: Session, run_id: int) -> tuple[str, list[MistakeToSuggest]]:
    """(the run's model, its stored mistakes in image order, as `suggest_many` reads them)."""
    from sqlalchemy import select

    from db.tables import Model, Run
    from reviewer.runs.mistakes import stored_mistakes

    model = session.execute(select(Model.name).join(Run, Run.model_id == Model.id)
                            .where(Run.id == run_id)).scalar_one_or_none()
    if model is None:
        raise KeyError(f"no run {run_id}")
    return model, [MistakeToSuggest(int(m.image_id), m.file_name, int(m.predicted),
                                    None if m.original_label is None else int(m.original_label), m.probability)
                   for m in stored_mistakes(session=session, run_id=run_id)]


def _review_mistakes(session: Session, review: str) -> tuple[dict, list[MistakeToSuggest]]:
    """(the review's own items {(image, predicted): (category, severity)}, its mistakes in image order)."""
    from sqlalchemy import select

    from db.tables import Image
    from reviewer.review.reviewed_mistakes import imported_review_items

    frame = imported_review_items(session=session)
    frame = frame[frame["model"] == review]
    if frame.empty:
        raise KeyError(f"no imported review of a model named {review!r}")
    ids = sorted({int(i) for i in frame["image_id"]})
    images = {i: (name, original) for i, name, original in session.execute(
        select(Image.id, Image.file_name, Image.original_label).where(Image.id.in_(ids))).all()}
    items = sorted((int(i), int(p)) for i, p in zip(frame["image_id"], frame["predicted"]))
    published = {(int(i), int(p)): (_category(c), _severity(s)) for i, p, c, s in zip(
        frame["image_id"], frame["predicted"], frame["category"], frame["severity"])}
    return published, [MistakeToSuggest(i, images[i][0], p, None if images[i][1] is None else int(images[i][1]))
                       for i, p in items]


def categorise(*, session: Session, run_id: int | None = None, review: str | None = None,
               labels: LabelSet | None = None, decisions: pd.DataFrame | None = None,
               probabilities: bool = True, memo: SuggestionMemo | None = None) -> list[CategorisedMistake]:
    """Every mistake of the run (its stored mistakes) or of the imported review named `review`
    (its model's name), in image order, categorised (module docstring). `labels` (before the
    review) and `decisions` (`decisions_table`) are read when not given; `probabilities` False
    leaves the model's probability out of the reasons, and `memo` then serves what another run
    made too (`suggest_many`)."""
    from reviewer.labels.reviewed import reviewed_labelset

    if (run_id is None) == (review is None):
        raise ValueError("give a run or a review")
    labels = reviewed_labelset(session=session, after_review=False) if labels is None else labels
    decided = decided_answers(session=session, decisions=decisions)
    if run_id is not None:
        model, mistakes = run_mistakes(session, run_id)
        own = None
    else:
        (own, mistakes), model = _review_mistakes(session, review), review
    found = suggest_many(session, mistakes, labels=labels, probabilities=probabilities, memo=memo)
    out = []
    for m, suggestion in zip(mistakes, found):
        said = (None, None) if suggestion is None else (str(suggestion.error_type), str(suggestion.severity))
        error_type, severity, source, counted = answer_for((m.image_id, m.predicted), said, decided, published=own)
        out.append(CategorisedMistake(model, run_id, m.image_id, m.file_name, m.predicted, error_type, severity,
                                      source, suggestion, counted))
    return out


SUGGESTED_COLUMNS = ["image_id", "predicted", "error_type", "severity", "category_rule", "severity_rule"]


def suggested_run(*, session: Session, run_id: int, labels: LabelSet, memo: SuggestionMemo | None = None
                  ) -> pd.DataFrame:
    """The suggestion of every stored mistake of the run, panel aside (`SUGGESTED_COLUMNS`, in
    image order; None where the image has no label to compare with): what a vote leaves as it is."""
    import pandas as pd

    _, mistakes = run_mistakes(session, run_id)
    found = suggest_many(session, mistakes, labels=labels, probabilities=False, memo=memo)
    rows = [(m.image_id, m.predicted) + ((None,) * 4 if s is None else (
        str(s.error_type), str(s.severity), str(s.category_rule), str(s.severity_rule)))
        for m, s in zip(mistakes, found)]
    frame = pd.DataFrame(rows, columns=SUGGESTED_COLUMNS, dtype=object)
    return frame.astype({"image_id": "int64", "predicted": "int64"})


def answered(suggested: pd.DataFrame, decided: DecidedAnswers) -> pd.DataFrame:
    """`suggested_run`'s table with the answer counted for each mistake: error_type, severity,
    source and counted (`answer_for`), the suggestion's own in suggested_error_type and
    suggested_severity."""
    rows = [answer_for((i, p), (t, s), decided) for i, p, t, s in zip(
        suggested["image_id"].tolist(), suggested["predicted"].tolist(), suggested["error_type"].tolist(),
        suggested["severity"].tolist())]
    import pandas as pd

    out = suggested.rename(columns={"error_type": "suggested_error_type", "severity": "suggested_severity"})
    # Object columns: a missing answer stays None (pandas would read it as a missing string, NaN).
    out["error_type"] = pd.Series([r[0] for r in rows], index=out.index, dtype=object)
    out["severity"] = pd.Series([r[1] for r in rows], index=out.index, dtype=object)
    out["source"] = [str(r[2]) for r in rows]
    out["counted"] = [r[3] for r in rows]
    return out


def error_type_shares(rows: Iterable[CategorisedMistake] | pd.DataFrame) -> dict:
    """The shares of each error type and severity among the counted mistakes, each with its count
    and its counts by source, and how many answers came from the panel, a published review or the
    suggestion. `rows`: `categorise`'s, or `answered`'s table."""
    if hasattr(rows, "columns"):
        records = [(_category(t), _category(s), source, bool(c)) for t, s, source, c in zip(
            rows["error_type"], rows["severity"], rows["source"], rows["counted"])]
    else:
        records = [(r.error_type, r.severity, str(r.source), r.counted) for r in rows]
    counted = [(t, s, str(source)) for t, s, source, keep in records if keep]
    types = Counter((t, source) for t, _, source in counted if t is not None)
    severities = Counter((s, source) for _, s, source in counted if s is not None)
    typed, rated = sum(types.values()), sum(severities.values())

    def entry(counts: Counter, level: str, total: int) -> dict:
        by_source = {source: counts.get((level, source), 0) for source in SOURCES}
        count = sum(by_source.values())
        return {"count": count, "share": count / total if total else None, "by_source": by_source}

    sources = Counter(source for _, _, source in counted)
    return {"mistakes": len(records), "counted": len(counted), "not_counted": len(records) - len(counted),
            "sources": {source: sources.get(source, 0) for source in SOURCES},
            "error_types": {t: entry(types, t, typed) for t in ERROR_TYPES},
            "severity": {s: entry(severities, s, rated) for s in SEVERITIES},
            "unrated": {"error_type": len(counted) - typed, "severity": len(counted) - rated}}
