"""Model sources: bundled EfficientNet-Lite weights, local checkpoints, the hub (offline here)."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest
import torch
from run_data import TINY_MODEL as TINY

from models import ModelInputError, load_model, resolve_device
from models.bundled import bundled_weights_file


def test_bundled_lite0_loads_offline_with_its_own_preprocessing():
    loaded = load_model("tf_efficientnet_lite0")
    assert loaded.source == "bundled"
    assert loaded.weights_file == bundled_weights_file("tf_efficientnet_lite0")
    assert loaded.weights_sha256 == hashlib.sha256(Path(loaded.weights_file).read_bytes()).hexdigest()
    assert loaded.data_config["input_size"] == (3, 224, 224)
    assert loaded.data_config["interpolation"] == "bicubic"
    assert loaded.data_config["mean"] == (0.5, 0.5, 0.5)
    assert not loaded.model.training
    # The tagged name of the same weights is bundled too.
    assert load_model("tf_efficientnet_lite0.in1k").weights_sha256 == loaded.weights_sha256


@pytest.mark.parametrize("arch,size", [("tf_efficientnet_lite1", 240), ("tf_efficientnet_lite2", 260)])
def test_bundled_lite1_lite2_map_onto_timm(arch, size):
    loaded = load_model(arch)  # the 'models' extra, installed with the test extras
    assert loaded.source == "bundled"
    assert loaded.data_config["input_size"] == (3, size, size)


def test_checkpoint_safetensors_and_pth(tmp_path, tiny_checkpoint, tiny_state_dict):
    loaded = load_model(TINY, checkpoint=tiny_checkpoint)
    assert loaded.source == "checkpoint"
    assert loaded.weights_sha256 == hashlib.sha256(Path(tiny_checkpoint).read_bytes()).hexdigest()
    assert loaded.data_config["input_size"] == (3, 160, 160)
    for key, value in loaded.model.state_dict().items():
        assert torch.equal(value, tiny_state_dict[key])
    # A training script's checkpoint: wrapped, DistributedDataParallel prefix, extra metadata.
    wrapped = tmp_path / "best.pth"
    torch.save({"epoch": 7, "state_dict": {f"module.{k}": v for k, v in tiny_state_dict.items()}}, wrapped)
    loaded = load_model(TINY, checkpoint=wrapped)
    assert torch.equal(loaded.model.state_dict()["conv_stem.weight"], tiny_state_dict["conv_stem.weight"])


def test_checkpoint_of_another_architecture_is_rejected_clearly(tiny_checkpoint):
    with pytest.raises(ModelInputError) as info:
        load_model("test_resnet", checkpoint=tiny_checkpoint)
    message = str(info.value)
    assert str(tiny_checkpoint) in message and "does not match the architecture" in message
    assert "--model" in message


def test_checkpoint_with_wrong_shapes_names_them(tmp_path, tiny_state_dict):
    state = dict(tiny_state_dict)
    state["classifier.weight"] = torch.zeros(10, state["classifier.weight"].shape[1])
    state["classifier.bias"] = torch.zeros(10)
    path = tmp_path / "ten_classes.pth"
    torch.save(state, path)
    with pytest.raises(ModelInputError, match=r"2 tensors of the wrong shape \(classifier.weight \(10, "):
        load_model(TINY, checkpoint=path)


class _Payload:
    """Unpickling this would create a file: the loader must never do it."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def test_checkpoint_with_pickled_code_is_refused_without_running_it(tmp_path, tiny_state_dict):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pth"
    torch.save({"state_dict": tiny_state_dict, "payload": _Payload(marker)}, path)
    with pytest.raises(ModelInputError, match="could run arbitrary code"):
        load_model(TINY, checkpoint=path)
    assert not marker.exists()


@pytest.mark.parametrize("content,name,problem", [
    (b"not a checkpoint at all", "broken.pth", "is not a PyTorch checkpoint"),
    (b"\x00" * 64, "broken.safetensors", "is not a readable safetensors file"),
    (b"{}", "weights.json", "is not a checkpoint format"),
])
def test_unreadable_checkpoints(tmp_path, content, name, problem):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ModelInputError, match=problem):
        load_model(TINY, checkpoint=path)


def test_missing_checkpoint(tmp_path):
    with pytest.raises(ModelInputError, match="no such checkpoint file"):
        load_model(TINY, checkpoint=tmp_path / "nope.pth")


def test_unknown_names_suggest_close_ones():
    with pytest.raises(ModelInputError, match="did you mean .*tf_efficientnet_lite0"):
        load_model("tf_efficientnet_lite00")
    with pytest.raises(ModelInputError, match="no pretrained tag 'nope'.*known tags: .*a1_in1k"):
        load_model("resnet18.nope")


def test_hub_weights_of_other_classes_are_refused_before_downloading():
    with pytest.raises(ModelInputError, match="classify 21843 classes, not the 1000 of ImageNet-1k"):
        load_model("vit_base_patch16_224.augreg_in21k")


def test_hub_offline_fails_fast_and_says_how_to_use_a_local_file(monkeypatch):
    monkeypatch.setattr("models.sources._cached_weights", lambda cfg: None)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    started = time.monotonic()
    with pytest.raises(ModelInputError) as info:
        load_model("resnet18")
    assert time.monotonic() - started < 10
    message = str(info.value)
    assert "cannot be reached" in message and "--checkpoint PATH" in message


def test_devices():
    assert resolve_device("cpu").type == "cpu"
    assert resolve_device(None).type in ("cpu", "cuda", "mps")
    if not torch.cuda.is_available():
        with pytest.raises(ModelInputError, match="CUDA is not available"):
            resolve_device("cuda")
    with pytest.raises(ModelInputError, match="unknown device"):
        resolve_device("tpu9")
