"""ASMA under both readings (reviewer.evaluation.topk) on a hand-built case: every
per-image score, subgroup mean and ASMA below is worked out by hand from the sets, not
taken from the code. The papers cite the example-based accuracy |Y∩Ŷ|/|Y∪Ŷ| (= m/(2k-m)
with |Ŷ| = |Y| = k); the share found is m/k."""

from __future__ import annotations

import numpy as np
import pytest

from reviewer.evaluation.metrics import multilabel_accuracy
from reviewer.evaluation.topk import multilabel_variable_topk, real_variable_topk
from reviewer.labels.labelset import CORRECT, LabelSet


def labelset(n: int, *, real=(), labels=(), not_validation=(), problematic=()) -> LabelSet:
    """`n` images of the multi-label set, all validation images unless listed; `real`:
    (position, class) ReaL labels; `labels`: (position, class, kind) multi-labels."""
    r_rows, r_cls = (np.array(x) for x in zip(*real)) if real else ([], [])
    rows, classes, kinds = (np.array(x) for x in zip(*labels)) if labels else ([], [], [])
    return LabelSet(
        image_ids=np.arange(1, n + 1, dtype=np.int64), original=np.zeros(n, np.int16),
        problematic=np.isin(np.arange(n), list(problematic)),
        rows=np.asarray(rows, np.int32), classes=np.asarray(classes, np.int16), kinds=np.asarray(kinds, np.int8),
        real_rows=np.asarray(r_rows, np.int32), real_classes=np.asarray(r_cls, np.int16),
        multilabel=np.ones(n, bool), validation=~np.isin(np.arange(n), list(not_validation)))


# Image: valid labels Y, ranking (best first); Ŷ = its first k = |Y| classes.
CASE = [
    ({10}, [10, 11, 12, 13, 14, 15]),                    # k=1, Ŷ {10}: m=1
    ({20}, [21, 20, 22, 23, 24, 25]),                    # k=1, Ŷ {21}: m=0
    ({25}, [25, 26, 27, 28, 29, 30]),                    # k=1, Ŷ {25}: m=1
    ({30, 31}, [31, 30, 32, 33, 34, 35]),                # k=2, Ŷ {31, 30}: m=2
    ({40, 41}, [40, 42, 41, 43, 44, 45]),                # k=2, Ŷ {40, 42}: m=1
    ({50, 51, 52}, [53, 50, 54, 51, 55, 56]),            # k=3, Ŷ {53, 50, 54}: m=1
    (set(range(70, 76)), [70, 71, 72, 73, 80, 81]),      # k=6 (apart), Ŷ = 70-73, 80, 81: m=4
]
# By hand, per image: m/k and |Y∩Ŷ|/|Y∪Ŷ| = m/(2k-m).
SHARE = [1, 0, 1, 1, 1 / 2, 1 / 3, 4 / 6]
JACCARD = [1, 0, 1, 1, 1 / 3, 1 / 5, 4 / 8]  # image 4: 1/(2+2-1); image 5: 1/(3+3-1); image 6: 4/(6+6-4)
TOP1_IN_Y = [True, False, True, True, True, False, True]


def real_case() -> tuple[LabelSet, np.ndarray]:
    real = [(i, c) for i, (y, _) in enumerate(CASE) for c in sorted(y)]
    return labelset(len(CASE), real=real), np.array([r for _, r in CASE])


