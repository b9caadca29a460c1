"""The zoom probe of one mistake (Taesiri et al. 2023, "ImageNet-Hard ... Power of
Zoom", §3): the run's model over 36 scales x a 3x3 grid of 224-px crops of the
image, and whether some framing corrects the mistake.

- `grid`: the paper's geometry (scales, resize, crop boxes, zero padding);
- `probe`: the model over the grid, progressive (a first answer over six
  scales first) and cancellable, for a worker thread;
- `result`: the answers, each crop's outcome for the mistake, the summary,
  the compact JSON;
- `store`: the results stored with the run (table `zoom_probe`).

Part of `reviewer.runs`: may import `models`, `db`, `classes` and `labels`. The
probe (torch) is imported from `reviewer.runs.zoom.probe` only where a model runs:
a window that reads stored results and draws the grid never loads torch.
"""

from reviewer.runs.zoom.grid import CROP_SIZE, PAPER_SCALES, GridCell, iter_crops, open_image, zoom_grid
from reviewer.runs.zoom.result import (
    PROBE_VERSION,
    CellOutcome,
    ZoomCell,
    ZoomFormatError,
    ZoomGroup,
    ZoomParams,
    ZoomResult,
    ZoomSummary,
    accepted_classes,
    from_json,
    outcome_of,
    summarise,
    to_json,
    zoom_cells,
)
from reviewer.runs.zoom.store import StoredZoom, load_zoom, save_zoom

__all__ = [
    "CROP_SIZE", "PAPER_SCALES", "PROBE_VERSION", "CellOutcome", "GridCell", "StoredZoom",
    "ZoomCell", "ZoomFormatError", "ZoomGroup", "ZoomParams", "ZoomResult", "ZoomSummary",
    "accepted_classes", "from_json", "iter_crops", "load_zoom", "open_image", "outcome_of",
    "save_zoom", "summarise", "to_json", "zoom_cells", "zoom_grid",
]
