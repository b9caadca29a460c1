"""The group view's shown item: the row chosen in the list, its votes side by side, and
its image and facts (the review window's widgets) read on a lane of their own.

A part of `QtGroupView` (a mixin of it), kept apart because it is one
responsibility: what the view shows of one split item, each part as its read comes
back (the panel's votes on the "read" lane, the mistake's facts on "facts", the
image from the loader), and only while that item is still the one chosen. It uses
the view's `runner`, `loader`, `headline`, `image`, `neighbours`, `facts`, `votes`
and its `item_shown` signal; its state is `_row` (the chosen row), `_detail`
(its facts) and `_source` (the facts' reader, built on the facts thread).
"""

from __future__ import annotations

from html import escape

from reviewer.app import panel as acts
from reviewer.app.mistake_detail import DetailSource, MistakeDetail
from reviewer.items import Item
from reviewer.panel.group import GroupRow
from reviewer.ui.image_loader import Decoded
from reviewer.ui.theme import MUTED


class GroupViewItem:
    """The item `QtGroupView` shows: its headline, the panel's votes, its facts and image."""

    def _row_selected(self, index: int, *, force: bool = False) -> None:
        if not self._state or not 0 <= index < len(self._state.rows):
            return
        row = self._state.rows[index]
        if not force and self._row is not None and row.item == self._row.item:
            return
        new_item = self._row is None or row.item != self._row.item
        self._row = row
        self.headline.setText(f'<b>{escape(row.predicted_name)}</b> <span style="color:{MUTED}">predicted for '
                              f'{escape(row.file_name)} · phase {", ".join(map(str, row.phases)) or "–"}</span>')
        self.runner.read(acts.group_item, self.project, snapshot=self._state.snapshot, item=row.item,
                            viewer_id=self.panelist.id, on_done=self._panel_loaded, on_error=self._failed)
        if new_item:
            self._detail = None
            self.facts.clear()
            self.neighbours.show_facts(None)
            self.image.show_message("Loading…")
            if row.run_id is not None:
                self.runner.read(self._load_detail, row, lane="facts", on_done=self._detail_loaded,
                                   on_error=lambda e, r=row: self._detail_failed(r, e))

    def _load_detail(self, row: GroupRow) -> MistakeDetail:
        if self._source is None or self._source_stale:  # built on the facts thread: it reads the labels once
            self._source_stale = False
            self._source = DetailSource(self.project)
        return self._source.detail(run_id=row.run_id, image_id=row.item.image_id, predicted=row.item.predicted)

    def _panel_loaded(self, panel) -> None:
        if self._row is None or panel.item != self._row.item:
            return
        chair = any(p.id == self.panelist.id and p.is_chair for p in self._state.snapshot.panelists)
        row = self._row
        self.votes.show_panel(panel, chair=chair,
                              item_text=f"{row.file_name}: predicted {row.predicted_name} (class {row.item.predicted})")
        self.item_shown.emit(panel.item)

    def _detail_loaded(self, detail: MistakeDetail) -> None:
        if self._row is None or (detail.image_id, detail.predicted.index) != tuple(
                (self._row.item.image_id, self._row.item.predicted)):
            return
        self._detail = detail
        self.facts.show_detail(detail)
        self.neighbours.show_facts(detail.neighbours)
        self._show_image()

    def _detail_failed(self, row: GroupRow, error: BaseException) -> None:
        if self._row is row:
            self.image.show_message("No facts for this mistake", str(error))

    def _show_image(self) -> None:
        detail = self._detail
        if detail is None:
            return
        if not detail.image_exists:
            self.image.show_message("No image file", str(detail.image_path or detail.file_name))
            return
        decoded = self.loader.request(self.image.fit_key(detail.image_path), priority=2)
        if decoded is not None:
            self._image_loaded(decoded)

    def _image_loaded(self, decoded: Decoded) -> None:
        detail = self._detail
        if detail is None or detail.image_path is None or decoded.key.path != str(detail.image_path):
            return
        if decoded.image is None:
            self.image.show_message("Cannot read this image", decoded.error)
        else:
            self.image.show_image(decoded.image, decoded.original_size)

    def selected_item(self) -> Item | None:
        return self._row.item if self._row else None
