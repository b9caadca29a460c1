"""Hand-made object boxes on the real sample images of tests/data, for PatchML's tests.

Importable from any test as `from patchml_data import ...` (pytest puts the folder of
tests/conftest.py on sys.path). The sample images are named here with their extension,
so scripts/build_test_data.py keeps them.
"""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent / "data" / "imagenet-samples"

# Drawn by eye on the originals (pixels of each file): wnid x_min y_min x_max y_max.
BOXES = """ImageId,PredictionString
n01440764_tench.JPEG,n01440764 35 125 430 300
n01443537_goldfish.JPEG,n01443537 28 47 300 212
n01494475_hammerhead.JPEG,n01494475 50 56 106 250 n01494475 250 81 294 250
n01534433_junco.JPEG,n01534433 200 160 260 222
n01537544_indigo_bunting.JPEG,n01537544 125 100 312 258
n01560419_bulbul.JPEG,n01560419 90 110 265 495
n01616318_vulture.JPEG,n01616318 104 65 152 160 n01616318 148 75 200 165
n02085620_Chihuahua.JPEG,n02085620 100 12 415 335
n02086240_Shih-Tzu.JPEG,n02086240 220 60 1060 1000
n02091032_Italian_greyhound.JPEG,n02091032 660 330 2160 1595
n02099601_golden_retriever.JPEG,n02099601 40 115 250 405
n02099712_Labrador_retriever.JPEG,n02099712 60 0 450 375
n02123045_tabby.JPEG,n02123045 0 0 335 380
n02692877_airship.JPEG,n02692877 12 15 326 125
n03109150_corkscrew.JPEG,n03109150 350 190 790 1330
n03337140_file.JPEG,n03337140 100 40 1400 1200
n03594945_jeep.JPEG,n03594945 205 270 1075 870
n03617480_kimono.JPEG,n03617480 140 380 985 1630
n03733805_measuring_cup.JPEG,n03733805 84 375 405 855 n03733805 420 390 705 855 n03733805 735 390 1095 870
n03843555_oil_filter.JPEG,n03843555 430 0 970 690
n04285008_sports_car.JPEG,n04285008 40 55 525 280
"""
