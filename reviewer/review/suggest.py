"""A suggested failure category and severity for a mistake, from what the tool knows, with its
reasons in one line. A suggestion is shown beside the vote, never cast: a vote is always the
panelist's own key press.

The categories and severities are the paper's (Vasudevan et al. 2022, "When does dough become a
bagel? Analyzing the remaining mistakes on ImageNet", §3.2): fine-grained (two similar kinds,
one of them a label), fine-grained with an out-of-vocabulary object (an object outside
ImageNet's classes that resembles the prediction), spurious correlation (the predicted object
is not there; cues around it were used), non-prototypical (the labelled object is an unusual
example of its class); major (a human who knows the classes would find it obviously wrong) or
minor (wrong in a subtler way).

The rules, the first that applies (each names what it read):

category
  1. WordNet distance to the nearest correct label at most 2 (same parent or grandparent), or
     both classes in one of Flaws of ImageNet's groups of overlapping classes: fine-grained.
     The paper (§4.1): 80.9 % of its distance-1 mistakes were fine-grained.
  2. WordNet distance at least 5: fine-grained with an out-of-vocabulary object (nothing in
     the labels resembles the prediction).
  3. Otherwise fine-grained, the paper's commonest category (78 % of the ViT-3B mistakes).
severity
  1. Minor when anything says the prediction is plausible: at least 2 of ReaL's raters answered
     yes or maybe to it, a published relabeling accepts it, cleanlab flagged the image's label,
     both classes are in one class group, or (not measured) the image is a duplicate of a
     training image labelled with the prediction.
  2. Major when the prediction is far from every label (WordNet distance at least 3), the
     image holds several labelled objects and the prediction is none of them, or (not
     measured) no crop of a complete zoom probe corrects it.
  3. Otherwise minor.

The thresholds (distances 2, 3 and 5, two raters) and the choice of rules were made on one half
of the 627 published mistakes (the images whose file name's SHA-256 is even) and measured on
the other half: docs/suggestions.md, `python bench/bench_suggestions.py`. The rules first chosen
there also read ImageNet-X: "multiple objects" made a spurious correlation, "subcategory",
"texture" or "style" a non-prototypical example (after the near rule, before the far one). On
the held-out half those two rules agreed with the panel on 5 of the 34 mistakes they decided,
so they were dropped; `suggest(..., imagenet_x_rules=True)` keeps them to reproduce that
figure, and the figures of the rules without them on the held-out half are no longer an
unbiased estimate (the docs say so). ImageNet-X's factors stay in the evidence beside the vote.
The zoom probe and the duplicates cannot be measured on the published reviews (they come
without images or the models' crops), so they only decide where nothing measured does.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from reviewer.classes.vocabulary import load_classes
from reviewer.classes.wordnet import hierarchy_distance, load_hierarchy
from reviewer.evidence.imagenet_x import FACTORS
from reviewer.evidence.kinds import source_title
from reviewer.evidence.lines import EvidenceLine
from reviewer.evidence.verdicts import ACCEPTS, rater_counts
from reviewer.terms import Category, Severity, StrEnum

if TYPE_CHECKING:
    from sqlmodel import Session

    from reviewer.runs.zoom.result import ZoomSummary

NEAR = 2  # at most this WordNet distance: fine-grained
FAR_FOR_SEVERITY = 3  # at least this distance: major, unless something says the prediction is plausible
FAR_FOR_OOV = 5  # at least this distance (and no ImageNet-X factor above): an out-of-vocabulary object
RATERS_FOR_MINOR = 2  # ReaL raters answering yes or maybe to the prediction
CONTEXT_FACTORS = ("multiple_objects",)  # the first rules' spurious correlation (dropped, module docstring)
UNUSUAL_FACTORS = ("subcategory", "texture", "style")  # their non-prototypical example (dropped too)


class Rule(StrEnum):
    """The rule that chose a suggestion's category or severity (module docstring)."""

    NEAR = "near"  # WordNet distance at most NEAR: fine-grained
    CLASS_GROUP = "class_group"  # one group of overlapping classes: fine-grained
    CONTEXT = "context"  # ImageNet-X "multiple objects": spurious correlation (first rules only)
    UNUSUAL = "unusual"  # ImageNet-X subcategory, texture or style: non-prototypical (first rules only)
    FAR = "far"  # far in WordNet: out-of-vocabulary object (category), major (severity)
    PLAUSIBLE = "plausible"  # some source finds the prediction plausible: minor
    DUPLICATE = "duplicate"  # a training duplicate labelled with the prediction: minor (not measured)
    ZOOM = "zoom"  # no crop of a complete zoom probe corrects it: major (not measured)
    OTHERWISE = "otherwise"  # nothing else applies: fine-grained, minor

    @property
    def measured(self) -> bool:
        """Measured on the published reviews (the zoom probe and duplicates cannot be)."""
        return self not in (Rule.DUPLICATE, Rule.ZOOM)


