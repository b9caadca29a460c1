"""The suggested category and severity (reviewer.review.suggest) follow their documented rules:
on hand-made facts about real classes, and on the real published files (tests/data: the two
published reviews, ReaL, cleanlab, Flaws of ImageNet, ImageNet-X, trimmed to images 1-2,000),
where every expectation is worked out here from the raw files with json, csv and numpy and a
WordNet walk of the shipped asset of its own."""

from __future__ import annotations

import csv
import json
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from reviewer.classes.vocabulary import load_classes
from reviewer.evidence.lines import EvidenceLine
from reviewer.review.suggest import BUSY_WRONG, FITTED, ErrorType, Rule, SuggestionFacts, suggest
from reviewer.terms import Category, Severity

NAMES = load_classes().names
CAIRN, NORWICH = NAMES.index("cairn"), NAMES.index("Norwich terrier")
ANALOG, WALL = NAMES.index("analog clock"), NAMES.index("wall clock")
JIGSAW, DOUGH = NAMES.index("jigsaw puzzle"), NAMES.index("dough")
ASSET = Path(__file__).resolve().parents[2] / "assets" / "wordnet" / "imagenet_wordnet.json"


def line(kind: str, **data) -> EvidenceLine:
    return EvidenceLine(source=kind, text=f"{kind}: ...", data={"kind": kind, "file_name": f"{kind}.file", **data})


def raters(predicted: int, no: int, maybe: int, yes: int) -> EvidenceLine:
    return line("real_labels", covered=True, verdict="rejects", row={"labels": [NORWICH]},
                raters={"answers": [[predicted, no, maybe, yes]]})


# -- hand-made facts ---------------------------------------------------------------------
def test_siblings_are_fine_grained_with_the_ancestor_named():
    found = suggest(SuggestionFacts(ANALOG, (WALL,)))
    assert (found.category, found.error_type, found.severity) == (Category.FINE_GRAINED, ErrorType.FINE_GRAINED,
                                                                   Severity.MAJOR)
    assert found.category_rule is Rule.NEAR and found.severity_rule is Rule.OTHERWISE
    assert found.reasons == ("WordNet distance 1 to wall clock (both a kind of clock); "
                             "major: WordNet distance 1, nothing finds analog clock plausible")
    assert found.line == f"Fine-grained: {found.reasons}"
    assert found.category_confidence == pytest.approx(FITTED[Rule.NEAR][0] / FITTED[Rule.NEAR][1])


def test_dogs_are_one_superclass_and_minor():
    """Cairn and Norwich terrier: near; a cairn and a Maltese dog: 3 levels apart, both dogs."""
    maltese = NAMES.index("Maltese dog")
    assert wordnet_distance(CAIRN, maltese) == 3
    found = suggest(SuggestionFacts(CAIRN, (maltese,)))
    assert (found.category, found.category_rule) == (Category.FINE_GRAINED, Rule.SUPERCLASS)
    assert (found.severity, found.severity_rule) == (Severity.MINOR, Rule.ORGANISMS)
    # A dog taken for a cat: living things, but not of one superclass.
    tabby = NAMES.index("tabby")
    found = suggest(SuggestionFacts(tabby, (CAIRN,)))
    assert found.severity_rule is not Rule.ORGANISMS and found.category_rule is Rule.NO_EXPLANATION


def test_far_apart_with_nothing_else_is_no_explanation_and_major():
    """The paper's Figure 1: dough predicted as a jigsaw puzzle (distance 9 through 'physical entity')."""
    found = suggest(SuggestionFacts(JIGSAW, (DOUGH,)))
    assert (found.error_type, found.category, found.severity) == (ErrorType.NO_EXPLANATION, Category.FINE_GRAINED,
                                                                  Severity.MAJOR)
    assert found.caption == "No explanation found (likeliest: Fine-grained)"
    assert "WordNet distance 9 to dough" in found.reasons and "\n" not in found.reasons
    assert found.as_dict()["error_type"] == "no_explanation"


