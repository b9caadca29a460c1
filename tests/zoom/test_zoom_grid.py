"""The zoom grid is the paper's: its scales, its crop boxes computed by hand from §3 and
Appendix A.1, and the pixels of torchvision's Resize + crop that the paper's code runs."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from reviewer.runs.zoom import PAPER_SCALES, iter_crops, open_image, zoom_grid
from reviewer.runs.zoom.grid import crop_box, resized_size


def test_the_36_scales_are_appendix_a3_and_the_codes_construction():
    # The evaluation script builds them as 27 chosen sizes plus ten evenly spaced ones (10 repeated).
    chosen = [10, 16, 32, 48, 64, 96, 128, 192, 224, 240, 256, 288, 320, 384, 448, 512, 576, 640, 664, 672, 680,
              690, 700, 720, 768, 832, 896]
    spaced = [int(x) for x in np.linspace(10, 1024, 10)]
    assert spaced == [10, 122, 235, 348, 460, 573, 686, 798, 911, 1024]
    assert tuple(sorted(set(chosen + spaced))) == PAPER_SCALES
    assert len(PAPER_SCALES) == 36 and PAPER_SCALES[0] == 10 and PAPER_SCALES[-1] == 1024
    assert len(zoom_grid((500, 375))) == 324


def test_crop_boxes_of_a_500x375_image_computed_by_hand():
    # S = 224: shorter side 375 -> 224, longer 500 * 224 / 375 = 298.67 -> 298 (truncated).
    # Tiles 298 // 3 = 99 wide, 224 // 3 = 74 high; anchors x 49, 148, 247 and y 37, 111, 185.
    cells = {(c.row, c.col): c for c in zoom_grid((500, 375), [224])}
    assert {c.resized for c in cells.values()} == {(298, 224)}
    assert cells[0, 0].box == (49 - 112, 37 - 112, 49 + 112, 37 + 112) == (-63, -75, 161, 149)
    assert cells[1, 1].box == (36, -1, 260, 223)
    assert cells[0, 2].box == (135, -75, 359, 149)  # row 0 (top), column 2 (right)
    assert cells[2, 0].box == (-63, 73, 161, 297)
    # S = 10: 13x10, tiles 4 and 3, anchors x 2, 6, 10 and y 1, 4, 7: mostly padding.
    small = {(c.row, c.col): c.box for c in zoom_grid((500, 375), [10])}
    assert small[1, 1] == (6 - 112, 4 - 112, 6 + 112, 4 + 112)
    assert small[2, 2] == (10 - 112, 7 - 112, 10 + 112, 7 + 112)


def test_a_portrait_image_scales_its_width():
    # 375x500 at S = 1024: 1024 x int(1365.33) = 1365; tiles 341 and 455; anchors x 170, 511, 852 and
    # y 227, 682, 1137.
    assert resized_size((375, 500), 1024) == (1024, 1365)
    assert crop_box((1024, 1365), 2, 0) == (58, 1025, 282, 1249)
    assert crop_box((1024, 1365), 0, 2) == (740, 115, 964, 339)
    assert resized_size((400, 400), 256) == (256, 256)


def test_small_scales_are_zero_padded_around_the_whole_image():
    white = Image.new("RGB", (500, 375), (255, 255, 255))
    crops = {(c.scale, c.row, c.col): pixels for c, pixels in iter_crops(white, zoom_grid(white, [10, 128]))}
    centre = crops[10, 1, 1]
    assert centre.shape == (224, 224, 3) and centre.dtype == np.uint8
    # The 13x10 resized image, placed with its top left at (112 - 6, 112 - 4); black everywhere else.
    assert (centre[108:118, 106:119] == 255).all()
    assert int((centre > 0).any(axis=2).sum()) == 13 * 10
    # At 128 (170x128) the centre crop holds the whole image too: 170 * 128 pixels of it.
    assert int((crops[128, 1, 1] > 0).any(axis=2).sum()) == 170 * 128


def _paper_crops(image: Image.Image, scale: int) -> dict[tuple[int, int], np.ndarray]:
    """The paper's transform written with torchvision as its code calls it: Resize(S) of a PIL
    image, bicubic, then `functional.crop` of 224x224 at the anchor of each patch (row, col)."""
    from torchvision.transforms import InterpolationMode, Resize
    from torchvision.transforms import functional as tvf

    resized = Resize(scale, interpolation=InterpolationMode.BICUBIC, max_size=None, antialias=None)(image)
    width, height = resized.size
    crops = {}
    for row in range(3):
        for col in range(3):
            anchor_x = col * (width // 3) + (width // 3) // 2
            anchor_y = row * (height // 3) + (height // 3) // 2
            crops[row, col] = np.asarray(tvf.crop(resized, anchor_y - 112, anchor_x - 112, 224, 224))
    return crops


# Landscape 500x375; portrait 433x500 (neither side divisible by 3); a wide grayscale 350x156.
@pytest.mark.parametrize("name", ["n01440764_tench.JPEG", "n01537544_indigo_bunting.JPEG", "n02692877_airship.JPEG"])
def test_every_crop_has_the_pixels_of_the_papers_torchvision_transform(shared_data, name):
    image = open_image(shared_data / "imagenet-samples" / name)
    reference = {}
    for cell, pixels in iter_crops(image, zoom_grid(image)):
        if cell.scale not in reference:
            reference = {cell.scale: _paper_crops(image.convert("RGB"), cell.scale)}
        np.testing.assert_array_equal(pixels, reference[cell.scale][cell.row, cell.col],
                                      err_msg=f"{name} S={cell.scale} ({cell.row}, {cell.col})")
