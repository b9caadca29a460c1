"""A suggested failure category and severity for a mistake, from what the tool knows, with its
reasons in one line and a confidence. A suggestion is shown beside the vote, never cast: a vote is
always the panelist's own key press, and nothing of it is stored as the panel's.

The categories and severities are the paper's (Vasudevan et al. 2022, "When does dough become a
bagel? Analyzing the remaining mistakes on ImageNet", §3.2): fine-grained (two similar kinds,
one of them a label), fine-grained with an out-of-vocabulary object (an object outside
ImageNet's classes that resembles the prediction), spurious correlation (the predicted object
is not there; cues around it were used), non-prototypical (the labelled object is an unusual
example of its class); major (a human who knows the classes would find it obviously wrong) or
minor (wrong in a subtler way). A fifth answer, "no explanation found", is Peychev et al.'s
model failure (NeurIPS 2023): nothing the tool reads explains the mistake. The vote buttons
only know the paper's four, so such a suggestion still outlines the likeliest of them
(`Suggestion.category`, fine-grained) while `Suggestion.error_type` says no explanation found.

The rules, the first that applies (each names what it read); the confidence of each is the share
of the fitting half's mistakes it decided on which the panel agreed (`FITTED`):

category
  1. near: WordNet distance to the nearest correct label at most 2, or both classes in one of
     Flaws of ImageNet's groups of overlapping classes: fine-grained.
  2. superclass: both classes in one fine-grained superclass built from WordNet
     (`reviewer.review.superclasses`, like Peychev et al.'s 161): fine-grained.
  3. busy scene: the TFDS v3 annotators rejected at least `BUSY_WRONG` candidate labels on the
     image (the predictions of the models they were shown): many objects and cues, the
     prediction one of them: spurious correlation.
  4. (not measured) far from its class: the index's nearest training images (`reviewer index`)
     are computed and none is labelled with a correct label: non-prototypical.
  5. otherwise: no explanation found (the likeliest of the four: fine-grained).
severity
  1. organisms: both classes are living things of one superclass: minor.
  2. several objects: the image holds several labelled objects and the prediction is none of
     them: major.
  3. plausible: at least 2 of ReaL's raters answered yes or maybe to the prediction, a
     published relabeling accepts it, cleanlab flagged the image's label, or both classes are
     in one class group: minor.
  4. (not measured) the image is a duplicate of a training image labelled with the prediction,
     or a crop of a complete zoom probe corrects it: minor.
  5. otherwise: major (a complete zoom probe none of whose crops corrects it is named).

The model's own softmax, where a run has it, is named in the reasons ("the model gave it 41 %")
and decides nothing: the published reviews come without model outputs, so no rule on it could
be measured. Class co-occurrence (the prediction beside the label in other images' ReaL or
TFDS labels, Peychev et al.'s spurious correlation) was measured on the fitting half and did not
tell spurious correlations apart (docs/suggestions.md); it decides nothing either.

The rules, their order and thresholds were chosen on one half of the 627 published mistakes
(the images whose file name's SHA-256 is even) and measured once on the other half:
docs/suggestions.md, `python bench/bench_suggestions.py`. One more rule was chosen there and
dropped after that measurement, because it did worse than saying fine-grained on the held-out
half (10 of 49 right against 26 of 51 on the fitting half): cleanlab flagged the label, or
ImageNet-X's main factor is the background -> fine-grained with an out-of-vocabulary object. So no
measured rule says out-of-vocabulary object or non-prototypical example: nothing here told them
apart on both halves.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from reviewer.classes.vocabulary import load_classes
from reviewer.classes.wordnet import hierarchy_distance, is_organism, load_hierarchy
from reviewer.evidence.kinds import source_title
from reviewer.evidence.lines import EvidenceLine
from reviewer.evidence.verdicts import ACCEPTS, rater_counts
from reviewer.review.superclasses import same_superclass, superclass_name
from reviewer.terms import Category, Severity, StrEnum

if TYPE_CHECKING:
    from sqlmodel import Session

    from reviewer.runs.zoom.result import ZoomSummary

NEAR = 2  # at most this WordNet distance: fine-grained
BUSY_WRONG = 10  # candidate labels the TFDS annotators rejected on the image, at least: a busy scene
RATERS_FOR_MINOR = 2  # ReaL raters answering yes or maybe to the prediction


class ErrorType(StrEnum):
    """What the categoriser finds: the paper's four categories, or no explanation (a model failure)."""

    FINE_GRAINED = "fine_grained"
    FINE_GRAINED_OOV = "fine_grained_oov"
    SPURIOUS_CORRELATION = "spurious_correlation"
    NON_PROTOTYPICAL = "non_prototypical"
    NO_EXPLANATION = "no_explanation"

    @property
    def caption(self) -> str:
        return "No explanation found" if self is ErrorType.NO_EXPLANATION else Category(self.value).caption


