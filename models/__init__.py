"""Model sources, preprocessing, batched inference and stored predictions.

No Qt and no SQL here: `reviewer.runs` ties these to a project's database.
"""

from models.errors import ModelInputError
from models.inference import Classifier, ForwardStreams, InferenceConfig, default_batch_size, default_streams, top_k
from models.pipeline import BatchLoader, ImageBatch, ImageDecodeError, PipelineConfig, decode_image
from models.sources import LoadedModel, load_model, resolve_device
from models.store import ProbabilityWriter, open_probabilities

__all__ = [
    "BatchLoader", "Classifier", "ForwardStreams", "ImageBatch", "ImageDecodeError", "InferenceConfig", "LoadedModel",
    "ModelInputError", "PipelineConfig", "ProbabilityWriter", "decode_image", "default_batch_size", "default_streams",
    "load_model",
    "open_probabilities", "resolve_device", "top_k",
]
