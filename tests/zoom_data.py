"""The zoom grid computed the paper's way, apart from the app's code: Taesiri et al. 2023,
Appendix A.1 (`crop_at`) and their evaluation script: torchvision's `Resize(S)` of a PIL
image (bicubic), `functional.crop` of 224 x 224 at the anchor of each of the 3 x 3 patches,
`to_tensor`, the model's mean and std, the network itself. Importable from any test as
`from zoom_data import ...`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from PIL import Image

PAPER_SCALES = (10, 16, 32, 48, 64, 96, 122, 128, 192, 224, 235, 240, 256, 288, 320, 348, 384, 448, 460, 512,
                573, 576, 640, 664, 672, 680, 686, 690, 700, 720, 768, 798, 832, 896, 911, 1024)  # Appendix A.3


def paper_logits(net: torch.nn.Module, data_config: dict, path: Path) -> dict[tuple[int, int, int], np.ndarray]:
    """{(scale, row, col): the network's logits for that crop} over the paper's 324 crops."""
    from torchvision.transforms import InterpolationMode, Resize
    from torchvision.transforms import functional as tvf

    image = Image.open(path).convert("RGB")
    mean = torch.tensor(data_config["mean"]).view(3, 1, 1)
    std = torch.tensor(data_config["std"]).view(3, 1, 1)
    out = {}
    for scale in PAPER_SCALES:
        resized = Resize(scale, interpolation=InterpolationMode.BICUBIC, max_size=None, antialias=None)(image)
        width, height = resized.size
        keys, tensors = [], []
        for row in range(3):
            for col in range(3):
                anchor_x = col * (width // 3) + (width // 3) // 2  # crop_at: slice_y is the column
                anchor_y = row * (height // 3) + (height // 3) // 2
                crop = tvf.crop(resized, anchor_y - 112, anchor_x - 112, 224, 224)
                keys.append((scale, row, col))
                tensors.append((tvf.to_tensor(crop) - mean) / std)
        with torch.inference_mode():
            logits = net.eval()(torch.stack(tensors)).float().numpy()
        out.update(zip(keys, logits))
    return out


def top1_and_margin(logits: np.ndarray) -> tuple[int, float]:
    """The top-1 class and its lead over the second in logits (a tie, or near one, is no test)."""
    order = np.argsort(-logits, kind="stable")
    return int(order[0]), float(logits[order[0]] - logits[order[1]])
