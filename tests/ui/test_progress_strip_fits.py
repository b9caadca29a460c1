"""The progress strip at a narrow queue (issue 23, 1280x720): the counts keep their room;
the phase's title gives way first (as the queue rows write it, "①"), the counts are
elided ("…") only where even that is not enough, and the tooltip has every number."""

from __future__ import annotations

from types import SimpleNamespace

from PySide6.QtGui import QFontMetrics

from reviewer.ui.review.qt_progress_strip import QtProgressStrip

PHASE_1 = SimpleNamespace(phase=1, items=121, decided=32, awaits_group=8, voting=81,
                          panelists=[SimpleNamespace(panelist_id=3, done=40, to_do=81)])
TEXT = "me 40/121 · panel 32/121 · 8 meet"


def test_the_counts_keep_their_room_before_the_title_and_are_elided_last(qtbot):
    from reviewer.ui.app import create_app

    create_app()  # the window's font
    strip = QtProgressStrip()
    qtbot.addWidget(strip)
    strip.set_progress([PHASE_1], panelist_id=3)
    assert strip.text_lines() == [f"Phase 1: {TEXT}"]
    metrics = QFontMetrics(strip.font())
    full = metrics.horizontalAdvance("Phase 1") + 8 + metrics.horizontalAdvance(TEXT) + 2

    strip.resize(full + 40, strip.height())
    assert strip.shown_lines() == [("Phase 1", TEXT)]
    strip.resize(full - 10, strip.height())  # a few pixels short: the title gives way, every count stays
    assert strip.shown_lines() == [("①", TEXT)]
    strip.resize(metrics.horizontalAdvance(TEXT) // 2, strip.height())
    ((title, shown),) = strip.shown_lines()
    assert title == "①" and shown.endswith("…") and TEXT.startswith(shown[:-1])
    assert "the panel decided 32, 8 await the group" in strip.toolTip()