def test_a_busy_image_is_a_spurious_correlation():
    wrong = tuple(range(10, 10 + BUSY_WRONG))
    found = suggest(SuggestionFacts(JIGSAW, (DOUGH,), wrong=wrong))
    assert (found.category, found.category_rule) == (Category.SPURIOUS_CORRELATION, Rule.BUSY_SCENE)
    assert f"its annotators rejected {BUSY_WRONG} candidate labels" in found.reasons
    assert suggest(SuggestionFacts(JIGSAW, (DOUGH,), wrong=wrong[:-1])).category_rule is Rule.NO_EXPLANATION
    # Read from the TFDS evidence line where the labels give none.
    tfds = line("tfds_multilabel", covered=True, verdict="rejects", row={"wrong": list(wrong)})
    assert suggest(SuggestionFacts(JIGSAW, (DOUGH,), (tfds,))).category is Category.SPURIOUS_CORRELATION


@pytest.mark.parametrize("counts, severity", [((3, 1, 1), Severity.MINOR), ((4, 1, 0), Severity.MAJOR),
                                              ((5, 0, 0), Severity.MAJOR)])
def test_two_raters_saying_yes_or_maybe_make_it_minor(counts, severity):
    found = suggest(SuggestionFacts(JIGSAW, (DOUGH,), (raters(JIGSAW, *counts),)))
    assert found.severity is severity
    if severity is Severity.MINOR:
        assert "ReaL raters 1 yes, 1 maybe, 3 no on jigsaw puzzle" in found.reasons


def test_a_source_accepting_it_or_cleanlab_flagging_the_label_make_it_minor():
    accepting = line("flaws_relabeling", file_name="finegrained.csv", covered=True, verdict="accepts")
    found = suggest(SuggestionFacts(JIGSAW, (DOUGH,), (accepting,)))
    assert found.severity is Severity.MINOR and "Flaws of ImageNet (finegrained) accepts jigsaw puzzle" in found.reasons
    found = suggest(SuggestionFacts(JIGSAW, (DOUGH,), (line("cleanlab", covered=True, verdict=None),)))
    assert found.severity is Severity.MINOR and "cleanlab flagged the image's label" in found.reasons
    found = suggest(SuggestionFacts(JIGSAW, (DOUGH,), (line("cleanlab", covered=False, verdict=None),)))
    assert found.severity is Severity.MAJOR


def test_a_class_group_makes_it_fine_grained_and_minor():
    group = line("class_groups", covered=True, verdict=None, same_group=True)
    found = suggest(SuggestionFacts(JIGSAW, (DOUGH,), (group,)))
    assert (found.category, found.category_rule) == (Category.FINE_GRAINED, Rule.CLASS_GROUP)
    assert found.severity is Severity.MINOR


def test_several_labelled_objects_none_predicted_make_it_major():
    found = suggest(SuggestionFacts(ANALOG, (WALL, DOUGH), (raters(ANALOG, 1, 2, 2),)))
    assert found.category is Category.FINE_GRAINED  # the nearest label decides the category
    assert found.severity is Severity.MAJOR and "2 labelled objects, none analog clock" in found.reasons


@dataclass
class Summary:  # a reviewer.runs.zoom.result.ZoomSummary as the rule reads it
    corrected: bool
    complete: bool
    total: int = 324


@dataclass
class Dup:
    kind: str
    wnid: str


@dataclass
class Neighbours:
    training_duplicates: tuple
    neighbours: tuple = ()
    computed: bool = False


@dataclass
class Near:
    wnid: str