class Rule(StrEnum):
    """The rule that chose a suggestion's category or severity (module docstring)."""

    NEAR = "near"  # WordNet distance at most NEAR: fine-grained
    CLASS_GROUP = "class_group"  # one group of overlapping classes: fine-grained
    SUPERCLASS = "superclass"  # one WordNet superclass: fine-grained
    BUSY_SCENE = "busy_scene"  # many candidate labels rejected on the image: spurious correlation
    FAR_FROM_CLASS = "far_from_class"  # no nearest training image of a label: non-prototypical (not measured)
    NO_EXPLANATION = "no_explanation"  # nothing explains it: model failure (fine-grained the likeliest)
    ORGANISMS = "organisms"  # living things of one superclass: minor
    SEVERAL_OBJECTS = "several_objects"  # several labelled objects, none predicted: major
    PLAUSIBLE = "plausible"  # some source finds the prediction plausible: minor
    DUPLICATE = "duplicate"  # a training duplicate labelled with the prediction: minor (not measured)
    ZOOM = "zoom"  # a crop of a complete zoom probe corrects it: minor (not measured)
    OTHERWISE = "otherwise"  # nothing else applies: major

    @property
    def measured(self) -> bool:
        """Measured on the published reviews (the index and the zoom probe cannot be)."""
        return self not in (Rule.DUPLICATE, Rule.ZOOM, Rule.FAR_FROM_CLASS)


# On the fitting half (331 mistakes): (the panel agreed, decided) for each rule, as
# `python bench/bench_suggestions.py` prints them; the confidence of a suggestion is their ratio.
FITTED: dict[Rule, tuple[int, int]] = {
    Rule.NEAR: (147, 174), Rule.CLASS_GROUP: (7, 11), Rule.SUPERCLASS: (30, 42),
    Rule.BUSY_SCENE: (15, 41), Rule.NO_EXPLANATION: (26, 63),
    Rule.ORGANISMS: (117, 146), Rule.SEVERAL_OBJECTS: (51, 74), Rule.PLAUSIBLE: (42, 59),
    Rule.OTHERWISE: (33, 52),
}


def confidence_of(rule: Rule) -> float | None:
    """The share of the fitting half's mistakes the rule decided on which the panel agreed (None: not measured)."""
    agreed, decided = FITTED.get(rule, (0, 0))
    return agreed / decided if decided else None


@dataclass(frozen=True)
class SuggestionFacts:
    """What a suggestion is made from: the prediction, the image's correct labels (its
    original label where it has none), the evidence lines (`reviewer.evidence.evidence_for`,
    ImageNet-X's among them), where computed the zoom probe's summary and the image's
    neighbours (`reviewer.neighbours.lookup.NeighbourFacts`), the labels marked wrong on the
    image (None: read from the TFDS evidence line where there is one) and the model's
    probability of its prediction (None: no run)."""

    predicted: int
    labels: tuple[int, ...]
    evidence: tuple[EvidenceLine, ...] = ()
    zoom: ZoomSummary | None = None
    neighbours: object | None = None
    wrong: tuple[int, ...] | None = None
    probability: float | None = None


