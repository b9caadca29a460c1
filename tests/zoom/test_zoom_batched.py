"""The zoom probe over many images in batches that straddle images (reviewer.runs.zoom.batched):
each crop's answer is the network's for the paper's crop, a stored partial result is completed
without computing its cells again, a first pass leaves the rest missing, a stop hands back
what was computed, and an image that cannot be read is said, not fatal."""

from __future__ import annotations

import numpy as np
import pytest
import timm
import torch
from run_data import DEMO_IMAGES, TINY_MODEL
from timm.data import resolve_data_config
from zoom_data import paper_logits, top1_and_margin

from models import Classifier, InferenceConfig, LoadedModel
from reviewer.runs.zoom import PAPER_SCALES, ZoomParams, ZoomResult
from reviewer.runs.zoom.batched import ProbeJob, probe_images
from reviewer.runs.zoom.probe import FIRST_PASS_SCALES, probe

FILES = [DEMO_IMAGES / "n01443537_goldfish.JPEG", DEMO_IMAGES / "n01494475_hammerhead.JPEG"]  # 376x263, 333x500


@pytest.fixture(scope="module")
def net(tiny_state_dict):
    model = timm.create_model(TINY_MODEL, pretrained=False)
    model.load_state_dict(tiny_state_dict)
    return model.eval()


@pytest.fixture
def tiny(net) -> Classifier:
    loaded = LoadedModel(name=TINY_MODEL, model=net, data_config=resolve_data_config({}, model=net),
                         source="checkpoint", weights_sha256=None, weights_file=None, device=torch.device("cpu"))
    return Classifier(loaded, InferenceConfig(streams=2))


@pytest.mark.slow
def test_each_crop_is_the_networks_answer_for_the_papers_crop(tiny, net):
    # Batches of 7 crops: they straddle scales and, at 324 = 46 * 7 + 2, the two images.
    done = list(probe_images(tiny, [ProbeJob(f.name, f) for f in FILES], batch_size=7, workers=2))
    assert [d.key for d in done] == [f.name for f in FILES]
    for d, path in zip(done, FILES):
        assert d.result.complete and d.computed == 324 and not d.stopped and d.error is None
        assert d.result.params == ZoomParams() and d.result.model == TINY_MODEL
        reference = paper_logits(net, resolve_data_config({}, model=net), path)
        checked = 0
        for (scale, row, col), logits in reference.items():
            top1, lead = top1_and_margin(logits)
            if lead < 1e-6:  # near ties (its logits are about 1e-3): float order may swap them
                continue
            checked += 1
            assert d.result.classes[d.result.scale_index(scale), row, col, 0] == top1, (path.name, scale, row, col)
        assert checked >= 300
        # The same answers as the window's probe of the one image (batches of one scale).
        single = probe(tiny, _open(path))
        np.testing.assert_array_equal(d.result.classes, single.classes)
        np.testing.assert_allclose(d.result.probs, single.probs, atol=1e-6)


def _open(path):
    from reviewer.runs.zoom import open_image

    return open_image(path)


def test_a_partial_result_is_completed_and_a_first_pass_stays_partial(tiny):
    first = list(probe_images(tiny, [ProbeJob("a", FILES[0])], compute=FIRST_PASS_SCALES))[0].result
    assert first.done == 54 and not first.complete
    for scale in PAPER_SCALES:
        assert first.computed[first.scale_index(scale)].all() == (scale in FIRST_PASS_SCALES)
    # Mark the computed cells (class 999) to see that they are kept, not computed again.
    start = first.copy()
    start.classes[first.computed] = np.array([999, 998, 997, 996, 995], np.int16)
    (rest,) = probe_images(tiny, [ProbeJob("a", FILES[0], start=start)], batch_size=18)
    assert rest.computed == 324 - 54 and rest.result.complete
    assert (rest.result.top1()[first.computed] == 999).all() and (rest.result.top1()[~first.computed] != 999).all()
    # A start of another grid (3 scales) or another image size is not taken: all 324 are computed.
    other = ZoomResult.empty(ZoomParams(scales=(128, 224, 448)), model=TINY_MODEL, weights_sha256=None,
                             image_size=(500, 375))
    (fresh,) = probe_images(tiny, [ProbeJob("a", FILES[0], start=other)])
    assert fresh.computed == 324


def test_a_stop_keeps_the_started_image_and_an_unreadable_one_is_said(tiny, tmp_path):
    broken = tmp_path / "broken.JPEG"
    broken.write_bytes(b"not a jpeg")
    batches = []
    predict = tiny.predict

    def counted(pixels):
        batches.append(len(pixels))
        return predict(pixels)
    tiny.predict = counted
    jobs = [ProbeJob("missing", None), ProbeJob("broken", broken), ProbeJob("first", FILES[0]),
            ProbeJob("second", FILES[1])]
    done = list(probe_images(tiny, jobs, batch_size=18, should_stop=lambda: len(batches) >= 3))
    assert [d.key for d in done] == ["missing", "broken", "first"]  # the second image was never started
    assert done[0].result is None and done[0].error == "the project has no file for this image"
    assert done[1].result is None and "not an image file" in done[1].error
    first = done[2]
    assert first.stopped and not first.result.complete
    # Every batch made before the stop was computed and kept (the stop is asked before each is made).
    assert first.computed == first.result.done == 18 * len(batches) and 3 <= len(batches) < 324 // 18