def test_the_zoom_probe_duplicates_and_neighbours_decide_only_where_nothing_measured_does():
    corrected = Summary(corrected=True, complete=True)
    found = suggest(SuggestionFacts(ANALOG, (WALL,), zoom=corrected))
    assert (found.severity, found.severity_rule, found.measured) == (Severity.MINOR, Rule.ZOOM, False)
    assert "a crop of the zoom probe corrects it (324 crops)" in found.reasons
    assert suggest(SuggestionFacts(ANALOG, (WALL,), zoom=Summary(True, complete=False))).severity is Severity.MAJOR
    no_crop = suggest(SuggestionFacts(ANALOG, (WALL,), zoom=Summary(False, True)))
    assert no_crop.severity is Severity.MAJOR and "no crop of the zoom probe corrects it" in no_crop.reasons
    wnids = load_classes().wnids
    found = suggest(SuggestionFacts(JIGSAW, (DOUGH,), neighbours=Neighbours((Dup("exact", wnids[JIGSAW]),))))
    assert (found.severity, found.severity_rule, found.measured) == (Severity.MINOR, Rule.DUPLICATE, False)
    other = Neighbours((Dup("exact", wnids[DOUGH]),))
    assert suggest(SuggestionFacts(JIGSAW, (DOUGH,), neighbours=other)).severity is Severity.MAJOR
    # None of the nearest training images is of the label: an unusual example of it.
    far = Neighbours((), (Near(wnids[JIGSAW]), Near(wnids[ANALOG])), computed=True)
    found = suggest(SuggestionFacts(JIGSAW, (DOUGH,), neighbours=far))
    assert (found.category, found.category_rule, found.measured) == (Category.NON_PROTOTYPICAL, Rule.FAR_FROM_CLASS,
                                                                     False)
    close = Neighbours((), (Near(wnids[DOUGH]),), computed=True)
    assert suggest(SuggestionFacts(JIGSAW, (DOUGH,), neighbours=close)).category_rule is Rule.NO_EXPLANATION


def test_the_softmax_is_named_and_decides_nothing():
    found = suggest(SuggestionFacts(JIGSAW, (DOUGH,), probability=0.41))
    assert "the model gave it 41 %" in found.reasons
    assert (found.category_rule, found.severity_rule) == (Rule.NO_EXPLANATION, Rule.OTHERWISE)


def test_no_label_no_suggestion():
    assert suggest(SuggestionFacts(ANALOG, ())) is None


