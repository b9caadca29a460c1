"""The review page's actions: a keymap action, by name, turned into the act it names.

A part of `QtReviewPage`, the one way in for a key or a button (the window's menus and
the vote panel's buttons ask it by name): the moves through the queue and undo (of the
review it is given), and the acts it is given in its constructor (zoom and pan of the
image, the zoom probe); any other name goes to the votes' own keys (`vote`). It holds no
state but the review it moves through.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewer.review.state import ReviewState
    from reviewer.ui.qt_image_view import QtImageView
    from reviewer.ui.review.qt_zoom import QtZoomPanel

# The review's own moves, by action name and method: through the queue, and undo.
REVIEW_MOVES = ("next", "previous", "next_unvoted", "undo")
PAN_STEP = 0.2  # of the view, per key


def view_acts(image: QtImageView, zoom: QtZoomPanel) -> dict[str, Callable[[], object]]:
    """The acts on the image and the zoom probe, by action name."""
    return {"zoom_in": image.zoom_in, "zoom_out": image.zoom_out, "zoom_fit": image.zoom_fit,
            "zoom_actual": image.zoom_actual,
            "pan_left": lambda: image.pan(-PAN_STEP, 0), "pan_right": lambda: image.pan(PAN_STEP, 0),
            "pan_up": lambda: image.pan(0, -PAN_STEP), "pan_down": lambda: image.pan(0, PAN_STEP),
            "zoom_probe": zoom.probe_or_toggle, "zoom_scale_smaller": lambda: zoom.step_scale(-1),
            "zoom_scale_larger": lambda: zoom.step_scale(1)}


class ReviewPageActions:
    """The keymap actions of the review page, whether a key or a button asked for them."""

    def __init__(self, acts: Mapping[str, Callable[[], object]], *, vote: Callable[[str], bool]) -> None:
        self._acts = dict(acts)
        self._vote = vote
        self.review: ReviewState | None = None

    def set_review(self, review: ReviewState | None) -> None:
        """The review the moves go through (None: no action applies)."""
        self.review = review

    def trigger(self, name: str) -> bool:
        """Carry out a keymap action; False when it does not apply here."""
        if self.review is None:
            return False
        if name in REVIEW_MOVES:
            getattr(self.review, name)()
            return True
        act = self._acts.get(name)
        if act is not None:
            act()
            return True
        return self._vote(name)
