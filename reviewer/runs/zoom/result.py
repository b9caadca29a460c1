"""What a zoom probe found: per crop the model's top-k, each crop's outcome for
the mistake under review, a summary, and the compact JSON stored with the run.

A crop's outcome (`CellOutcome`) compares its top-1 with the run's prediction
and a set of accepted labels. Two rules give that set:

- this tool's, `accepted_classes` (`ACCEPTED_RULE`): the image's correct or
  unclear multi-labels, with ReaL's labels added when the project has them.
  The review window draws its overlay with it: the labels a panelist accepts.
- Taesiri et al.'s, `taesiri_accepted_classes` (`TAESIRI_RULE`): "For each IN
  image, we use the union of the IN and ReaL labels (IN+ReaL)" (§3), the
  original ImageNet label plus the ReaL labels. Their "98.91%" (ViT-B/32,
  Table 1c) is counted with it. The tool's set differs: on the 20,000 images
  of the published multi-label set (TFDS v3) with ReaL, its correct and
  unclear multi-labels add classes to IN+ReaL on 2,416 images (227 through an
  unclear label), and it leaves out the original label on 611 (not listed
  correct or unclear, nor by ReaL).

A mistake is *corrected by zoom* when some crop's top-1 is accepted, the
paper's "correctly classified given the optimal zoom" (§4.1: at least 1 of the
324 crops correct); with which rule must be said (the report gives both).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Collection

import numpy as np

from reviewer.labels.labelset import LabelSet
from reviewer.runs.zoom.grid import CROP_SIZE, GRID, PAPER_SCALES
from reviewer.terms import StrEnum

# The probe's algorithm (grid.py: resize rule, anchors, padding, interpolation). Raise it when
# any of them changes, so a stored result says which one computed it; the parameters that may
# vary between probes of one version (scales, crop size, top-k) are stored with every result.
PROBE_VERSION = 1
JSON_FORMAT = "zoom-probe"
KNOWN_VERSIONS = frozenset({1})
PROBABILITY_DECIMALS = 4  # in the stored JSON: probabilities within 5e-5
STANDARD_SCALE = 224  # the paper's groups: zoom-out below, zoom-224, zoom-in above (§3)


class ZoomFormatError(ValueError):
    """A stored zoom result this version of the app cannot read (damaged, or newer)."""


class CellOutcome(StrEnum):
    """What one crop's top-1 says about the mistake."""

    ACCEPTED = "accepted"  # one of the image's accepted labels: this framing corrects the mistake
    PREDICTION = "prediction"  # the run's (wrong) prediction again
    OTHER = "other"  # some third class
    MISSING = "missing"  # not computed (the probe was stopped, or is still running)


class ZoomGroup(StrEnum):
    """The paper's three groups of scales (§3)."""

    ZOOM_OUT = "zoom-out"  # S < 224
    ZOOM_224 = "zoom-224"
    ZOOM_IN = "zoom-in"  # S > 224

    @classmethod
    def of(cls, scale: int) -> "ZoomGroup":
        if scale < STANDARD_SCALE:
            return cls.ZOOM_OUT
        return cls.ZOOM_224 if scale == STANDARD_SCALE else cls.ZOOM_IN


@dataclass(frozen=True)
class ZoomParams:
    """The parameters of one probe. `version` names the algorithm (grid.py); the
    rest may be chosen per probe and is stored with its result."""

    scales: tuple[int, ...] = PAPER_SCALES  # strictly increasing
    crop_size: int = CROP_SIZE
    top_k: int = 5
    grid: int = GRID  # fixed by the algorithm; recorded
    interpolation: str = "bicubic"  # fixed by the algorithm (PIL bicubic); recorded
    padding: str = "zero"  # fixed by the algorithm (black outside the resized image); recorded
    version: int = PROBE_VERSION

    def __post_init__(self) -> None:
        scales = tuple(int(s) for s in self.scales)
        if not scales or any(s < 1 for s in scales) or any(a >= b for a, b in zip(scales, scales[1:])):
            raise ValueError(f"zoom scales must be positive and strictly increasing, not {self.scales}")
        if self.crop_size < 1 or not 1 <= self.top_k <= 1000:
            raise ValueError(f"crop size {self.crop_size} / top-k {self.top_k} out of range")
        object.__setattr__(self, "scales", scales)

    def as_dict(self) -> dict[str, Any]:
        return {"scales": list(self.scales), "grid": self.grid, "crop_size": self.crop_size, "top_k": self.top_k,
                "interpolation": self.interpolation, "padding": self.padding}


