"""Metrics against small hand-computed cases."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from reviewer.evaluation.metrics import multilabel_accuracy, real_accuracy, top1_accuracy
from reviewer.evaluation.topk import multilabel_variable_topk, real_variable_topk
from reviewer.labels.labelset import CORRECT, UNCLEAR, WRONG, LabelSet, accepted

TENCH, GOLDFISH, ESKIMO_DOG, HUSKY, AIRLINER, WARPLANE = 0, 1, 248, 250, 404, 895


def make(original, labels, problematic=(), real=(), outside=(), not_validation=()):
    """labels: list of (image position, class, kind); every image is a validation image
    of the multi-label set unless listed in `outside` / `not_validation`."""
    n = len(original)
    rows, classes, kinds = (np.array(x) for x in zip(*labels)) if labels else ([], [], [])
    r_rows, r_cls = (np.array(x) for x in zip(*real)) if real else ([], [])
    return LabelSet(
        image_ids=np.arange(1, n + 1, dtype=np.int64), original=np.array(original, np.int16),
        problematic=np.isin(np.arange(n), list(problematic)),
        rows=np.asarray(rows, np.int32), classes=np.asarray(classes, np.int16), kinds=np.asarray(kinds, np.int8),
        real_rows=np.asarray(r_rows, np.int32), real_classes=np.asarray(r_cls, np.int16),
        multilabel=~np.isin(np.arange(n), list(outside)), validation=~np.isin(np.arange(n), list(not_validation)))


def test_top1_against_original_label():
    labels = make([TENCH, TENCH, AIRLINER, -1], [(0, TENCH, CORRECT)])
    score = top1_accuracy(labels, np.arange(4), np.array([TENCH, GOLDFISH, AIRLINER, TENCH]))
    assert (score.correct, score.total) == (2, 3)  # unknown original label not counted


def test_correct_or_unclear_accepted_wrong_not():
    labels = make([TENCH] * 3, [(0, TENCH, CORRECT), (0, GOLDFISH, UNCLEAR), (1, TENCH, CORRECT),
                                (1, GOLDFISH, WRONG), (2, TENCH, CORRECT)])
    assert accepted(labels, np.arange(3), np.array([GOLDFISH, GOLDFISH, WARPLANE])).tolist() == [True, False, False]


def test_collapsed_mappings_only_when_asked_and_one_way():
    # The reference applies no mapping. Asked for: label husky (250) accepts the prediction
    # Eskimo dog (248); label 248 does not accept 250.
    labels = make([HUSKY, ESKIMO_DOG], [(0, HUSKY, CORRECT), (1, ESKIMO_DOG, CORRECT)])
    pred = np.array([ESKIMO_DOG, HUSKY])
    assert accepted(labels, np.arange(2), pred).tolist() == [False, False]
    assert accepted(labels, np.arange(2), pred, collapsed=True).tolist() == [True, False]
    assert multilabel_accuracy(labels, np.arange(2), pred).all.value == 0.0
    assert multilabel_accuracy(labels, np.arange(2), pred, collapsed=True).all.value == pytest.approx(0.5)


def test_a_class_listed_correct_and_wrong_is_accepted():
    # The official v3 file lists some classes under two kinds; the reference tests
    # membership of correct + unclear, so such a class is accepted.
    labels = make([TENCH, TENCH], [(0, GOLDFISH, CORRECT), (0, GOLDFISH, WRONG), (1, GOLDFISH, UNCLEAR),
                                   (1, GOLDFISH, WRONG), (1, TENCH, CORRECT)])
    assert accepted(labels, np.arange(2), np.array([GOLDFISH, GOLDFISH])).tolist() == [True, True]


def test_mla_scope_is_the_multilabel_sets_validation_images():
    # Image 1 is outside the multi-label set (a full-validation project), image 2 an
    # ImageNetV2 image of the set, image 3 in the set with no correct or unclear label:
    # the reference counts 0 and 3 (3 always wrong), not 1 or 2.
    original = [TENCH, TENCH, TENCH, AIRLINER]
    labels = make(original, [(0, TENCH, CORRECT), (2, TENCH, CORRECT), (3, WARPLANE, WRONG)],
                  outside=[1], not_validation=[2])
    mla = multilabel_accuracy(labels, np.arange(4), np.array([TENCH, TENCH, TENCH, AIRLINER]))
    assert (mla.all.correct, mla.all.total) == (1, 2)
    assert mla.all.value == pytest.approx((1 + 0) / 2) and mla.reason is None


def test_mla_is_null_with_a_reason_without_a_multilabel_set_or_original_labels():
    labels = make([TENCH, AIRLINER], [(0, TENCH, CORRECT), (1, AIRLINER, CORRECT)])
    no_set = replace(labels, original_only=True)
    mla = multilabel_accuracy(no_set, np.arange(2), np.array([TENCH, AIRLINER]))
    assert math.isnan(mla.all.value) and "no multi-label set" in mla.reason
    unknown = make([TENCH, -1], [(0, TENCH, CORRECT), (1, AIRLINER, CORRECT)])
    mla = multilabel_accuracy(unknown, np.arange(2), np.array([TENCH, AIRLINER]))
    assert math.isnan(mla.all.value) and "1 images of the multi-label set have no original label" in mla.reason


def test_mla_is_mean_of_per_class_accuracy_and_skips_problematic():
    # Class tench: 3 images, 2 right -> 2/3. Class airliner: 1 image, right -> 1.
    # A problematic airliner image predicted wrong is skipped. MLA = (2/3 + 1) / 2.
    original = [TENCH, TENCH, TENCH, AIRLINER, AIRLINER]
    labels = make(original, [(i, c, CORRECT) for i, c in enumerate(original)], problematic=[4])
    pred = np.array([TENCH, TENCH, GOLDFISH, AIRLINER, WARPLANE])
    mla = multilabel_accuracy(labels, np.arange(5), pred)
    assert mla.all.value == pytest.approx((2 / 3 + 1) / 2)
    assert (mla.all.correct, mla.all.total) == (3, 4)
    assert mla.organisms.value == pytest.approx(2 / 3)  # tench is an organism
    assert mla.objects.value == pytest.approx(1.0)  # airliner is an object


def test_mla_only_over_predicted_images():
    labels = make([TENCH, AIRLINER], [(0, TENCH, CORRECT), (1, AIRLINER, CORRECT)])
    mla = multilabel_accuracy(labels, np.array([1]), np.array([WARPLANE]))
    assert mla.all.value == 0.0 and mla.all.total == 1 and math.isnan(mla.organisms.value)


def test_real_accuracy_skips_empty_sets():
    labels = make([TENCH, TENCH, TENCH], [], real=[(0, TENCH), (0, GOLDFISH), (1, TENCH)])
    score = real_accuracy(labels, np.arange(3), np.array([GOLDFISH, GOLDFISH, TENCH]))
    assert (score.correct, score.total) == (1, 2)


def test_variable_topk_on_real_labels():
    # ReaL: image 0 {0, 1}, top-2 [1, 5] -> 1 of 2 found; image 1 {0}, top-1 [0] -> found;
    # image 2 {0, 1, 2}, top-3 [2, 0, 1] -> all found; image 3 has no ReaL label (left out).
    labels = make([0, 0, 0, 0], [], real=[(0, 0), (0, 1), (1, 0), (2, 0), (2, 1), (2, 2)])
    ranked = np.array([[1, 5, 0, 9], [0, 1, 2, 3], [2, 0, 1, 4], [0, 1, 2, 3]])
    v = real_variable_topk(labels, np.arange(4), ranked)
    assert v.label_set == "real" and v.images == 3 and v.reason is None
    assert v.all_in_topk == pytest.approx(2 / 3)
    assert v.mean_hit_rate == pytest.approx((0.5 + 1 + 1) / 3)
    # Example-based accuracy |Y∩Ŷ|/|Y∪Ŷ|: image 0 {0, 1} vs {1, 5} is 1/3; images 1 and 2 are 1.
    assert v.mean_jaccard == pytest.approx((1 / 3 + 1 + 1) / 3)
    assert v.asma == pytest.approx((1 + 1 / 3 + 1) / 3)  # subgroups k=1, 2, 3
    assert v.asma_share_found == pytest.approx((1 + 0.5 + 1) / 3)


def test_variable_topk_without_real_labels_says_so():
    labels = make([0, 0], [(0, 0, CORRECT), (1, 0, CORRECT)])
    v = real_variable_topk(labels, np.arange(2), np.array([[0, 1], [0, 1]]))
    assert math.isnan(v.asma) and "no ReaL labels" in v.reason


def test_with_judgements_overrides():
    labels = make([TENCH], [(0, TENCH, CORRECT), (0, GOLDFISH, WRONG)])
    judged = labels.with_judgements(np.array([1]), np.array([GOLDFISH]), np.array([UNCLEAR]))
    assert judged.labels_of(0) == {"correct": [TENCH], "wrong": [], "unclear": [GOLDFISH]}
    assert labels.labels_of(0)["wrong"] == [GOLDFISH]  # the original is untouched


def test_mla_counts_the_multilabels_not_the_original_label():
    # Image 0: original tench, but the panel found goldfish correct and tench wrong.
    # Image 1: prediction unclear -> accepted. Image 2: prediction a wrong label -> not.
    # Images 3 and 4: husky and Eskimo dog, each predicted as the other (accepted only through
    # the collapsed mappings, which the reference does not apply).
    labels = make([TENCH, TENCH, TENCH, HUSKY, ESKIMO_DOG],
                  [(0, GOLDFISH, CORRECT), (0, TENCH, WRONG), (1, TENCH, CORRECT), (1, GOLDFISH, UNCLEAR),
                   (2, TENCH, CORRECT), (2, GOLDFISH, WRONG), (3, HUSKY, CORRECT), (4, ESKIMO_DOG, CORRECT)])
    pred = np.array([GOLDFISH, GOLDFISH, GOLDFISH, ESKIMO_DOG, HUSKY])
    assert top1_accuracy(labels, np.arange(5), pred).correct == 0
    mla = multilabel_accuracy(labels, np.arange(5), pred)
    # Per original class: tench 2/3, husky 0/1, Eskimo dog 0/1.
    assert mla.all.value == pytest.approx((2 / 3 + 0 + 0) / 3)
    assert (mla.all.correct, mla.all.total) == (2, 5)
    # With the mappings the husky image accepts Eskimo dog: tench 2/3, husky 1/1, Eskimo dog 0/1.
    assert multilabel_accuracy(labels, np.arange(5), pred, collapsed=True).all.value == pytest.approx(
        (2 / 3 + 1 + 0) / 3)
    assert mla.objects.total == 0 and math.isnan(mla.objects.value)


def test_variable_topk_subgroups_weigh_equally_and_only_1_to_5_labels_count():
    # ReaL labels: four images with one label (3 found), one with two (1 of 2 found), one
    # with six labels (all found: reported apart, not in ASMA), one with none (left out).
    six = [(5, c) for c in range(10, 16)]
    labels = make([0] * 7, [], real=[(i, 0) for i in range(4)] + [(4, 0), (4, 1)] + six)
    ranked = np.array([[0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5], [3, 0, 1, 2, 4, 5],
                       [0, 2, 1, 3, 4, 5], [15, 14, 13, 12, 11, 10], [0, 1, 2, 3, 4, 5]])
    v = real_variable_topk(labels, np.arange(7), ranked)
    assert v.images == 5
    # Image 4: {0, 1} against the top-2 {0, 2}: 1 of 2 found, |Y∩Ŷ|/|Y∪Ŷ| = 1/3.
    assert v.by_label_count == {
        1: {"images": 4, "mean_jaccard": 0.75, "mean_hit_rate": 0.75, "all_in_topk": 0.75},
        2: {"images": 1, "mean_jaccard": pytest.approx(1 / 3), "mean_hit_rate": 0.5, "all_in_topk": 0.0}}
    assert v.over_max == {"images": 1, "mean_jaccard": 1.0, "mean_hit_rate": 1.0, "all_in_topk": 1.0}
    assert v.mean_hit_rate == pytest.approx((3 + 0.5) / 5)
    assert v.mean_jaccard == pytest.approx((3 + 1 / 3) / 5)
    assert v.all_in_topk == pytest.approx(3 / 5)
    # the mean of the subgroups, not of the images
    assert v.asma == pytest.approx((0.75 + 1 / 3) / 2)
    assert v.asma_share_found == pytest.approx((0.75 + 0.5) / 2)


def test_multilabel_variant_counts_correct_labels_and_skips_problematic():
    # Unclear labels do not count towards k; the problematic image 2 is skipped.
    labels = make([0, 0, 0], [(0, 0, CORRECT), (0, 1, CORRECT), (0, 2, UNCLEAR), (1, 0, CORRECT), (2, 0, CORRECT)],
                  problematic=[2])
    v = multilabel_variable_topk(labels, np.arange(3), np.array([[0, 2, 1], [3, 0, 1], [0, 1, 2]]))
    assert v.label_set == "multilabel" and v.images == 2
    assert v.by_label_count == {
        1: {"images": 1, "mean_jaccard": 0.0, "mean_hit_rate": 0.0, "all_in_topk": 0.0},
        2: {"images": 1, "mean_jaccard": pytest.approx(1 / 3), "mean_hit_rate": 0.5, "all_in_topk": 0.0}}


def test_mistakes_and_novelty():
    from reviewer.runs.mistakes import find_mistakes, novel_mask
    from reviewer.runs.predictions import RunPredictions

    # 0 right; 1 a mistake already judged wrong (not novel); 2 a new mistake (novel);
    # 3 accepted only through the collapsed mappings, which mistakes do not apply (the
    # reference rule: top-1 not among the correct or unclear labels); 4 problematic
    # (never a mistake); 5 not predicted by this run.
    labels = make([TENCH, TENCH, TENCH, HUSKY, TENCH, TENCH],
                  [(0, TENCH, CORRECT), (1, TENCH, CORRECT), (1, GOLDFISH, WRONG), (2, TENCH, CORRECT),
                   (3, HUSKY, CORRECT), (4, TENCH, CORRECT), (5, TENCH, CORRECT)], problematic=[4])
    top1 = np.array([TENCH, GOLDFISH, AIRLINER, ESKIMO_DOG, AIRLINER])
    predictions = RunPredictions(run_id=1, image_ids=labels.image_ids[:5], rows=np.arange(5),
                                 topk=np.stack([top1] * 5, axis=1).astype(np.int16), probs=np.ones((5, 5), np.float32))
    idx = find_mistakes(labels, predictions)
    assert idx.tolist() == [1, 2, 3]
    assert novel_mask(labels, labels.positions(predictions.image_ids[idx]), top1[idx]).tolist() == [
        False, True, True]
