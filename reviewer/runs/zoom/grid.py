"""The zoom grid of Taesiri et al. (2023), "ImageNet-Hard: The Hardest Images
Remaining from a Study of the Power of Zoom and Spatial Biases in Image
Classification" (NeurIPS Datasets and Benchmarks), §3 and Appendix A.

What the paper and its code (github.com/taesiri/ZoomIsAllYouNeed,
`src/evaluators/eval-IN-trained.py`, the script behind the paper's Table 1)
fix, and where each choice here comes from:

- **Scales.** §3: "36 different values of S ranging from 10 to 1024 px";
  Appendix A.3 lists them (`PAPER_SCALES`). The code builds the same set as 27
  hand-picked sizes plus `int(x) for x in np.linspace(10, 1024, 10)` (10, 122,
  235, 348, 460, 573, 686, 798, 911, 1024), 37 entries of which 10 appears
  twice; the 36 distinct values are Appendix A.3's list.
- **Resize.** §3: "uniformly resize the test image so that the smaller
  dimension matches the target scale of S"; the code:
  `transforms.Resize(S, interpolation=BICUBIC, max_size=None, antialias=None)`
  on a PIL image, i.e. PIL's bicubic resample (which always antialiases), to
  a shorter side of S and a longer side of `int(S * long / short)` (torchvision's
  rounding: truncation). `resized_size` and `resize` do exactly that, for
  zooming out (S < shorter side) and in alike.
- **Positions.** §3: "a 3x3 grid on the image to divide it into 9 patches ...
  a CenterCrop ... at the center of each patch to extract a 224x224 px crop";
  the code (`crop_at`, Appendix A.1) computes the centres with integer
  division, which is what is done here: `tile = size // 3`,
  `anchor = index * tile + tile // 2`, crop box `anchor - 224 // 2` to
  `+ 224`. (The code's `slice_x` is the row, its `slice_y` the column.) With a
  side not divisible by 3 the anchors are a pixel or two left of / above the
  true patch centres, as in the paper.
- **Small scales.** §3: "zero-padding is used when the content to be cropped
  is smaller than 224x224". The code crops the PIL image with
  `torchvision.transforms.functional.crop`, i.e. `PIL.Image.crop`, which fills
  what lies outside the image with 0: black pixels, *before* normalisation
  (ToTensor then Normalize follow the crop). The same applies to any crop
  reaching past an edge, at every scale (at S = 224 the corner crops of a
  4:3 image hold a black band). Here: `PIL.Image.crop` as well.
- **Normalisation.** The code normalises with the torchvision models' ImageNet
  mean and std. The paper's models are torchvision ones; for ours the
  model's own pretrained config does it (`models.Classifier`, from timm's
  data config: mean = std = 0.5 for EfficientNet-Lite), so a black pad is
  (0 - mean) / std as in the paper.
- **Crop size.** 224 for every model in the paper; kept at 224 by default
  (`ZoomParams.crop_size`) for models whose own input is larger.

Left open by the paper and code: the order in which the 324 crops are
computed (they ran one scale and one position over a whole dataset at a time)
and how an image with an alpha channel or another mode becomes RGB (their
ImageFolder converted to RGB; `models.pipeline.to_rgb` puts transparency on
white, as the app's runs do).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
from PIL import Image

# Appendix A.3, in the paper's order (ascending).
PAPER_SCALES: tuple[int, ...] = (
    10, 16, 32, 48, 64, 96, 122, 128, 192, 224, 235, 240, 256, 288, 320, 348, 384, 448, 460, 512,
    573, 576, 640, 664, 672, 680, 686, 690, 700, 720, 768, 798, 832, 896, 911, 1024,
)
# The probe's first pass (reviewer.runs.zoom.probe): six scales about x1.5 apart, 54 crops.
FIRST_PASS_SCALES: tuple[int, ...] = (128, 192, 288, 448, 672, 1024)
GRID = 3  # §3: a 3x3 grid
CROP_SIZE = 224  # §3: 224x224 px crops


@dataclass(frozen=True)
class GridCell:
    """One crop of the zoom grid: scale S, row and column (0..2, top left first),
    the size (width, height) of the image resized to S, and the crop box in it
    (left, top, right, bottom; may reach outside the resized image)."""

    scale: int
    row: int
    col: int
    resized: tuple[int, int]
    box: tuple[int, int, int, int]


def resized_size(size: tuple[int, int], scale: int) -> tuple[int, int]:
    """(width, height) of an image of `size` resized so that its shorter side is `scale`:
    torchvision's `Resize(int)` rule, the longer side `int(scale * long / short)`."""
    width, height = size
    if width <= height:
        return scale, int(scale * height / width)
    return int(scale * width / height), scale


def crop_box(resized: tuple[int, int], row: int, col: int, crop_size: int = CROP_SIZE) -> tuple[int, int, int, int]:
    """The paper's `crop_at(crop_size, slice_x=row, slice_y=col)` box in an image of size `resized`."""
    width, height = resized
    tile_x, tile_y = width // GRID, height // GRID
    anchor_x = col * tile_x + tile_x // 2
    anchor_y = row * tile_y + tile_y // 2
    left, top = anchor_x - crop_size // 2, anchor_y - crop_size // 2
    return left, top, left + crop_size, top + crop_size


def zoom_grid(image: Image.Image | tuple[int, int], scales: Sequence[int] = PAPER_SCALES,
              crop_size: int = CROP_SIZE) -> list[GridCell]:
    """The grid's cells for an image (or its (width, height)): scale by scale in the order
    given, each scale's 9 cells row by row. Geometry only: nothing is resized here."""
    size = image.size if isinstance(image, Image.Image) else tuple(image)
    cells = []
    for scale in scales:
        resized = resized_size(size, scale)
        cells.extend(GridCell(scale, row, col, resized, crop_box(resized, row, col, crop_size))
                     for row in range(GRID) for col in range(GRID))
    return cells


def resize(image: Image.Image, scale: int) -> Image.Image:
    """The image resized to a shorter side of `scale` with PIL's bicubic filter (the paper's
    torchvision `Resize` on a PIL image calls exactly this)."""
    size = resized_size(image.size, scale)
    if size == image.size:
        return image  # torchvision returns the image unchanged too
    return image.resize(size, Image.Resampling.BICUBIC)


def iter_crops(image: Image.Image, cells: Sequence[GridCell]) -> Iterator[tuple[GridCell, np.ndarray]]:
    """(cell, uint8 HWC crop) for each cell, lazily: the image is resized once per run of
    consecutive cells of one scale, and only that resized copy is held."""
    from models.pipeline import to_rgb  # (models loads torch: not for the geometry alone)

    rgb = to_rgb(image)
    current_scale, resized = None, None
    for cell in cells:
        if cell.scale != current_scale:
            current_scale, resized = cell.scale, resize(rgb, cell.scale)
        # PIL.Image.crop fills the area outside the image with zeros (the paper's zero padding).
        yield cell, np.asarray(resized.crop(cell.box))


def open_image(path: str | Path) -> Image.Image:
    """An image file as an RGB PIL image, decoded as the app's runs decode it
    (`models.pipeline.decode_image`: same checks and errors, transparency on white);
    raises `models.ImageDecodeError` with the reason."""
    from models.pipeline import decode_image

    # decode_image closes the file it opened: keep a copy of the decoded pixels.
    return decode_image(path, lambda rgb: rgb.copy())