@dataclass(frozen=True)
class ZoomCell:
    """One crop's answer and outcome."""

    scale: int
    row: int  # 0..2, top first
    col: int  # 0..2, left first
    classes: tuple[int, ...]  # top-k, best first; empty when not computed
    probabilities: tuple[float, ...]
    outcome: CellOutcome

    @property
    def top1(self) -> int | None:
        return self.classes[0] if self.classes else None

    @property
    def probability(self) -> float | None:
        return self.probabilities[0] if self.probabilities else None

    def as_dict(self) -> dict[str, Any]:
        return {"scale": self.scale, "row": self.row, "col": self.col, "top1": self.top1,
                "probability": self.probability, "outcome": str(self.outcome)}


@dataclass(frozen=True, eq=False)
class ZoomResult:
    """The model's top-k over the zoom grid of one image, complete or partial.

    Arrays are indexed [scale index in `params.scales`, row, col, rank]; a cell
    not computed holds class -1 and probability 0.
    """

    params: ZoomParams
    model: str  # the model's name as loaded (timm name)
    weights_sha256: str | None
    image_size: tuple[int, int]  # (width, height) of the original image
    classes: np.ndarray  # int16 [S, 3, 3, k]
    probs: np.ndarray  # float32 [S, 3, 3, k]
    seconds: float = 0.0  # computing time so far

    @classmethod
    def empty(cls, params: ZoomParams, *, model: str, weights_sha256: str | None,
              image_size: tuple[int, int]) -> "ZoomResult":
        shape = (len(params.scales), params.grid, params.grid, params.top_k)
        return cls(params=params, model=model, weights_sha256=weights_sha256, image_size=tuple(image_size),
                   classes=np.full(shape, -1, np.int16), probs=np.zeros(shape, np.float32))

    def copy(self) -> "ZoomResult":
        return replace(self, classes=self.classes.copy(), probs=self.probs.copy())

    @property
    def computed(self) -> np.ndarray:
        """bool [S, 3, 3]: the cells computed."""
        return self.classes[..., 0] >= 0

    @property
    def done(self) -> int:
        return int(self.computed.sum())

    @property
    def total(self) -> int:
        return len(self.params.scales) * self.params.grid ** 2

    @property
    def complete(self) -> bool:
        return self.done == self.total

    def scale_index(self, scale: int) -> int:
        try:
            return self.params.scales.index(scale)
        except ValueError:
            raise KeyError(f"scale {scale} is not in this probe's scales") from None

    def top1(self) -> np.ndarray:
        """int16 [S, 3, 3]: each crop's top-1 class, -1 where not computed."""
        return self.classes[..., 0]

    def set_cell(self, scale: int, row: int, col: int, classes: np.ndarray, probs: np.ndarray) -> None:
        """Record one crop's top-k (the probe fills a working result with this)."""
        index = self.scale_index(scale)
        self.classes[index, row, col] = classes[:self.params.top_k]
        self.probs[index, row, col] = probs[:self.params.top_k]

    def equals(self, other: "ZoomResult", *, atol: float = 0.0) -> bool:
        """Same parameters, model, image size and answers (probabilities within `atol`)."""
        return (self.params == other.params and self.model == other.model
                and self.weights_sha256 == other.weights_sha256 and self.image_size == other.image_size
                and np.array_equal(self.classes, other.classes)
                and bool(np.allclose(self.probs, other.probs, rtol=0, atol=atol)))


# -- outcomes --------------------------------------------------------------------------
ACCEPTED_RULE = "this tool's accepted labels: the correct or unclear multi-labels, with ReaL's labels"
TAESIRI_RULE = "Taesiri et al.'s IN+ReaL: the original ImageNet label with ReaL's labels"


def accepted_classes(labels: LabelSet, image_id: int, *, include_real: bool = True) -> frozenset[int]:
    """This tool's accepted labels (`ACCEPTED_RULE`), the classes a crop's top-1 may be to count as
    correct in the review window: the image's correct or unclear labels (the original label where the
    project has no multi-labels, as `LabelSet` does), with its ReaL labels when `include_real` and the
    project has them. Not Taesiri et al.'s IN+ReaL, which `taesiri_accepted_classes` gives."""
    position = _position(labels, image_id)
    listed = labels.labels_of(position)
    accepted = set(listed["correct"]) | set(listed["unclear"])
    if include_real:
        accepted |= _real(labels, position)
    return frozenset(accepted)


def taesiri_accepted_classes(labels: LabelSet, image_id: int) -> frozenset[int]:
    """Taesiri et al.'s accepted labels (`TAESIRI_RULE`), §3: "For each IN image, we use the union of
    the IN and ReaL labels (IN+ReaL)": the image's original ImageNet label (when known) and its ReaL
    labels (none where the project has no ReaL labels, or ReaL leaves the image out)."""
    position = _position(labels, image_id)
    accepted = _real(labels, position)
    if labels.original[position] >= 0:
        accepted.add(int(labels.original[position]))
    return frozenset(accepted)