def test_both_asmas_subgroup_means_and_real_accuracy_on_a_hand_built_case():
    # The hand values above against the set definitions, in plain Python.
    for (y, ranking), share, jaccard, top1 in zip(CASE, SHARE, JACCARD, TOP1_IN_Y):
        top = set(ranking[:len(y)])
        assert len(y & top) / len(y) == pytest.approx(share)
        assert len(y & top) / len(y | top) == pytest.approx(jaccard)
        assert (ranking[0] in y) == top1
    labels, ranked = real_case()
    v = real_variable_topk(labels, np.arange(len(CASE)), ranked)
    assert v.reason is None and v.images == 6 and v.truncated == 0
    # Subgroups (by hand): k=1 images 0-2, k=2 images 3-4, k=3 image 5.
    assert v.by_label_count == {
        1: {"images": 3, "mean_jaccard": pytest.approx(2 / 3), "mean_hit_rate": pytest.approx(2 / 3),
            "all_in_topk": pytest.approx(2 / 3)},
        2: {"images": 2, "mean_jaccard": pytest.approx(2 / 3), "mean_hit_rate": pytest.approx(3 / 4),
            "all_in_topk": pytest.approx(1 / 2)},
        3: {"images": 1, "mean_jaccard": pytest.approx(1 / 5), "mean_hit_rate": pytest.approx(1 / 3),
            "all_in_topk": 0.0}}
    # ASMA: the unweighted mean of the three subgroups.
    assert v.asma == pytest.approx((2 / 3 + 2 / 3 + 1 / 5) / 3)  # = 23/45, the cited reading
    assert v.asma == pytest.approx(23 / 45)
    assert v.asma_share_found == pytest.approx((2 / 3 + 3 / 4 + 1 / 3) / 3)  # = 7/12
    assert v.asma_share_found == pytest.approx(7 / 12)
    # Over the six images (not the subgroups), the image with six labels left out.
    assert v.mean_jaccard == pytest.approx(53 / 90)  # (1 + 0 + 1 + 1 + 1/3 + 1/5) / 6
    assert v.mean_hit_rate == pytest.approx(23 / 36)  # (1 + 0 + 1 + 1 + 1/2 + 1/3) / 6
    assert v.mean_jaccard == pytest.approx(np.mean(JACCARD[:6]))
    assert v.mean_hit_rate == pytest.approx(np.mean(SHARE[:6]))
    assert v.all_in_topk == pytest.approx(3 / 6)
    # Their ReaL column: top-1 among the labels, over the same 1-5-label images (4 of 6).
    assert v.real_accuracy_1_to_5 == pytest.approx(4 / 6)
    assert v.real_accuracy_1_to_5 == pytest.approx(np.mean(TOP1_IN_Y[:6]))
    assert v.over_max == {"images": 1, "mean_jaccard": pytest.approx(1 / 2), "mean_hit_rate": pytest.approx(2 / 3),
                          "all_in_topk": 0.0}


def test_as_dict_names_both_readings():
    labels, ranked = real_case()
    d = real_variable_topk(labels, np.arange(len(CASE)), ranked).as_dict()
    assert d["asma"] == pytest.approx(23 / 45) and d["asma_share_found"] == pytest.approx(7 / 12)
    assert d["mean_jaccard"] == pytest.approx(53 / 90) and d["mean_hit_rate"] == pytest.approx(23 / 36)
    assert d["real_accuracy_1_to_5"] == pytest.approx(4 / 6) and d["all_in_topk"] == pytest.approx(1 / 2)
    assert d["by_label_count"]["2"]["mean_jaccard"] == pytest.approx(2 / 3)
    assert d["by_label_count"]["2"]["mean_hit_rate"] == pytest.approx(3 / 4)
    assert d["over_max"]["mean_jaccard"] == pytest.approx(1 / 2)


def test_nan_without_labels_has_every_key():
    v = real_variable_topk(labelset(2), np.arange(2), np.array([[0, 1], [0, 1]]))
    d = v.as_dict()
    assert d["reason"] and d["images"] == 0
    for key in ("asma", "asma_share_found", "mean_jaccard", "mean_hit_rate", "real_accuracy_1_to_5"):
        assert d[key] != d[key]  # NaN
    assert set(d["over_max"]) == {"images", "mean_jaccard", "mean_hit_rate", "all_in_topk"}


def test_an_imagenet_v2_image_of_the_multilabel_set_is_left_out_as_mla_leaves_it_out():
    # Image 1 is in the multi-label set but not an ImageNet validation image (e.g. an
    # ImageNetV2 image): MLA does not count it, so neither does the multi-label variant.
    # Image 0: correct {0}, top-1 0 (found); image 1: correct {5, 6}, top-2 {5, 6} (found).
    labels = labelset(2, labels=[(0, 0, CORRECT), (1, 5, CORRECT), (1, 6, CORRECT)], not_validation=[1])
    ranked = np.array([[0, 1, 2], [5, 6, 7]])
    assert multilabel_accuracy(labels, np.arange(2), ranked[:, 0]).all.total == 1
    v = multilabel_variable_topk(labels, np.arange(2), ranked)
    assert v.images == 1
    assert list(v.by_label_count) == [1]
    assert v.by_label_count[1]["images"] == 1


def test_the_multilabel_variant_counts_only_the_images_mla_counts():
    # Image 0: a validation image with correct {0, 1}, top-2 {0, 2}: share 1/2, |Y∩Ŷ|/|Y∪Ŷ| 1/3.
    # Image 1: not a validation image, correct {3}, top-1 {3}; image 2: problematic. Only image 0 counts.
    labels = labelset(3, labels=[(0, 0, CORRECT), (0, 1, CORRECT), (1, 3, CORRECT), (2, 4, CORRECT)],
                      not_validation=[1], problematic=[2])
    v = multilabel_variable_topk(labels, np.arange(3), np.array([[0, 2, 1], [3, 0, 1], [4, 0, 1]]))
    assert v.images == 1
    assert v.asma == pytest.approx(1 / 3) and v.asma_share_found == pytest.approx(1 / 2)
    assert v.real_accuracy_1_to_5 == 1.0  # top-1 0 is among {0, 1}