@dataclass(frozen=True)
class SuggestionFacts:
    """What a suggestion is made from: the prediction, the image's correct labels (its
    original label where it has none), the evidence lines (`reviewer.evidence.evidence_for`,
    ImageNet-X's among them), and where computed the zoom probe's summary and the image's
    neighbours (`reviewer.neighbours.lookup.NeighbourFacts`)."""

    predicted: int
    labels: tuple[int, ...]
    evidence: tuple[EvidenceLine, ...] = ()
    zoom: ZoomSummary | None = None
    neighbours: object | None = None


@dataclass(frozen=True)
class Suggestion:
    """A suggested category and severity, each with the rule that chose it and its reasons."""

    category: Category
    severity: Severity
    category_reasons: tuple[str, ...]
    severity_reasons: tuple[str, ...]
    category_rule: Rule = Rule.OTHERWISE
    severity_rule: Rule = Rule.OTHERWISE

    @property
    def measured(self) -> bool:
        """False where a rule not measured on the published reviews (zoom probe, duplicates) decided."""
        return self.category_rule.measured and self.severity_rule.measured

    @property
    def reasons(self) -> str:
        """Why, in one line, beside the suggestion's own words: the category's reasons, then
        'minor: ...' or 'major: ...'."""
        severity = f"{self.severity.caption.lower()}: {', '.join(self.severity_reasons)}"
        return f"{', '.join(self.category_reasons)}; {severity}"

    @property
    def line(self) -> str:
        """The suggestion and its reasons in one line: 'Fine-grained: WordNet distance 1 ...; minor: ...'."""
        return f"{self.category.caption}: {self.reasons}"

    def as_dict(self) -> dict:
        return {"category": str(self.category), "severity": str(self.severity), "reasons": self.reasons,
                "line": self.line,
                "category_reasons": list(self.category_reasons), "severity_reasons": list(self.severity_reasons),
                "category_rule": str(self.category_rule), "severity_rule": str(self.severity_rule),
                "measured": self.measured}


def suggest(facts: SuggestionFacts, *, imagenet_x_rules: bool = False) -> Suggestion | None:
    """The suggestion for one mistake (module docstring); None when the image has no label to
    compare the prediction with. `imagenet_x_rules`: the rules as first chosen, with the two
    ImageNet-X category rules since dropped (to reproduce their held-out figure)."""
    if not facts.labels:
        return None
    relation = _nearest(facts.predicted, facts.labels)
    evidence = _Evidence(facts.evidence, facts.predicted)
    category_rule, category, category_reasons = _category(facts, relation, evidence, imagenet_x_rules)
    severity_rule, severity, severity_reasons = _severity(facts, relation, evidence)
    return Suggestion(category, severity, tuple(category_reasons), tuple(severity_reasons), category_rule,
                      severity_rule)


@dataclass(frozen=True)
class _Relation:
    label: int
    distance: int
    ancestor: str