def _position(labels: LabelSet, image_id: int) -> int:
    position = int(labels.positions(np.array([image_id]))[0])
    if position < 0:
        raise KeyError(f"image {image_id} is not in the label set")
    return position


def _real(labels: LabelSet, position: int) -> set[int]:
    return {int(c) for c in labels.real_classes[labels.real_rows == position]}


def outcome_of(top1: int, *, predicted: int, accepted: Collection[int]) -> CellOutcome:
    """A crop's outcome. Accepted wins over the prediction, so a prediction that is in
    fact accepted (not a mistake) shows its crops as accepted."""
    if top1 < 0:
        return CellOutcome.MISSING
    if top1 in accepted:
        return CellOutcome.ACCEPTED
    return CellOutcome.PREDICTION if top1 == predicted else CellOutcome.OTHER


def zoom_cells(result: ZoomResult, *, predicted: int, accepted: Collection[int]) -> list[ZoomCell]:
    """Every cell of the grid with its answer and outcome, by scale (ascending), row, column."""
    accepted = frozenset(int(c) for c in accepted)
    cells = []
    for index, scale in enumerate(result.params.scales):
        for row in range(result.params.grid):
            for col in range(result.params.grid):
                classes = result.classes[index, row, col]
                computed = classes[0] >= 0
                cells.append(ZoomCell(
                    scale, row, col,
                    tuple(int(c) for c in classes) if computed else (),
                    tuple(float(p) for p in result.probs[index, row, col]) if computed else (),
                    outcome_of(int(classes[0]), predicted=predicted, accepted=accepted)))
    return cells


@dataclass(frozen=True)
class ZoomSummary:
    """Does some framing correct the mistake, and where."""

    corrected: bool  # some computed crop's top-1 is accepted
    complete: bool  # every crop computed: `corrected` False is then final
    computed: int
    total: int
    counts: dict[str, int]  # crops per CellOutcome (computed ones; 'missing' for the rest)
    corrected_scales: tuple[int, ...]  # scales with an accepted crop, ascending
    corrected_cells: tuple[tuple[int, int, int], ...]  # (scale, row, col) of the accepted crops
    by_group: dict[str, int]  # accepted crops per ZoomGroup
    best: ZoomCell | None = field(default=None)  # the accepted crop of highest probability

    def as_dict(self) -> dict[str, Any]:
        return {"corrected": self.corrected, "complete": self.complete, "computed": self.computed,
                "total": self.total, "counts": dict(self.counts), "corrected_scales": list(self.corrected_scales),
                "corrected_cells": [list(c) for c in self.corrected_cells], "by_group": dict(self.by_group),
                "best": self.best.as_dict() if self.best else None}


def summarise(result: ZoomResult, *, predicted: int, accepted: Collection[int]) -> ZoomSummary:
    cells = zoom_cells(result, predicted=predicted, accepted=accepted)
    hits = [c for c in cells if c.outcome == CellOutcome.ACCEPTED]
    counts = {str(o): sum(1 for c in cells if c.outcome == o) for o in CellOutcome}
    groups = {str(g): sum(1 for c in hits if ZoomGroup.of(c.scale) == g) for g in ZoomGroup}
    best = max(hits, key=lambda c: (c.probability, -c.scale)) if hits else None
    return ZoomSummary(corrected=bool(hits), complete=result.complete, computed=result.done, total=result.total,
                       counts=counts, corrected_scales=tuple(sorted({c.scale for c in hits})),
                       corrected_cells=tuple((c.scale, c.row, c.col) for c in hits), by_group=groups, best=best)


# -- JSON --------------------------------------------------------------------------------
def to_json(result: ZoomResult) -> str:
    """Compact JSON: parameters, model, image size, and per scale the 9 cells' top-k
    classes and probabilities (rounded to 4 decimals; null for a cell not computed)."""
    def per_cell(values: np.ndarray, convert) -> list:
        return [[None if result.classes[s, r, c, 0] < 0 else [convert(v) for v in values[s, r, c]]
                 for r in range(result.params.grid) for c in range(result.params.grid)]
                for s in range(len(result.params.scales))]

    payload = {
        "format": JSON_FORMAT, "version": result.params.version, "params": result.params.as_dict(),
        "model": result.model, "weights_sha256": result.weights_sha256, "image_size": list(result.image_size),
        "seconds": round(result.seconds, 3),
        "classes": per_cell(result.classes, int),
        "probs": per_cell(result.probs, lambda p: round(float(p), PROBABILITY_DECIMALS)),
    }
    return json.dumps(payload, separators=(",", ":"))


