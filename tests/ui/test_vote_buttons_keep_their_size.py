"""The vote buttons keep their size on a 1280x720 screen whatever is said under them (issue 35,
3): with a note of one's own, the chair's override with its reason and the "superseded" line,
the vote card needed more height than the right column has, and its buttons were crushed to a
few pixels. The lines under the buttons scroll in a box of bounded height instead."""

from __future__ import annotations

import pytest
from review_data import snapshot_of
from test_window_fits_1280x720 import fuller_project  # noqa: F401 (a fixture: the project with an index)

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
    # Not asserted here: the window's minimum height in this state read 674 px in some runs and 734 px in
    # others (the columns' own minimums the same in both), an open point of issue 35's 1280x720 fit;
    # tests/ui/test_window_fits_1280x720.py checks the minimum of the fuller project without an override.
    window.resize(1280, 672)  # the window as short as it lets itself be on a 1280x720 screen
    qtbot.wait(300)  # (in some runs the window keeps a taller height here: an open point, see above)
    for name, button in panel.buttons.items():
        qtbot.waitUntil(lambda b=button: b.height() >= b.sizeHint().height(), timeout=5_000)
    # The lines under the buttons are all there, to be scrolled to.
    assert panel.decision.isVisibleTo(panel) and panel.note.isVisibleTo(panel)
