"""The vote buttons keep their size on a 1280x720 screen whatever is said under them (issue 35,
3): with a note of one's own, the chair's override with its reason and the "superseded" line,
the vote card needed more height than the right column has, and its buttons were crushed to a
few pixels. The lines under the buttons scroll in a box of bounded height instead."""

from __future__ import annotations

import pytest
from review_data import snapshot_of
from test_window_fits_1280x720 import MAX_HEIGHT, fuller_project  # noqa: F401 (a fixture: the project with an index)

from reviewer.app import panel as acts
from reviewer.items import Item

pytestmark = pytest.mark.gui

LONG = " ".join(f"word{k}" for k in range(400))


def test_the_vote_buttons_keep_their_height_at_the_minimum_size(qtbot, open_window, fuller_project):  # noqa: F811
    project = fuller_project
    ann = acts.add_panelist(project, "ann", chair=True).value
    bob = acts.add_panelist(project, "bob").value
    acts.add_panelist(project, "cat")
    first = Item(project.ids["n01440764_tench.JPEG"], 1)
    assert first in [Item(i.image_id, i.predicted) for i in snapshot_of(project).items]
    acts.vote(project, panelist_id=bob.id, item=first, verdict="correct", note="bob's own long note: " + LONG)
    acts.override(project, chair_id=ann.id, item=first, verdict="wrong", severity="major",
                  category="fine_grained", reason="the chair's reason: " + LONG)
    window = open_window(panelist_name="bob")
    page = window.page
    if window.bridge.state.current_item() != tuple(first):
        with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
            page.go_to_item(first)
    qtbot.waitUntil(lambda: page.zoom.view is not None and page.neighbours.isVisible(), timeout=20_000)
    panel = page.vote_panel
    qtbot.waitUntil(lambda: panel.decision.isVisible() and panel.note.isVisible()
                    and "superseded" in panel.decision.text(), timeout=10_000)
    # The window still fits a 1280x720 screen with the override's notice above the vote (696 px) once
    # its columns are laid out: while the image's parts arrive the centre column's minimum passes
    # through 652 px, and a reading taken at that moment said 734 px for the window (in about half
    # the runs; the reason this test once left the height out).
    qtbot.waitUntil(lambda: window.minimumSizeHint().height() <= MAX_HEIGHT, timeout=3_000)
    window.resize(1280, 672)  # the window as short as it lets itself be on a 1280x720 screen
    for name, button in panel.buttons.items():
        qtbot.waitUntil(lambda b=button: b.height() >= b.sizeHint().height(), timeout=5_000)
    # The lines under the buttons are all there, to be scrolled to.
    assert panel.decision.isVisibleTo(panel) and panel.note.isVisibleTo(panel)
