"""A damaged neighbour index: the strip says which file and the command that rebuilds it,
where its thumbnails go (the facts' `problem`, reviewer.neighbours.lookup.DamagedIndex). It
said "No usable training image in the index", as if the index were whole and empty."""

from __future__ import annotations

import pytest
from index_data import write_index
from PySide6.QtGui import QColor

from reviewer.ui.theme import ERROR

pytestmark = pytest.mark.gui

TRAIN = [("n01443537_goldfish.JPEG", "n01443537"), ("n02085620_Chihuahua.JPEG", "n02085620")]


def test_the_strip_names_the_damaged_file_and_the_rebuild(qtbot, open_window, review_project, shared_data):
    files = write_index(review_project.root, train_root=shared_data / "imagenet-samples", train=TRAIN, k=2,
                        neighbours={"n01440764_tench.JPEG": [(0, 0.97), (1, 0.41)]})
    files.neighbours_path.write_text('{"k": 2, "images": {"n01440764_tench.JPEG": [[0, 0.9')  # cut short
    window = open_window()
    strip = window.page.neighbours
    qtbot.waitUntil(lambda: strip.isVisible() and strip.strip.empty.isVisible(), timeout=10_000)
    said = strip.strip.empty.text()
    assert "No usable training image" not in said
    assert str(files.neighbours_path) in said and "reviewer index" in said
    assert strip.strip.empty.palette().windowText().color() == QColor(ERROR)
    assert "damaged" in strip.title.plain_text()
    assert "neighbours.json" in strip.duplicates.plain_text() and "reviewer index" in strip.duplicates.plain_text()