@dataclass(frozen=True)
class Suggestion:
    """A suggested category and severity, each with the rule that chose it and its reasons.
    `category` is one of the paper's four (the vote's buttons); `error_type` is what the
    categoriser found, "no explanation found" among them."""

    category: Category
    severity: Severity
    category_reasons: tuple[str, ...]
    severity_reasons: tuple[str, ...]
    category_rule: Rule = Rule.NO_EXPLANATION
    severity_rule: Rule = Rule.OTHERWISE

    @property
    def error_type(self) -> ErrorType:
        return ErrorType.NO_EXPLANATION if self.category_rule is Rule.NO_EXPLANATION else ErrorType(self.category.value)

    @property
    def measured(self) -> bool:
        """False where a rule not measured on the published reviews (zoom probe, index) decided."""
        return self.category_rule.measured and self.severity_rule.measured

    @property
    def category_confidence(self) -> float | None:
        return confidence_of(self.category_rule)

    @property
    def severity_confidence(self) -> float | None:
        return confidence_of(self.severity_rule)

    @property
    def reasons(self) -> str:
        """Why, in one line, beside the suggestion's own words: the category's reasons, then
        'minor: ...' or 'major: ...'."""
        severity = f"{self.severity.caption.lower()}: {', '.join(self.severity_reasons)}"
        return f"{', '.join(self.category_reasons)}; {severity}"

    @property
    def caption(self) -> str:
        """'Fine-grained', or 'No explanation found (likeliest: Fine-grained)'."""
        if self.error_type is ErrorType.NO_EXPLANATION:
            return f"No explanation found (likeliest: {self.category.caption})"
        return self.category.caption

    @property
    def line(self) -> str:
        """The suggestion and its reasons in one line: 'Fine-grained: WordNet distance 1 ...; minor: ...'."""
        return f"{self.caption}: {self.reasons}"

    def as_dict(self) -> dict:
        return {"category": str(self.category), "error_type": str(self.error_type), "severity": str(self.severity),
                "reasons": self.reasons, "line": self.line,
                "category_reasons": list(self.category_reasons), "severity_reasons": list(self.severity_reasons),
                "category_rule": str(self.category_rule), "severity_rule": str(self.severity_rule),
                "category_confidence": _rounded(self.category_confidence),
                "severity_confidence": _rounded(self.severity_confidence),
                "measured": self.measured}


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def suggest(facts: SuggestionFacts) -> Suggestion | None:
    """The suggestion for one mistake (module docstring); None when the image has no label to
    compare the prediction with."""
    if not facts.labels:
        return None
    relation = _nearest(facts.predicted, facts.labels)
    evidence = _Evidence(facts.evidence, facts.predicted)
    category_rule, category, category_reasons = _category(facts, relation, evidence)
    severity_rule, severity, severity_reasons = _severity(facts, relation, evidence)
    if facts.probability is not None and facts.probability == facts.probability:
        category_reasons.append(f"the model gave it {100 * facts.probability:.0f} %")
    return Suggestion(category, severity, tuple(category_reasons), tuple(severity_reasons), category_rule,
                      severity_rule)


@dataclass(frozen=True)
class _Relation:
    label: int
    distance: int
    ancestor: str
    same_superclass: bool


def _nearest(predicted: int, labels: Sequence[int]) -> _Relation:
    label = min(labels, key=lambda c: (hierarchy_distance(predicted, c).distance, list(labels).index(c)))
    relation = hierarchy_distance(predicted, label)
    return _Relation(int(label), relation.distance, load_hierarchy().name(relation.common_ancestors[0]),
                     any(same_superclass(predicted, c) for c in labels))


def _name(cls: int) -> str:
    return load_classes().names[cls]


