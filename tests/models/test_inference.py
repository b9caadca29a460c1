"""Forward streams: several batches computed at once, results in order, torch's threads shared."""

from __future__ import annotations

import threading

import pytest
import timm
import torch
from run_data import TINY_MODEL as TINY
from timm.data import resolve_data_config

from models import Classifier, InferenceConfig, LoadedModel, default_streams


@pytest.fixture
def two_torch_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


def tiny_loaded(tiny_state_dict, model: torch.nn.Module | None = None) -> LoadedModel:
    net = timm.create_model(TINY, pretrained=False)
    net.load_state_dict(tiny_state_dict)
    model = model or net
    return LoadedModel(name=TINY, model=model.eval(), data_config=resolve_data_config({}, model=net),
                       source="checkpoint", weights_sha256=None, weights_file=None, device=torch.device("cpu"))


def batches(count: int, size: int = 3) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    return [torch.randint(0, 256, (size, 3, 160, 160), dtype=torch.uint8, generator=generator)
            for _ in range(count)]


def test_streams_give_each_batchs_probabilities_in_order(tiny_state_dict, two_torch_threads):
    classifier = Classifier(tiny_loaded(tiny_state_dict), InferenceConfig(streams=2))
    inputs = batches(5)
    inputs[2] = inputs[2][:0]  # a batch whose images all failed to decode
    with classifier.stream() as streams:
        results = list(streams.map(enumerate(inputs)))
    assert [key for key, _ in results] == [0, 1, 2, 3, 4]
    assert results[2][1] is None
    for (key, probs), pixels in zip(results, inputs):
        if key != 2:
            torch.testing.assert_close(probs, classifier.predict(pixels), rtol=1e-4, atol=1e-6)


def test_streams_compute_at_once_with_a_share_of_torchs_threads(tiny_state_dict, two_torch_threads):
    together = threading.Barrier(2, timeout=20)  # broken (an error) unless two forward passes meet
    seen: list[tuple[str, int]] = []

    class Meeting(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            seen.append((threading.current_thread().name, torch.get_num_threads()))
            together.wait()
            return self.inner(x)

    loaded = tiny_loaded(tiny_state_dict)
    classifier = Classifier(tiny_loaded(tiny_state_dict, Meeting(loaded.model)), InferenceConfig(streams=2))
    with classifier.stream() as streams:
        assert len(list(streams.map(enumerate(batches(4))))) == 4
    assert len({name for name, _ in seen}) == 2 and all(threads == 1 for _, threads in seen)
    assert torch.get_num_threads() == 2  # restored for the rest of the process
    assert classifier.settings() == {"channels_last": True, "streams": 2, "threads": 1, "precision": "fp32"}


def test_overlapping_stream_sets_leave_torchs_threads_as_they_found_them(tiny_state_dict, two_torch_threads):
    loaded = tiny_loaded(tiny_state_dict)
    first = Classifier(loaded, InferenceConfig(streams=2)).stream()
    second = Classifier(loaded, InferenceConfig(streams=2)).stream()
    first.__enter__()
    second.__enter__()  # e.g. a second run started while the first computes
    first.__exit__(None, None, None)
    assert torch.get_num_threads() == 1  # the second still computes with its share
    second.__exit__(None, None, None)
    assert torch.get_num_threads() == 2


def test_a_failing_forward_pass_is_raised_and_threads_are_restored(tiny_state_dict, two_torch_threads):
    class Broken(torch.nn.Module):
        def forward(self, x):
            raise RuntimeError("out of memory in the forward pass")

    classifier = Classifier(tiny_loaded(tiny_state_dict, Broken()), InferenceConfig(streams=2))
    with pytest.raises(RuntimeError, match="out of memory"):
        with classifier.stream() as streams:
            list(streams.map(enumerate(batches(3))))
    assert torch.get_num_threads() == 2


def test_one_stream_per_core_on_a_cpu_and_one_on_an_accelerator(two_torch_threads):
    assert default_streams(torch.device("cpu")) == 2
    assert default_streams(torch.device("cuda")) == 1
    with pytest.raises(ValueError, match="at least 1"):
        Classifier(tiny_loaded(timm.create_model(TINY).state_dict()), InferenceConfig(streams=0))


def test_a_small_batch_padded_to_the_batch_shape_gives_its_own_probabilities(tiny_state_dict):
    # On an accelerator a run's last, smaller batch is padded so the device sees one shape.
    pixels = batches(1, size=3)[0]
    plain = Classifier(tiny_loaded(tiny_state_dict)).predict(pixels)
    padded = Classifier(tiny_loaded(tiny_state_dict), InferenceConfig(pad_to=8)).predict(pixels)
    assert padded.shape == (3, 1000)
    torch.testing.assert_close(padded, plain, atol=1e-6, rtol=1e-5)


def test_reduced_precision_runs_under_autocast_and_is_reported(tiny_state_dict):
    pixels = batches(1, size=2)[0]
    exact = Classifier(tiny_loaded(tiny_state_dict)).predict(pixels)
    reduced = Classifier(tiny_loaded(tiny_state_dict), InferenceConfig(precision="bf16"))
    probs = reduced.predict(pixels)
    assert probs.dtype == torch.float32 and torch.allclose(probs.sum(-1), torch.ones(2), atol=1e-5)
    assert 0 < (probs - exact).abs().max() < 0.05 and reduced.settings()["precision"] == "bf16"
    with pytest.raises(ValueError, match="precision"):
        Classifier(tiny_loaded(tiny_state_dict), InferenceConfig(precision="int8"))
