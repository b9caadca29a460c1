"""The neighbours' headline and duplicates lines are cut with "…" where narrow, the whole line
as tooltip (issue 35, 6): plain labels of fixed height stopped mid-word ("1 of 10 nearest
training i") with nothing to say that more followed. The part alone, on its facts."""

from __future__ import annotations

import pytest

from reviewer.neighbours.lookup import Duplicate, NeighbourFacts, TrainingNeighbour
from reviewer.ui.image_loader import ImageLoader
from reviewer.ui.review.qt_neighbours import QtNeighbours

pytestmark = pytest.mark.gui

SUMMARY = "1 of 10 nearest training images is labelled with the prediction (goldfish), similarity 0.97"
DUPLICATES = ("exact duplicate of n01443537_goldfish.JPEG, labelled goldfish in training · near duplicate "
              "(perceptual hash) of n02692877_airship.JPEG, labelled airship in training")


def test_the_title_and_the_duplicates_end_in_an_ellipsis_with_the_whole_as_tooltip(qtbot, tmp_path):
    loader = ImageLoader(threads=1)
    strip = QtNeighbours(loader)
    qtbot.addWidget(strip)
    strip.resize(330, 220)
    strip.show()
    near = TrainingNeighbour(rank=1, path=str(tmp_path / "a.JPEG"), file_name="a.JPEG", wnid="n01443537",
                             name="goldfish", similarity=0.97, duplicate="exact")
    copy = Duplicate(kind="perceptual", collection="train", path=str(tmp_path / "b.JPEG"), file_name="b.JPEG",
                     wnid="n02692877", name="airship", distance=3)
    strip.show_facts(NeighbourFacts(index="hand_built", k=10, computed=True, neighbours=(near,), duplicates=(copy,),
                                    lines=(SUMMARY, DUPLICATES)))
    qtbot.waitUntil(lambda: strip.title.width() > 0 and strip.title.is_elided(), timeout=5_000)
    for label, whole in ((strip.title, SUMMARY), (strip.duplicates, DUPLICATES)):
        assert label.is_elided()
        assert label.shown_text().endswith("…")
        assert whole in label.toolTip().replace("&#x27;", "'")
    strip.resize(3000, 220)  # wide enough: whole, and no tooltip to repeat it
    qtbot.waitUntil(lambda: not strip.title.is_elided(), timeout=5_000)
    assert strip.title.shown_text().endswith(SUMMARY)
    loader.shutdown()
