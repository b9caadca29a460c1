"""Fixtures of the model-layer tests: a tiny random timm model saved as checkpoints."""

from __future__ import annotations

import pytest
import timm
import torch

TINY = "test_efficientnet"  # 0.36 M parameters, 160 px, 1000 classes


@pytest.fixture(scope="session")
def tiny_state_dict() -> dict[str, torch.Tensor]:
    torch.manual_seed(0)
    return timm.create_model(TINY, pretrained=False).state_dict()


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory, tiny_state_dict):
    """The tiny model's weights as .safetensors."""
    from safetensors.torch import save_file

    path = tmp_path_factory.mktemp("ckpt") / "tiny.safetensors"
    save_file({k: v.contiguous() for k, v in tiny_state_dict.items()}, str(path))
    return path