# What a stored result may claim before anything is allocated for it: the probe's fixed
# 3 x 3 grid, at most the paper's 36 scales, each within the paper's range, a crop and
# an image of plausible size. A panelist's role can write this table: a payload with
# grid 1500 once asked for petabytes in every reader (issue 29).
MAX_SCALE = max(PAPER_SCALES)
MAX_CROP = 1024
MAX_IMAGE_SIDE = 100_000


def _check_shape(params: Any, image_size: Any) -> None:
    """ValueError unless `params` (the JSON's) fit the probe's fixed shape (above)."""
    if not isinstance(params, dict):
        raise ValueError("params is not an object")
    if params.get("grid") != GRID:
        raise ValueError(f"grid {params.get('grid')!r}: the probe's grid is {GRID} x {GRID}")
    scales = params.get("scales")
    if not isinstance(scales, list) or not 1 <= len(scales) <= len(PAPER_SCALES):
        raise ValueError(f"1 to {len(PAPER_SCALES)} scales expected")
    if not all(isinstance(v, int) and 1 <= v <= MAX_SCALE for v in scales):
        raise ValueError(f"scales must be whole numbers from 1 to {MAX_SCALE}")
    crop, top_k = params.get("crop_size"), params.get("top_k")
    if not (isinstance(crop, int) and 1 <= crop <= MAX_CROP) or not (isinstance(top_k, int) and 1 <= top_k <= 1000):
        raise ValueError(f"crop size {crop!r} / top-k {top_k!r} out of range")
    if params.get("interpolation") != "bicubic" or params.get("padding") != "zero":
        raise ValueError("interpolation and padding are fixed by the probe (bicubic, zero)")
    if not (isinstance(image_size, list) and len(image_size) == 2
            and all(isinstance(v, int) and 1 <= v <= MAX_IMAGE_SIDE for v in image_size)):
        raise ValueError(f"image size {image_size!r} out of range")


def from_json(text: str) -> ZoomResult:
    """The result `to_json` wrote; raises ZoomFormatError for anything else."""
    try:
        data = json.loads(text)
    except (TypeError, json.JSONDecodeError) as exc:
        raise ZoomFormatError(f"a stored zoom result is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != JSON_FORMAT:
        raise ZoomFormatError("a stored zoom result is not in the zoom-probe format")
    version = data.get("version")
    if version not in KNOWN_VERSIONS:
        raise ZoomFormatError(f"a stored zoom result has probe version {version}, which this version of the app "
                              f"does not know (it reads {sorted(KNOWN_VERSIONS)}); update the app, or compute "
                              "the probe again")
    try:
        p = data["params"]
        _check_shape(p, data.get("image_size"))
        model, sha = data.get("model"), data.get("weights_sha256")
        if not isinstance(model, str) or not 0 < len(model) <= 300:
            raise ValueError("the model's name is missing or too long")
        if sha is not None and not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
            raise ValueError("weights_sha256 is not a SHA-256")
        params = ZoomParams(scales=tuple(p["scales"]), crop_size=int(p["crop_size"]), top_k=int(p["top_k"]),
                            grid=int(p["grid"]), interpolation=str(p["interpolation"]), padding=str(p["padding"]),
                            version=int(version))
        result = ZoomResult.empty(params, model=str(data["model"]), weights_sha256=data.get("weights_sha256"),
                                  image_size=tuple(int(v) for v in data["image_size"]))
        result = replace(result, seconds=float(data.get("seconds", 0.0)))
        grid = params.grid
        if len(data["classes"]) != len(params.scales) or len(data["probs"]) != len(params.scales):
            raise ValueError("one entry per scale expected")
        for s, (cls_row, prob_row) in enumerate(zip(data["classes"], data["probs"])):
            if len(cls_row) != grid * grid or len(prob_row) != grid * grid:
                raise ValueError(f"{grid * grid} cells per scale expected")
            for i, (classes, probs) in enumerate(zip(cls_row, prob_row)):
                if classes is None:
                    continue
                if len(classes) != params.top_k or len(probs) != params.top_k:
                    raise ValueError(f"top-{params.top_k} expected")
                if not all(0 <= int(c) < 1000 for c in classes) or not all(
                        math.isfinite(float(v)) and 0 <= float(v) <= 1 for v in probs):
                    raise ValueError("class or probability out of range")
                result.classes[s, i // grid, i % grid] = classes
                result.probs[s, i // grid, i % grid] = probs
    except (KeyError, TypeError, ValueError) as exc:
        raise ZoomFormatError(f"a stored zoom result is damaged ({exc})") from None
    return result