class _Evidence:
    """What the evidence lines say, as the rules ask it."""

    def __init__(self, lines: Iterable[EvidenceLine], predicted: int) -> None:
        self.by_kind: dict[str, list[dict]] = {}
        for line in lines:
            self.by_kind.setdefault(line.data.get("kind"), []).append(line.data)
        self.predicted = predicted

    def _first(self, kind: str) -> dict | None:
        return (self.by_kind.get(kind) or [None])[0]

    def raters_for(self) -> tuple[int, int, int] | None:
        """ReaL's crowd on the prediction: (no, maybe, yes), None when not asked or not imported."""
        real = self._first("real_labels")
        payload = (real or {}).get("raters") or ((self._first("real_raters") or {}).get("row"))
        return rater_counts(payload, self.predicted) if payload else None

    def accepting(self) -> list[str]:
        """The sources that accept the prediction (`reviewer.evidence.verdicts`)."""
        return [source_title(data["kind"], data.get("file_name", "")) for datas in self.by_kind.values()
                for data in datas if data.get("verdict") == ACCEPTS]

    def cleanlab_flagged(self) -> bool:
        return bool((self._first("cleanlab") or {}).get("covered"))

    def same_group(self) -> bool:
        return any(data.get("same_group") for data in self.by_kind.get("class_groups", ()))

    def tfds_wrong(self) -> list[int] | None:
        """The labels the TFDS v3 annotators marked wrong on the image (None: not imported as evidence)."""
        row = (self._first("tfds_multilabel") or {}).get("row")
        return None if row is None else list(row.get("wrong") or ())


def _category(facts: SuggestionFacts, relation: _Relation, evidence: _Evidence) -> tuple[Rule, Category, list[str]]:
    predicted, label, distance = _name(facts.predicted), _name(relation.label), relation.distance
    where = f"WordNet distance {distance} to {label} (both a kind of {relation.ancestor})"
    if distance <= NEAR:
        return Rule.NEAR, Category.FINE_GRAINED, [where]
    if evidence.same_group():
        return Rule.CLASS_GROUP, Category.FINE_GRAINED, [
            f"{predicted} and {label} are in one group of overlapping classes (Flaws of ImageNet)"]
    if relation.same_superclass:
        return Rule.SUPERCLASS, Category.FINE_GRAINED, [
            f"{predicted} and {label} are both a kind of {superclass_name(facts.predicted)} (one superclass)", where]
    wrong = facts.wrong if facts.wrong is not None else evidence.tfds_wrong()
    if wrong is not None and len(wrong) >= BUSY_WRONG:
        return Rule.BUSY_SCENE, Category.SPURIOUS_CORRELATION, [
            f"a busy image: its annotators rejected {len(wrong)} candidate labels", f"{predicted} perhaps from the "
            f"scene around {label} (WordNet distance {distance})"]
    neighbours = getattr(facts.neighbours, "neighbours", ()) if getattr(facts.neighbours, "computed", False) else ()
    if neighbours:
        wnids = load_classes().wnids
        own = {wnids[c] for c in facts.labels}
        if not any(n.wnid in own for n in neighbours):
            return Rule.FAR_FROM_CLASS, Category.NON_PROTOTYPICAL, [
                f"none of its {len(neighbours)} nearest training images is labelled {label}: an unusual {label}"]
    return Rule.NO_EXPLANATION, Category.FINE_GRAINED, [
        where, "no source points to a category (fine-grained, the commonest, is outlined)"]


