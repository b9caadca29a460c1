"""The review page's image: which decoded image the view waits for, and the decoding ahead.

A part of `QtReviewPage` (a mixin of it), kept apart because it is one
responsibility: the shown mistake's image at the view's size (or a message where it
cannot be shown), the full resolution when zoomed in, a re-decode once a resize
stops, and the coming mistakes' images decoded before they are needed. It uses the
page's `review`, `loader`, `image`, `_current_detail` and `_mark_shown`; its state
is `_wanted`, the image the view waits for.
"""

from __future__ import annotations

from reviewer.app.mistake_detail import MistakeDetail
from reviewer.review.review_state import PREFETCH_AHEAD
from reviewer.ui.image_loader import Decoded, full_key


class ReviewPageImage:
    """The image of the mistake `QtReviewPage` shows, and those of the mistakes after it."""

    def _show_image(self, detail: MistakeDetail) -> None:
        """The shown mistake's image, or why there is none; asked of the loader at the view's size."""
        if detail.image_path is None:
            self._wanted = None
            self.image.show_message("No image file", f"{detail.file_name}: this project has labels for it but "
                                                     "no image (add its folder with 'reviewer import-images').")
            self._mark_shown("image")
        elif not detail.image_exists:
            self._wanted = None
            self.image.show_message("Image file not found", str(detail.image_path))
            self._mark_shown("image")
        else:
            self._wanted = self.image.fit_key(detail.image_path)
            decoded = self.loader.request(self._wanted, priority=2)
            if decoded is not None:
                self._image_loaded(decoded)
            elif not self.image.has_image() or self.image.message:
                self.image.show_message("Loading…")

    def _image_loaded(self, decoded: Decoded) -> None:
        detail = self._current_detail()
        if detail is None or detail.image_path is None or decoded.key.path != str(detail.image_path):
            return
        if decoded.key.full:
            if decoded.image is not None:
                self.image.show_image(decoded.image, decoded.original_size, keep_view=True, warning=decoded.warning)
            return
        if decoded.key != self._wanted:
            return
        if decoded.image is None:
            self.image.show_message("Cannot read this image", f"{detail.image_path}: {decoded.error}")
        else:
            self.image.show_image(decoded.image, decoded.original_size, warning=decoded.warning)
        self._mark_shown("image")

    def _prefetch_image_of(self, detail: MistakeDetail) -> None:
        """Decode the image of a coming mistake whose facts just arrived, the nearest first."""
        key = (detail.image_id, detail.predicted.index)
        row = self.review.queue.row_of(key) if self.review.queue is not None else None
        ahead = row - self.review.row if row is not None and self.review.row is not None else PREFETCH_AHEAD
        self.loader.request(self.image.fit_key(detail.image_path), priority=-max(ahead, 0))

    def _prefetch_images(self) -> None:
        """Decode the coming mistakes' images at the view's current size (which
        may have changed since their details arrived)."""
        review = self.review
        if review is None or review.queue is None or review.row is None:
            return
        for row in range(review.row + 1, min(len(review.queue), review.row + 1 + PREFETCH_AHEAD)):
            detail = review.detail(review.queue[row].item)
            if detail is not None and detail.image_exists:  # the nearest first
                self.loader.request(self.image.fit_key(detail.image_path), priority=review.row - row)

    def _refit(self) -> None:
        detail = self._current_detail()
        if detail is not None and detail.image_exists and self.image.is_fit():
            key = self.image.fit_key(detail.image_path)
            if key != self._wanted:
                self._wanted = key
                decoded = self.loader.request(key, priority=2)
                if decoded is not None:
                    self._image_loaded(decoded)
                self._prefetch_images()

    def _want_full_resolution(self) -> None:
        detail = self._current_detail()
        if detail is not None and detail.image_exists:
            decoded = self.loader.request(full_key(detail.image_path), priority=2)
            if decoded is not None:
                self._image_loaded(decoded)
