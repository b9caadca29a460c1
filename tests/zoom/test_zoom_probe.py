"""The probe over the grid: partial results first-pass first, a stop that keeps what was
computed, each crop's answer where it belongs; and the real model on a real image."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import timm
import torch
from run_data import TINY_MODEL, WNID_INDEX
from timm.data import resolve_data_config

from models import Classifier, InferenceConfig, LoadedModel, load_model, top_k
from reviewer.runs.zoom import PAPER_SCALES, iter_crops, open_image, summarise, zoom_grid
from reviewer.runs.zoom.probe import FIRST_PASS_SCALES, probe, probe_order


@pytest.fixture
def tiny(tiny_state_dict) -> Classifier:
    net = timm.create_model(TINY_MODEL, pretrained=False)
    net.load_state_dict(tiny_state_dict)
    loaded = LoadedModel(name=TINY_MODEL, model=net.eval(), data_config=resolve_data_config({}, model=net),
                         source="checkpoint", weights_sha256=None, weights_file=None, device=torch.device("cpu"))
    return Classifier(loaded, InferenceConfig(streams=2))


@pytest.fixture(scope="module")
def tench(shared_data):
    return open_image(shared_data / "imagenet-samples" / "n01440764_tench.JPEG")


def test_the_order_is_the_first_pass_then_the_widest_gaps_first():
    order = probe_order(PAPER_SCALES)
    assert sorted(order) == list(PAPER_SCALES)
    assert tuple(order[:6]) == FIRST_PASS_SCALES
    # Each later scale was, when taken, at least as far (in log scale) from those done as any later one.
    for i in range(6, len(order)):
        gap = min(abs(math.log(order[i]) - math.log(d)) for d in order[:i])
        assert all(min(abs(math.log(s) - math.log(d)) for d in order[:i]) <= gap + 1e-12 for s in order[i:])
    assert order[6] == 10  # the widest gap at first: 10 px to 128 px
    assert probe_order([100, 200, 400]) == [200, 100, 400]  # no first-pass scale: the middle one starts


def test_partial_results_come_first_pass_first_and_are_snapshots(tiny, tench):
    seen = []
    result = probe(tiny, tench, scales=[10, 128, 224, 288, 700, 1024], batch_size=9, progress=seen.append)
    assert result.complete and result.done == 54
    assert [p.done for p in seen] == list(range(9, 55, 9))
    first = [s for s in (128, 288, 1024)]  # the first-pass scales among those asked, computed first
    after_three = seen[2].result
    assert sorted(s for s in after_three.params.scales
                  if after_three.computed[after_three.scale_index(s)].all()) == first
    assert [p.first_pass_done for p in seen] == [False, False, True, True, True, True]
    assert seen[0].result.done == 9  # a snapshot: later batches did not write into it
    np.testing.assert_array_equal(seen[-1].result.classes, result.classes)
    assert all(0 < a.elapsed <= b.elapsed for a, b in zip(seen, seen[1:]))


@pytest.mark.parametrize("forward_seconds", [0, 0.05])  # slow: a third batch is in flight at the stop
def test_a_stop_returns_what_was_computed(tiny, tench, forward_seconds):
    predict = tiny.predict

    def slow_predict(pixels):
        time.sleep(forward_seconds)
        return predict(pixels)
    tiny.predict = slow_predict
    calls = []
    result = probe(tiny, tench, batch_size=9, progress=calls.append, should_stop=lambda: len(calls) >= 2)
    assert len(calls) == 2 and result.done == 18 and not result.complete
    assert result.computed[result.scale_index(128)].all() and result.computed[result.scale_index(192)].all()
    summary = summarise(result, predicted=0, accepted={1})
    assert not summary.complete and summary.counts["missing"] == 324 - 18
    nothing = probe(tiny, tench, should_stop=lambda: True)
    assert nothing.done == 0


def test_each_answer_is_the_models_answer_for_that_crop(tiny, tench):
    scales = [192, 448]
    result = probe(tiny, tench, scales=scales, top=5, batch_size=4)  # batches that straddle scales
    cells = zoom_grid(tench, scales)
    pixels = torch.from_numpy(np.stack([p for _, p in iter_crops(tench, cells)])).permute(0, 3, 1, 2)
    classes, probs = top_k(tiny.predict(pixels), 5)
    for cell, expected_classes, expected_probs in zip(cells, classes, probs):
        index = result.scale_index(cell.scale)
        np.testing.assert_array_equal(result.classes[index, cell.row, cell.col], expected_classes)
        np.testing.assert_allclose(result.probs[index, cell.row, cell.col], expected_probs, atol=1e-6)
    assert len({tuple(p) for p in result.probs.reshape(18, 5)}) == 18  # 18 different crops


@pytest.mark.slow
def test_lite0_over_the_whole_grid_of_a_real_image(shared_data):
    """The bundled EfficientNet-Lite0 over the 324 crops; a few crops checked against the paper's
    pipeline written independently (torchvision crop, ToTensor, the model's mean and std)."""
    from torchvision.transforms import InterpolationMode, Resize
    from torchvision.transforms import functional as tvf

    name = "n01443537_goldfish.JPEG"
    image = open_image(shared_data / "imagenet-samples" / name)
    loaded = load_model("tf_efficientnet_lite0", device="cpu")
    result = probe(loaded, image)
    assert result.complete and result.model == "tf_efficientnet_lite0" and result.weights_sha256
    truth = WNID_INDEX[name.split("_")[0]]
    summary = summarise(result, predicted=-1, accepted={truth})
    assert summary.corrected and summary.counts["accepted"] >= 9

    mean = torch.tensor(loaded.data_config["mean"]).view(3, 1, 1)
    std = torch.tensor(loaded.data_config["std"]).view(3, 1, 1)
    model = timm.create_model("tf_efficientnet_lite0", pretrained=False)
    model.load_state_dict(loaded.model.state_dict())
    model.eval()
    for scale, row, col in [(16, 1, 1), (224, 0, 0), (448, 1, 2), (1024, 2, 1)]:
        resized = Resize(scale, interpolation=InterpolationMode.BICUBIC)(image)
        width, height = resized.size
        left = col * (width // 3) + (width // 3) // 2 - 112
        top = row * (height // 3) + (height // 3) // 2 - 112
        tensor = (tvf.to_tensor(tvf.crop(resized, top, left, 224, 224)) - mean) / std
        with torch.inference_mode():
            probs = model(tensor[None]).softmax(-1)[0]
        index = result.scale_index(scale)
        assert result.classes[index, row, col, 0] == int(probs.argmax()), (scale, row, col)
        assert result.probs[index, row, col, 0] == pytest.approx(float(probs.max()), abs=1e-4)