# -- the real files ----------------------------------------------------------------------
def wordnet_distance(a: int, b: int) -> int:
    """Levels from the farther class up to their nearest common ancestor, by a walk of the asset."""
    asset = json.loads(ASSET.read_text())
    wnids = asset["classes"]  # the 1000 wnids in class-index order

    def up(wnid: str) -> dict[str, int]:
        levels, queue = {wnid: 0}, deque([wnid])
        while queue:
            node = queue.popleft()
            for parent in asset["synsets"][node]["parents"]:
                if parent not in levels:
                    levels[parent] = levels[node] + 1
                    queue.append(parent)
        return levels

    ua, ub = up(wnids[a]), up(wnids[b])
    return min(max(ua[c], ub[c]) for c in ua.keys() & ub.keys())


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory, shared_data):
    from reviewer.app.evidence import import_evidence
    from reviewer.app.imports import import_review, init_project
    from reviewer.review.suggest import suggest_reviewed

    published = shared_data / "published"
    project, _ = init_project(tmp_path_factory.mktemp("suggest") / "p", labels=[
        published / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv", published / "real" / "real.json"])
    for model in ("vit3b", "greedy_soups"):
        import_review(project, shared_data / "imagenet-mistakes" / f"{model}_mistakes.json", model=model)
    import_evidence(project, [published / "real" / "raters.npz", published / "real" / "real.json",
                              published / "label-errors" / "imagenet_mturk.json",
                              published / "flaws-of-imagenet" / "finegrained.csv",
                              published / "flaws-of-imagenet" / "problem_groups_clusters.json",
                              shared_data / "imagenet-x" / "imagenet_x_val_multi_factor.jsonl"])
    with project.read() as session:
        rows = suggest_reviewed(session=session)
    project.close()
    return rows


ORGANISM = "n00004475"


@lru_cache(maxsize=1)
def asset() -> dict:
    return json.loads(ASSET.read_text())


@lru_cache(maxsize=None)
def ancestors(wnid: str) -> frozenset[str]:
    seen, queue = {wnid}, deque([wnid])
    while queue:
        for parent in asset()["synsets"][queue.popleft()]["parents"]:
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
    return frozenset(seen)


def is_living(cls: int) -> bool:
    return ORGANISM in ancestors(asset()["classes"][cls])


@lru_cache(maxsize=1)
def superclasses() -> list[str]:
    """Each class's superclass by the documented definition, from a walk of the asset: the ancestor
    with the most classes below it, at most 130 for a living thing and 30 for anything else."""
    wnids = asset()["classes"]
    ups = [ancestors(w) for w in wnids]
    below: dict[str, int] = {}
    for up in ups:
        for a in up:
            below[a] = below.get(a, 0) + 1
    return [max((below[a], a) for a in up if below[a] <= (130 if ORGANISM in up else 30))[1] for up in ups]


def expected(shared_data, file_name: str, predicted: int) -> tuple[Category, Severity]:
    """The documented rules, applied to the raw files."""
    published = shared_data / "published"
    with open(published / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv") as fh:
        row = next(r for r in csv.DictReader(fh) if r["id"] == file_name)
    labels = [int(x) for x in row["proposed_labels"].split(",")]
    distance = min(wordnet_distance(predicted, c) for c in labels)
    groups = json.loads((published / "flaws-of-imagenet" / "problem_groups_clusters.json").read_text())
    same_group = any({str(predicted), str(c)} <= set(g["classes"]) for g in groups for c in labels)
    wrong = [int(x) for x in row["wrong_multi_labels"].split(",") if x]
    sup = superclasses()
    one_superclass = any(sup[predicted] == sup[c] for c in labels)
    category = (Category.FINE_GRAINED if distance <= 2 or same_group or one_superclass else
                Category.SPURIOUS_CORRELATION if len(wrong) >= 10 else Category.FINE_GRAINED)
    number = int(file_name[15:23])
    with np.load(published / "real" / "raters.npz", allow_pickle=False) as z:
        asked = (z["info"][:, 0] == file_name) & (z["info"][:, 1].astype(int) == predicted)
        no, maybe, yes = z["tensor"][:, asked].sum(axis=(0, 1)) if asked.any() else (0, 0, 0)
    real = json.loads((published / "real" / "real.json").read_text())[number - 1]
    flagged = any(r["id"] == number for r in json.loads((published / "label-errors" / "imagenet_mturk.json")
                                                        .read_text()))
    with open(published / "flaws-of-imagenet" / "finegrained.csv") as fh:
        relabel = next((r for r in csv.DictReader(fh) if r["id"] == file_name), None)
    proposed = relabel is not None and str(predicted) in relabel["proposed_labels"].replace(" ", "").split(",") \
        and relabel["category"] != "X"
    # (cleanlab accepting its guessed label needs the image flagged, which makes it minor already.)
    plausible = maybe + yes >= 2 or predicted in real or flagged or proposed or same_group
    organisms = one_superclass and all(is_living(c) for c in (predicted, *[c for c in labels
                                                                         if sup[c] == sup[predicted]]))
    severity = (Severity.MINOR if organisms else Severity.MAJOR if len(labels) > 1 else
                Severity.MINOR if plausible else Severity.MAJOR)
    return category, severity


def test_every_published_mistake_gets_a_suggestion(reviewed, shared_data):
    counts = {m: len(json.loads((shared_data / "imagenet-mistakes" / f"{m}_mistakes.json").read_text()))
              for m in ("vit3b", "greedy_soups")}
    assert len(reviewed) == sum(counts.values())  # none of their images is problematic in the TFDS labels
    assert all(r.suggestion is not None and "\n" not in r.suggestion.reasons for r in reviewed)


def test_the_suggestions_on_images_1_to_2000_follow_the_rules_on_the_raw_files(reviewed, shared_data):
    early = [r for r in reviewed if int(r.file_name[15:23]) <= 2000]
    reviews = {m: json.loads((shared_data / "imagenet-mistakes" / f"{m}_mistakes.json").read_text())
               for m in ("vit3b", "greedy_soups")}
    assert len(early) == sum(1 for review in reviews.values() for name in review if int(name[15:23]) <= 2000)
    for r in early:
        assert (r.suggestion.category, r.suggestion.severity) == expected(shared_data, r.file_name, r.predicted), \
            (r.file_name, r.suggestion.reasons)
    # Not all alike: the raw files give these images more than one answer.
    assert len({(r.suggestion.category, r.suggestion.severity) for r in early}) >= 2
