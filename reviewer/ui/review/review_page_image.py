"""The review page's image: which decoded image the view waits for, and the decoding ahead.

A part of `QtReviewPage` that owns the image view's state: the shown mistake's image at
the view's size (or a message where it cannot be shown), the full resolution when zoomed
in, a re-decode once a resize stops, and the coming mistakes' images decoded before they
are needed. It takes the view and the loader in its constructor and follows the loader and
the view itself; `shown` says the shown mistake's image (or why there is none) is on screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from reviewer.review.state import PREFETCH_AHEAD
from reviewer.ui.image_loader import Decoded, ImageKey, full_key

if TYPE_CHECKING:
    from reviewer.app.mistake_detail import MistakeDetail
    from reviewer.review.state import ReviewState
    from reviewer.ui.image_loader import ImageLoader
    from reviewer.ui.qt_image_view import QtImageView

REFIT_AFTER_MS = 120  # a resize re-decodes the shown image at the new size once the resizing stops


class ReviewPageImage(QObject):
    """The image of the mistake the review shows in `view`, and those of the mistakes after it."""

    shown = Signal()  # the shown mistake's image, or why there is none, is on screen

    def __init__(self, view: QtImageView, loader: ImageLoader, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.view, self.loader = view, loader
        self.review: ReviewState | None = None
        self.wanted: ImageKey | None = None  # the fit image the view waits for
        loader.loaded.connect(self._image_loaded)
        view.full_resolution_wanted.connect(self._want_full_resolution)
        self._refit_timer = QTimer(self, singleShot=True, interval=REFIT_AFTER_MS, timeout=self.refit)
        view.resized.connect(self._refit_timer.start)

    def set_review(self, review: ReviewState | None) -> None:
        """The review whose shown mistake (and those after it) the view shows."""
        self.review = review

    def _current_detail(self) -> MistakeDetail | None:
        item = self.review.current_item() if self.review is not None else None
        return self.review.detail(item) if item else None

    def show(self, detail: MistakeDetail) -> None:
        """The shown mistake's image, or why there is none; asked of the loader at the view's size."""
        if detail.image_path is None:
            self.wanted = None
            self.view.show_message("No image file", f"{detail.file_name}: this project has labels for it but "
                                                    "no image (add its folder with 'reviewer import-images').")
            self.shown.emit()
        elif not detail.image_exists:
            self.wanted = None
            self.view.show_message("Image file not found", str(detail.image_path))
            self.shown.emit()
        else:
            self.wanted = self.view.fit_key(detail.image_path)
            decoded = self.loader.request(self.wanted, priority=2)
            if decoded is not None:
                self._image_loaded(decoded)
            elif not self.view.has_image() or self.view.message:
                self.view.show_message("Loading…")

    def show_loading(self) -> None:
        """The shown mistake's facts (and so its image's file) are still being read."""
        self.wanted = None
        self.view.show_message("Loading…")

    def _image_loaded(self, decoded: Decoded) -> None:
        detail = self._current_detail()
        if detail is None or detail.image_path is None or decoded.key.path != str(detail.image_path):
            return
        if decoded.key.full:
            if decoded.image is not None:
                self.view.show_image(decoded.image, decoded.original_size, keep_view=True, warning=decoded.warning)
            return
        if decoded.key != self.wanted:
            return
        if decoded.image is None:
            self.view.show_message("Cannot read this image", f"{detail.image_path}: {decoded.error}")
        else:
            self.view.show_image(decoded.image, decoded.original_size, warning=decoded.warning)
        self.shown.emit()

    def prefetch_of(self, detail: MistakeDetail) -> None:
        """Decode the image of a coming mistake whose facts just arrived, the nearest first."""
        item = (detail.image_id, detail.predicted.index)
        review = self.review
        row = review.queue.row_of(item) if review.queue is not None else None
        ahead = row - review.row if row is not None and review.row is not None else PREFETCH_AHEAD
        self.loader.request(self.view.fit_key(detail.image_path), priority=-max(ahead, 0))

    def prefetch(self) -> None:
        """Decode the coming mistakes' images at the view's current size (which
        may have changed since their details arrived)."""
        review = self.review
        if review is None or review.queue is None or review.row is None:
            return
        for row in range(review.row + 1, min(len(review.queue), review.row + 1 + PREFETCH_AHEAD)):
            detail = review.detail(review.queue[row].item)
            if detail is not None and detail.image_exists:  # the nearest first
                self.loader.request(self.view.fit_key(detail.image_path), priority=review.row - row)

    def refit(self) -> None:
        """The shown image decoded again at the view's size, where that changed (a resize)."""
        detail = self._current_detail()
        if detail is not None and detail.image_exists and self.view.is_fit():
            key = self.view.fit_key(detail.image_path)
            if key != self.wanted:
                self.wanted = key
                decoded = self.loader.request(key, priority=2)
                if decoded is not None:
                    self._image_loaded(decoded)
                self.prefetch()

    def _want_full_resolution(self) -> None:
        detail = self._current_detail()
        if detail is not None and detail.image_exists:
            decoded = self.loader.request(full_key(detail.image_path), priority=2)
            if decoded is not None:
                self._image_loaded(decoded)
