"""The meeting's item: the one split item chosen in the list, its headline, image, nearest
training images and facts (the review window's widgets), and the panel's votes on it, read off
the UI thread.

A part of the meeting (`QtMeetingView`) that owns what it shows: the row (`row`), its facts
(`detail`) and the facts' reader (built on the facts thread, read again once labels were
imported). It takes the project, the panelist, the meeting's `OpRunner` (the panel's votes on
its "read" lane, the facts on "facts") and the image loader in its constructor, and shows each
read as it comes back, only while that item is still the one chosen. The votes go to the votes
pane through `panel_loaded` (the panel, whether the viewer chairs it, how to name the item),
then `item_shown`; a failed read through `failed`.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QSplitter, QWidget

from reviewer.app import panel as acts
from reviewer.app.mistake_detail import DetailSource, MistakeDetail
from reviewer.items import Item
from reviewer.panel.meeting import MeetingRow
from reviewer.ui.image_loader import Decoded, ImageLoader
from reviewer.ui.meeting._meeting_layout import create_headline, lay_out_centre
from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.review.qt_detail_panel import QtDetailPanel
from reviewer.ui.review.qt_neighbours import QtNeighbours
from reviewer.ui.theme import MUTED


class QtMeetingItem(QSplitter):
    """The centre column of the meeting: the item chosen, `show_row` for each row chosen."""

    panel_loaded = Signal(object, bool, str)  # ItemPanel, the viewer chairs the panel, the item in words
    item_shown = Signal(object)  # Item: its votes are on screen
    failed = Signal(object)  # BaseException

    def __init__(self, project, panelist, runner, loader: ImageLoader, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._project, self._panelist, self._runner, self._loader = project, panelist, runner, loader
        self.row: MeetingRow | None = None
        self.detail: MistakeDetail | None = None
        self._snapshot = None  # the panel's snapshot the row was listed with (who chairs it)
        self._source: DetailSource | None = None
        self._source_stale = False  # labels were imported: the next detail reads them again
        self.headline = create_headline()
        self.image = QtImageView()
        self.facts = QtDetailPanel()
        self.neighbours = QtNeighbours(loader, loader)  # the nearest training images (issue 26)
        lay_out_centre(self, headline=self.headline, image=self.image, neighbours=self.neighbours, facts=self.facts)
        loader.loaded.connect(self._image_loaded)
        self._refit = QTimer(self, singleShot=True, interval=150, timeout=self._show_image)
        self.image.resized.connect(self._refit.start)

    def selected_item(self) -> Item | None:
        return self.row.item if self.row else None

    # -- showing -----------------------------------------------------------------------------
    def show_row(self, row: MeetingRow, snapshot) -> None:
        """Show `row` (listed with `snapshot`): its panel is read again; its facts and image
        only when it is another item than the one shown."""
        new_item = self.row is None or row.item != self.row.item
        self.row, self._snapshot = row, snapshot
        self.headline.setText(f'<b>{escape(row.predicted_name)}</b> <span style="color:{MUTED}">predicted for '
                              f'{escape(row.file_name)} · phase {", ".join(map(str, row.phases)) or "–"}</span>')
        self._runner.read(acts.meeting_item, self._project, snapshot=snapshot, item=row.item,
                          viewer_id=self._panelist.id, on_done=self._panel_loaded, on_error=self.failed.emit)
        if new_item:
            self.detail = None
            self.facts.clear()
            self.neighbours.show_facts(None)
            self.image.show_message("Loading…")
            self.read_facts()

    def clear(self, title: str, text: str) -> None:
        """Nothing to show: `title` and `text` where the image was."""
        self.row = self.detail = None
        self.headline.setText("")
        self.facts.clear()
        self.image.show_message(title, text)

    def labels_changed(self) -> None:
        """Labels were imported: the facts' reader reads them again next time."""
        self._source_stale = True

    def read_facts(self) -> None:
        """Read the shown item's facts again (a decision changes how its top-5 and other runs read)."""
        row = self.row
        if row is not None and row.run_id is not None:
            self._runner.read(self._load_detail, row, lane="facts", on_done=self._detail_loaded,
                              on_error=lambda e, r=row: self._detail_failed(r, e))

    def _load_detail(self, row: MeetingRow) -> MistakeDetail:
        if self._source is None or self._source_stale:  # built on the facts thread: it reads the labels once
            self._source_stale = False
            self._source = DetailSource(self._project)
        return self._source.detail(run_id=row.run_id, image_id=row.item.image_id, predicted=row.item.predicted)

    def _panel_loaded(self, panel) -> None:
        row = self.row
        if row is None or panel.item != row.item:
            return
        chair = any(p.id == self._panelist.id and p.is_chair for p in self._snapshot.panelists)
        self.panel_loaded.emit(panel, chair,
                               f"{row.file_name}: predicted {row.predicted_name} (class {row.item.predicted})")
        self.item_shown.emit(panel.item)

    def _detail_loaded(self, detail: MistakeDetail) -> None:
        if self.row is None or (detail.image_id, detail.predicted.index) != (self.row.item.image_id,
                                                                            self.row.item.predicted):
            return
        self.detail = detail
        self.facts.show_detail(detail)
        self.neighbours.show_facts(detail.neighbours)
        self._show_image()

    def _detail_failed(self, row: MeetingRow, error: BaseException) -> None:
        if self.row is row:
            self.image.show_message("No facts for this mistake", str(error))

    def _show_image(self) -> None:
        detail = self.detail
        if detail is None:
            return
        if not detail.image_exists:
            self.image.show_message("No image file", str(detail.image_path or detail.file_name))
            return
        decoded = self._loader.request(self.image.fit_key(detail.image_path), priority=2)
        if decoded is not None:
            self._image_loaded(decoded)

    def _image_loaded(self, decoded: Decoded) -> None:
        detail = self.detail
        if detail is None or detail.image_path is None or decoded.key.path != str(detail.image_path):
            return
        if decoded.image is None:
            self.image.show_message("Cannot read this image", decoded.error)
        else:
            self.image.show_image(decoded.image, decoded.original_size)