def _nearest(predicted: int, labels: Sequence[int]) -> _Relation:
    label = min(labels, key=lambda c: (hierarchy_distance(predicted, c).distance, list(labels).index(c)))
    relation = hierarchy_distance(predicted, label)
    return _Relation(int(label), relation.distance, load_hierarchy().name(relation.common_ancestors[0]))


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

    def factors(self) -> list[str]:
        """ImageNet-X's factors of the image (the main one only, where only that file is imported)."""
        data = self._first("imagenet_x") or self._first("imagenet_x_top") or {}
        return list(data.get("factors") or ())


def _category(facts: SuggestionFacts, relation: _Relation, evidence: _Evidence, imagenet_x_rules: bool
              ) -> tuple[Rule, Category, list[str]]:
    predicted, label, distance = _name(facts.predicted), _name(relation.label), relation.distance
    where = f"WordNet distance {distance} to {label} (both a kind of {relation.ancestor})"
    if distance <= NEAR:
        return Rule.NEAR, Category.FINE_GRAINED, [where]
    if evidence.same_group():
        return Rule.CLASS_GROUP, Category.FINE_GRAINED, [
            f"{predicted} and {label} are in one group of overlapping classes (Flaws of ImageNet)"]
    if imagenet_x_rules:
        factors = evidence.factors()
        context = [f for f in CONTEXT_FACTORS if f in factors]
        if context:
            return Rule.CONTEXT, Category.SPURIOUS_CORRELATION, [f"ImageNet-X: {_words(context)}",
                                                                f"WordNet distance {distance}"]
        unusual = [f for f in UNUSUAL_FACTORS if f in factors]
        if unusual:
            return Rule.UNUSUAL, Category.NON_PROTOTYPICAL, [f"ImageNet-X: an unusual {label} ({_words(unusual)})",
                                                             f"WordNet distance {distance}"]
    if distance >= FAR_FOR_OOV:
        return Rule.FAR, Category.FINE_GRAINED_OOV, [
            f"WordNet distance {distance} from every label (only '{relation.ancestor}' in common): perhaps an "
            f"object outside ImageNet's classes that looks like {predicted}"]
    return Rule.OTHERWISE, Category.FINE_GRAINED, [where, "nothing points to another category"]


def _words(factors: list[str]) -> str:
    return ", ".join(FACTORS.get(f, f) for f in factors)


def _severity(facts: SuggestionFacts, relation: _Relation, evidence: _Evidence) -> tuple[Rule, Severity, list[str]]:
    predicted = _name(facts.predicted)
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
    far = []
    if relation.distance >= FAR_FOR_SEVERITY:
        far.append(f"WordNet distance {relation.distance}")
    if len(facts.labels) > 1:
        far.append(f"{len(facts.labels)} labelled objects, none {predicted}")
    if far:
        return Rule.FAR, Severity.MAJOR, far
    zoom = facts.zoom
    if zoom is not None and zoom.complete and not zoom.corrected:
        return Rule.ZOOM, Severity.MAJOR, [f"no crop of the zoom probe corrects it ({zoom.total} crops)"]
    return Rule.OTHERWISE, Severity.MINOR, [f"WordNet distance {relation.distance}, nothing says major"]


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


def suggest_reviewed(*, session: Session, imagenet_x_rules: bool = False) -> list[ReviewedSuggestion]:
    """The suggestion for every reviewed mistake of the project (published reviews and the panel's
    decisions), from its labels before the review and every imported evidence source
    (`imagenet_x_rules`: as `suggest`)."""
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
        correct = labels.labels_of(position)["correct"] if position >= 0 else []
        targets = tuple(correct) or ((original,) if original is not None else ())
        lines = tuple(evidence_for(session, row.file_name, int(row.predicted), original))
        found = suggest(SuggestionFacts(int(row.predicted), targets, lines), imagenet_x_rules=imagenet_x_rules)
        out.append(ReviewedSuggestion(str(row.model), str(row.file_name), int(row.predicted),
                                      Category(row.category), Severity(row.severity), found))
    return out
