"""Each crop's outcome for a mistake, the summary, and the stored JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reviewer.labels.labelset import CORRECT, UNCLEAR, WRONG, LabelSet
from reviewer.runs.zoom import (
    CellOutcome,
    ZoomFormatError,
    ZoomParams,
    ZoomResult,
    accepted_classes,
    from_json,
    outcome_of,
    summarise,
    to_json,
    zoom_cells,
)
from reviewer.runs.zoom.result import taesiri_accepted_classes

PREDICTED, ACCEPTED = 5, {7, 8}


def hand_built(scales=(10, 224, 512), *, top_k: int = 2) -> ZoomResult:
    """Top-1 5 (the prediction) everywhere but: S=224 centre 7 (p .61), S=512 (0, 2) 8 (p .93),
    S=512 (2, 2) 3; S=10 row 2 not computed."""
    result = ZoomResult.empty(ZoomParams(scales=scales, top_k=top_k), model="m", weights_sha256=None,
                              image_size=(500, 375))
    for scale in scales:
        for row in range(3):
            for col in range(3):
                if scale == 10 and row == 2:
                    continue
                result.set_cell(scale, row, col, np.array([PREDICTED, 900]), np.array([0.5, 0.25], np.float32))
    result.set_cell(224, 1, 1, np.array([7, PREDICTED]), np.array([0.61, 0.2], np.float32))
    result.set_cell(512, 0, 2, np.array([8, 7]), np.array([0.93, 0.01], np.float32))
    result.set_cell(512, 2, 2, np.array([3, 7]), np.array([0.4, 0.3], np.float32))
    return result


def test_each_crop_is_the_prediction_an_accepted_label_or_another_class():
    cells = {(c.scale, c.row, c.col): c for c in zoom_cells(hand_built(), predicted=PREDICTED, accepted=ACCEPTED)}
    assert len(cells) == 27
    assert cells[224, 1, 1].outcome == CellOutcome.ACCEPTED and cells[224, 1, 1].top1 == 7
    assert cells[224, 1, 1].probability == pytest.approx(0.61)
    assert cells[512, 0, 2].outcome == CellOutcome.ACCEPTED
    assert cells[512, 2, 2].outcome == CellOutcome.OTHER  # 7 is only its second guess
    assert cells[224, 0, 0].outcome == CellOutcome.PREDICTION
    assert cells[10, 2, 1].outcome == CellOutcome.MISSING and cells[10, 2, 1].top1 is None
    # A class both predicted and accepted (no mistake) shows as accepted.
    assert outcome_of(7, predicted=7, accepted={7}) == CellOutcome.ACCEPTED
    assert outcome_of(-1, predicted=7, accepted={7}) == CellOutcome.MISSING


def test_the_summary_says_which_scales_correct_the_mistake():
    summary = summarise(hand_built(), predicted=PREDICTED, accepted=ACCEPTED)
    assert summary.corrected and not summary.complete
    assert (summary.computed, summary.total) == (24, 27)
    assert summary.counts == {"accepted": 2, "prediction": 21, "other": 1, "missing": 3}
    assert summary.corrected_scales == (224, 512)
    assert summary.corrected_cells == ((224, 1, 1), (512, 0, 2))
    assert summary.by_group == {"zoom-out": 0, "zoom-224": 1, "zoom-in": 1}
    assert (summary.best.scale, summary.best.row, summary.best.col, summary.best.top1) == (512, 0, 2, 8)
    json.dumps(summary.as_dict())  # JSON-ready for `reviewer show --json`

    nothing = summarise(hand_built(), predicted=PREDICTED, accepted={999})
    assert not nothing.corrected and nothing.best is None and nothing.corrected_scales == ()
    assert nothing.counts["other"] == 3


def test_json_round_trip_keeps_every_answer_and_the_parameters():
    result = hand_built()
    text = to_json(result)
    back = from_json(text)
    assert back.equals(result, atol=5.1e-5) and back.params == result.params
    assert back.done == result.done == 24 and not back.complete
    assert to_json(back) == text
    assert json.loads(text)["version"] == 1 and json.loads(text)["params"]["scales"] == [10, 224, 512]
    # A full-size result (36 scales x 9 cells x top-5) stays small.
    full = ZoomResult.empty(ZoomParams(), model="tf_efficientnet_lite0", weights_sha256="ab" * 32,
                            image_size=(500, 375))
    rng = np.random.default_rng(0)
    full.classes[:] = rng.integers(0, 1000, full.classes.shape)
    full.probs[:] = rng.random(full.probs.shape, dtype=np.float32)
    assert full.complete and from_json(to_json(full)).equals(full, atol=5.1e-5)
    assert len(to_json(full)) < 25_000


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(version=2), "probe version 2"),
    (lambda d: d.update(format="other"), "not in the zoom-probe format"),
    (lambda d: d["classes"].pop(), "damaged"),
    (lambda d: d["classes"][1].__setitem__(4, [7, 1000]), "damaged"),
    (lambda d: d["params"].update(scales=[224, 10, 512]), "damaged"),
])
def test_a_damaged_or_newer_result_is_refused_with_a_reason(mutate, message):
    data = json.loads(to_json(hand_built()))
    mutate(data)
    with pytest.raises(ZoomFormatError, match=message):
        from_json(json.dumps(data))
    with pytest.raises(ZoomFormatError, match="not JSON"):
        from_json("{")


def test_accepted_labels_are_correct_and_unclear_with_real_added():
    labels = LabelSet(
        image_ids=np.array([10, 11]), original=np.array([1, 2], np.int16), problematic=np.zeros(2, bool),
        rows=np.array([0, 0, 0, 1], np.int32), classes=np.array([1, 4, 6, 2], np.int16),
        kinds=np.array([CORRECT, UNCLEAR, WRONG, CORRECT], np.int8),
        real_rows=np.array([0, 1], np.int32), real_classes=np.array([9, 3], np.int16),
        multilabel=np.ones(2, bool), validation=np.ones(2, bool))
    assert accepted_classes(labels, 10) == {1, 4, 9}
    assert accepted_classes(labels, 10, include_real=False) == {1, 4}
    assert accepted_classes(labels, 11) == {2, 3}
    with pytest.raises(KeyError):
        accepted_classes(labels, 12)


def test_taesiri_accepts_the_original_label_and_real_not_the_multi_labels():
    """Taesiri et al. §3: "the union of the IN and ReaL labels (IN+ReaL)". Image 10: original 1,
    correct 1, unclear 4, wrong 6, ReaL 9. Image 11: original 2 listed wrong, correct 5, ReaL 3.
    Image 12: original 7, no multi-labels, no ReaL."""
    labels = LabelSet(
        image_ids=np.array([10, 11, 12]), original=np.array([1, 2, 7], np.int16), problematic=np.zeros(3, bool),
        rows=np.array([0, 0, 0, 1, 1], np.int32), classes=np.array([1, 4, 6, 2, 5], np.int16),
        kinds=np.array([CORRECT, UNCLEAR, WRONG, WRONG, CORRECT], np.int8),
        real_rows=np.array([0, 1], np.int32), real_classes=np.array([9, 3], np.int16),
        multilabel=np.ones(3, bool), validation=np.ones(3, bool))
    assert taesiri_accepted_classes(labels, 10) == {1, 9}  # not the unclear 4
    assert accepted_classes(labels, 10) == {1, 4, 9}
    assert taesiri_accepted_classes(labels, 11) == {2, 3}  # the original label although listed wrong
    assert accepted_classes(labels, 11) == {3, 5}
    assert taesiri_accepted_classes(labels, 12) == {7}
    with pytest.raises(KeyError):
        taesiri_accepted_classes(labels, 13)
    # A crop finds the unclear label 4 of image 10 (hand_built's centre crop at S=224 answers 7;
    # here 4): corrected by the tool's accepted labels, not by Taesiri et al.'s.
    result = hand_built()
    result.set_cell(224, 1, 1, np.array([4, PREDICTED]), np.array([0.61, 0.2], np.float32))
    result.set_cell(512, 0, 2, np.array([PREDICTED, 4]), np.array([0.5, 0.2], np.float32))
    assert summarise(result, predicted=PREDICTED, accepted=accepted_classes(labels, 10)).corrected
    assert not summarise(result, predicted=PREDICTED, accepted=taesiri_accepted_classes(labels, 10)).corrected
