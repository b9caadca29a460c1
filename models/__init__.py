"""Model sources, preprocessing, batched inference and stored predictions.

No Qt and no SQL here: `reviewer.runs` ties these to a project's database. The names
below load on first use, so a torch-free module (`models.ranking` with `top_k`, `models.store`, `models.logits`)
can be imported by reports and `import-logits` without loading torch.
"""

from __future__ import annotations

import importlib

_HOMES = {
    "ModelInputError": "models.errors",
    "Classifier": "models.inference", "ForwardStreams": "models.inference", "InferenceConfig": "models.inference",
    "default_batch_size": "models.inference", "default_streams": "models.inference", "top_k": "models.ranking",
    "PRECISIONS": "models.inference", "DEFAULT_PRECISION": "models.inference",
    "BatchLoader": "models.pipeline", "ProcessBatchLoader": "models.pipeline",
    "create_batch_loader": "models.pipeline", "ImageBatch": "models.pipeline", "ImageDecodeError": "models.pipeline",
    "PipelineConfig": "models.pipeline", "decode_image": "models.pipeline",
    "LoadedModel": "models.sources", "load_model": "models.sources", "resolve_device": "models.sources",
    "ProbabilityWriter": "models.store", "open_probabilities": "models.store",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'models' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