def _severity(facts: SuggestionFacts, relation: _Relation, evidence: _Evidence) -> tuple[Rule, Severity, list[str]]:
    predicted = _name(facts.predicted)
    if relation.same_superclass and is_organism(facts.predicted) and is_organism(relation.label):
        return Rule.ORGANISMS, Severity.MINOR, [
            f"living things of one superclass, {superclass_name(facts.predicted)}"]
    if len(facts.labels) > 1:
        return Rule.SEVERAL_OBJECTS, Severity.MAJOR, [f"{len(facts.labels)} labelled objects, none {predicted}"]
    plausible = []
    counts = evidence.raters_for()
    if counts is not None and counts[1] + counts[2] >= RATERS_FOR_MINOR:
        no, maybe, yes = counts
        plausible.append(f"ReaL raters {yes} yes, {maybe} maybe, {no} no on {predicted}")
    accepting = list(dict.fromkeys(evidence.accepting()))
    if accepting:
        plausible.append(f"{', '.join(accepting)} accept{'s' if len(accepting) == 1 else ''} {predicted}")
    if evidence.cleanlab_flagged():
        plausible.append("cleanlab flagged the image's label")
    if evidence.same_group():
        plausible.append("one group of overlapping classes")
    if plausible:
        return Rule.PLAUSIBLE, Severity.MINOR, plausible
    wnid = load_classes().wnids[facts.predicted]
    duplicates = [d for d in getattr(facts.neighbours, "training_duplicates", ()) if getattr(d, "wnid", None) == wnid]
    if duplicates:
        return Rule.DUPLICATE, Severity.MINOR, [f"{duplicates[0].kind} duplicate of a training image labelled "
                                                f"{predicted}"]
    zoom = facts.zoom
    if zoom is not None and zoom.complete and zoom.corrected:
        return Rule.ZOOM, Severity.MINOR, [f"a crop of the zoom probe corrects it ({zoom.total} crops)"]
    reasons = [f"WordNet distance {relation.distance}, nothing finds {predicted} plausible"]
    if zoom is not None and zoom.complete:
        reasons.append(f"no crop of the zoom probe corrects it ({zoom.total} crops)")
    return Rule.OTHERWISE, Severity.MAJOR, reasons


# -- the published reviews ----------------------------------------------------------------
def fitting_half(file_name: str) -> bool:
    """Whether an image is in the half of the published reviews the rules were chosen on (its
    file name's SHA-256, read as a number, is even); the other half measures them."""
    return int(hashlib.sha256(file_name.encode("utf-8")).hexdigest(), 16) % 2 == 0


@dataclass(frozen=True)
class ReviewedSuggestion:
    """A reviewed mistake (`reviewed_mistakes`), what its review decided and what is suggested."""

    model: str
    file_name: str
    predicted: int
    category: Category
    severity: Severity  # as reviewed; Borderline is the paper's minor (§4.1), kept as published
    suggestion: Suggestion | None


def suggest_reviewed(*, session: Session) -> list[ReviewedSuggestion]:
    """The suggestion for every reviewed mistake of the project (published reviews and the panel's
    decisions), from its labels before the review and every imported evidence source."""
    import pandas as pd

    from reviewer.evidence import evidence_for
    from reviewer.labels.reviewed import reviewed_labelset
    from reviewer.review.reviewed_mistakes import reviewed_mistakes

    frame = reviewed_mistakes(session=session)
    labels = reviewed_labelset(session=session, after_review=False)
    positions = labels.positions(frame["image_id"].to_numpy(dtype="int64"))
    out = []
    for row, position in zip(frame.itertuples(index=False), positions.tolist()):
        if pd.isna(row.category) or pd.isna(row.severity):
            continue
        original = None if row.original_label < 0 else int(row.original_label)
        known = labels.labels_of(position) if position >= 0 else {"correct": [], "wrong": []}
        targets = tuple(known["correct"]) or ((original,) if original is not None else ())
        lines = tuple(evidence_for(session, row.file_name, int(row.predicted), original))
        found = suggest(SuggestionFacts(int(row.predicted), targets, lines, wrong=tuple(known["wrong"]) or None))
        out.append(ReviewedSuggestion(str(row.model), str(row.file_name), int(row.predicted),
                                      Category(row.category), Severity(row.severity), found))
    return out
