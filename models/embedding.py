"""Image embeddings: the pooled pre-logits features of a timm classifier, L2-normalised.

The same pixels as `reviewer predict` (models.pipeline's batches, timm's eval transform
of the model's own data config) and the same normalisation as `models.inference.Classifier`;
the features are `model.forward_head(model.forward_features(x), pre_logits=True)`, the
vector the classifier's last layer reads (1280 values for EfficientNet-Lite0), which is
what the paper's nearest-neighbour search (§4.5) embeds.
"""

from __future__ import annotations

import numpy as np
import torch

from models.sources import LoadedModel


class Embedder:
    """A loaded model turned into `embed(pixels) -> float32 [B, D]` unit vectors."""

    def __init__(self, loaded: LoadedModel):
        self.loaded = loaded
        self.device = loaded.device
        self.channels_last = self.device.type == "cpu"  # oneDNN's depthwise convolutions prefer NHWC
        self.model = loaded.model.eval().to(self.device)
        if self.channels_last:
            self.model = self.model.to(memory_format=torch.channels_last)
        shape = (1, 3, 1, 1)
        self.mean = torch.tensor(loaded.data_config["mean"], device=self.device).view(shape) * 255
        self.std = torch.tensor(loaded.data_config["std"], device=self.device).view(shape) * 255
        self.dim = int(getattr(self.model, "num_features", 0)) or self._probe_dim()

    def _probe_dim(self) -> int:
        size = self.loaded.data_config["input_size"]
        return int(self.embed(torch.zeros((1, *size), dtype=torch.uint8)).shape[1])

    def embed(self, pixels: torch.Tensor) -> np.ndarray:
        """Unit-length features, float32 [B, D] on the CPU, for a uint8 [B, 3, H, W] batch."""
        with torch.inference_mode():
            layout = torch.channels_last if self.channels_last else torch.contiguous_format
            x = pixels.to(self.device).contiguous(memory_format=layout).float()
            x.sub_(self.mean).div_(self.std)
            features = self.model.forward_head(self.model.forward_features(x), pre_logits=True)
            features = features.float().flatten(1)
            features = torch.nn.functional.normalize(features, dim=1)
            return features.cpu().numpy()
