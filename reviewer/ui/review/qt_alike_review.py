"""Alike mistakes reviewed side by side (issue 26), one vote key cast on several at once.

    sets of alike mistakes         | the set's images side by side: each with its file,
    (confusion pair, or embedding  | your vote on it, and whether it is in the selection
    neighbourhood)

A set opens with all its images selected; Space takes the image under the cursor out
(or back in), A all or none, ←/→ (↑/↓ by rows) move the cursor, J/K or PgDn/PgUp the set,
Enter shows the image large. A vote key (1/2/3, M/N, F/S/T, P: the keymap's) casts on the
selection through `reviewer.app.panel.vote_batch`: each image gets that panelist's own vote
row, completed by its own rules (`reviewer.review.alike_review`), and Ctrl+Z takes them back
one at a time. The state is headless (`AlikeReview`); this window shows it, runs the reads
and writes off the UI thread (`OpRunner`) and follows the project's watcher.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QIcon, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from reviewer.app import panel as acts
from reviewer.app.alike_review import AlikeSets, alike_sets, my_votes
from reviewer.app.keymap import Keymap
from reviewer.items import Item
from reviewer.panel.votes import VoteState
from reviewer.project import Project
from reviewer.redact import scrub
from reviewer.review.alike import NEIGHBOURHOOD_SIMILARITY, AlikeBy
from reviewer.review.alike_review import ALIKE_ACTIONS, TOGGLE_PROBLEMATIC, AlikeReview
from reviewer.terms import CATEGORY_SHORT_TITLES
from reviewer.ui.image_loader import Decoded, ImageKey, ImageLoader
from reviewer.ui.keys import KeyDispatcher
from reviewer.ui.ops import OpRunner
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.review.qt_thumbnail_strip import preview_image
from reviewer.ui.theme import ERROR, KIND_COLOURS, MUTED, set_text_colour, style_headline, style_muted
from reviewer.ui.watcher import ProjectWatcher

TILE = QSize(240, 180)
SELECTED = "#1f3a66"
CURSOR = "#2f5fb3"
HELP = ("Space: take the image in or out · A: all or none · ←/→ ↑/↓: image · J/K, PgDn/PgUp: set · "
        "1/2/3 M/N F/S/T P: vote on the selected · Ctrl+Z: undo one · Enter: large · Esc: close")


def vote_text(vote: VoteState) -> str:
    """Your vote on an image, in a few words ("not voted", "wrong · major · fine-grained")."""
    if vote.verdict is None and not vote.problematic:
        return "not voted"
    parts = [vote.verdict or "no verdict", vote.severity, CATEGORY_SHORT_TITLES.get(vote.category or "", "").lower()]
    return " · ".join(p for p in parts if p) + (" · ⚑" if vote.problematic else "")


class QtAlikeReview(QWidget):
    loaded = Signal()  # the sets are listed
    recorded = Signal(str)  # a cast or an undo was written (what the status says)

    def __init__(self, project: Project, panelist, run_id: int, keymap: Keymap, *,
                 watcher: ProjectWatcher | None = None, alike_by: AlikeBy = AlikeBy.CONFUSION,
                 queue_filter=None, parent: QWidget | None = None):
        """`queue_filter`: the mistakes searched for alike ones, as the review page's queue shows them (None: all)."""
        super().__init__(parent)
        self.project, self.panelist, self.run_id, self.keymap = project, panelist, run_id, keymap
        self.queue_filter = queue_filter
        self.watcher = watcher or ProjectWatcher(project, self)
        self.watcher.changed.connect(self._changed)
        self.runner = OpRunner(self.watcher, name="alike", lanes={"read": 1}, parent=self)
        self.loader = ImageLoader(threads=1, cache_size=200, parent=self)
        self.loader.loaded.connect(self._thumbnail_loaded)
        self.state: AlikeReview | None = None
        self.found: AlikeSets | None = None
        self._shut = False
        self.setWindowTitle(f"Alike mistakes: {project.name}")

        self.alike_by = QComboBox()
        for choice in AlikeBy:
            self.alike_by.addItem(choice.title, str(choice))
        self.alike_by.setCurrentIndex(self.alike_by.findData(str(alike_by)))
        self.alike_by.currentIndexChanged.connect(lambda _: self.reload())
        self.alike_by.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # How alike the images of a neighbourhood are: near copies at 0.9, one scene at about
        # 0.75; lower it to gather alike classes (0.55 pairs brassiere and maillot with Lite0).
        self.similarity = QDoubleSpinBox()
        self.similarity.setRange(0.30, 0.99)
        self.similarity.setSingleStep(0.05)
        self.similarity.setDecimals(2)
        self.similarity.setValue(NEIGHBOURHOOD_SIMILARITY)
        self.similarity.setPrefix("similarity ≥ ")
        self.similarity.setKeyboardTracking(False)
        self.similarity.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.similarity.valueChanged.connect(lambda _: self.reload())
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        style_headline(self.title, point_size=13)
        self.status = text_label()
        style_muted(self.status)
        top = QHBoxLayout()
        top.addWidget(QLabel("Alike by"))
        top.addWidget(self.alike_by)
        top.addWidget(self.similarity)
        top.addSpacing(12)
        top.addWidget(self.title, 1)

        self.set_list = QListWidget()
        self.set_list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.set_list.setWordWrap(True)
        self.set_list.setMinimumWidth(300)
        self.set_list.currentRowChanged.connect(self._set_chosen)
        self.reason = text_label()
        self.reason.setWordWrap(True)
        style_muted(self.reason)
        self.tiles = QListWidget()
        self.tiles.setViewMode(QListView.ViewMode.IconMode)
        self.tiles.setResizeMode(QListView.ResizeMode.Adjust)
        self.tiles.setWrapping(True)
        self.tiles.setMovement(QListView.Movement.Static)
        self.tiles.setIconSize(TILE)
        line = self.fontMetrics().lineSpacing()
        self.tiles.setGridSize(QSize(TILE.width() + 16, TILE.height() + 2 * line + 14))
        self.tiles.setSelectionMode(QListWidget.SelectionMode.NoSelection)
        self.tiles.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.tiles.itemClicked.connect(self._tile_clicked)
        self.tiles.itemDoubleClicked.connect(lambda item: self._preview(self.tiles.row(item)))
        centre = QWidget()
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(0, 0, 0, 0)
        centre_layout.addWidget(self.reason)
        centre_layout.addWidget(self.tiles, 1)
        self.empty = text_label()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        style_headline(self.empty, point_size=13)
        set_text_colour(self.empty, MUTED)
        centre_layout.addWidget(self.empty, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.set_list)
        splitter.addWidget(centre)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([320, 1100])
        self.help = text_label(HELP)
        self.help.setWordWrap(True)
        style_muted(self.help)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.help)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.keys = KeyDispatcher(self, self._key_pressed, release_focus=self._release_focus)
        self.reload()

    # -- loading ------------------------------------------------------------------------------
    def set_keymap(self, keymap: Keymap) -> None:
        self.keymap = keymap

    def reload(self) -> None:
        neighbourhood = self.alike_by.currentData() == AlikeBy.NEIGHBOURHOOD
        self.similarity.setVisible(neighbourhood)
        self.say("Finding alike mistakes…")
        self.runner.read(alike_sets, self.project, run_id=self.run_id, panelist_id=self.panelist.id,
                         alike_by=self.alike_by.currentData(), queue_filter=self.queue_filter,
                         similarity=round(self.similarity.value(), 2), on_done=self._loaded, on_error=self._failed)

    def _loaded(self, found: AlikeSets) -> None:
        self.found = found
        self.state = AlikeReview(found.sets, found.votes)
        self.set_list.blockSignals(True)
        self.set_list.clear()
        for _ in found.sets:
            self.set_list.addItem(QListWidgetItem())
        self.set_list.blockSignals(False)
        self._render_sets()
        covered = sum(len(alike) for alike in found.sets)
        self.say(f"{len(found.sets)} sets of alike mistakes: {covered} of the run's {found.mistakes} mistakes "
                 "shown by the queue's filter; the others are in no set" if found.sets else
                 f"No two of the {found.mistakes} mistakes are alike this way.")
        self.empty.setText("" if found.sets else
                           f"No two of the {found.mistakes} mistakes are alike this way: "
                           + ("no label is mistaken for the same class twice. Try Similar images."
                              if found.alike_by == AlikeBy.CONFUSION else
                              "no two images are that alike. Lower the similarity, or try Same confusion."))
        self._show_set()
        self.loaded.emit()

    def say(self, text: str, *, error: bool = False) -> None:
        """The status line (an error in its colour; a database password never shows)."""
        set_text_colour(self.status, ERROR if error else MUTED)
        self.status.setText(scrub(text))

    def _failed(self, error: BaseException) -> None:
        self.say(str(error), error=True)

    # -- showing ------------------------------------------------------------------------------
    def _render_sets(self) -> None:
        state = self.state
        for row, alike in enumerate(state.sets):
            item = self.set_list.item(row)
            done = state.set_complete(alike)
            item.setText(f"{'✓ ' if done else ''}{alike.title} ({len(alike)})")
            item.setToolTip(plain_tip(alike.reason))
            item.setForeground(QBrush(QColor(MUTED if done else "#e6e6e6")))

    def _show_set(self) -> None:
        """The shown set's images as tiles (thumbnails decoded on the loader's worker)."""
        state = self.state
        self.loader.cancel_group("tiles")
        self.tiles.clear()
        shown = state.shown if state else None
        for widget in (self.tiles, self.reason):
            widget.setVisible(shown is not None)
        self.empty.setVisible(shown is None)
        if shown is None:
            self.title.setText("")
            self.reason.setText("")
            return
        self.set_list.blockSignals(True)
        self.set_list.setCurrentRow(state.row)
        self.set_list.blockSignals(False)
        for entry in shown.entries:
            tile = QListWidgetItem()
            tile.setSizeHint(QSize(TILE.width() + 12, TILE.height() + 2 * self.fontMetrics().lineSpacing() + 10))
            tile.setTextAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            self.tiles.addItem(tile)
            path = self.found.paths.get(entry.item)
            if path is not None:
                decoded = self.loader.request(ImageKey(str(path), TILE.width(), TILE.height()), group="tiles")
                if decoded is not None:
                    self._set_icon(tile, decoded)
        self._render()

    def _render(self) -> None:
        """Titles, each tile's vote, the selection and the cursor (no image decoded again)."""
        state = self.state
        shown = state.shown
        chosen = len(state.selection())
        self.title.setText(f"{escape(shown.title)} <span style='color:{MUTED}'>· set {state.row + 1} of "
                           f"{len(state.sets)} · {chosen} of {len(shown)} selected</span>")
        self.reason.setText(shown.reason)
        bold = QFont(self.tiles.font())
        bold.setBold(True)
        for i, entry in enumerate(shown.entries):
            tile = self.tiles.item(i)
            vote = state.my_vote(entry.item)
            mark = "☑" if entry.item in state.selected else "☐"
            tile.setText(f"{mark} {entry.file_name}\n{vote_text(vote)}")
            tile.setForeground(QBrush(QColor(KIND_COLOURS.get(vote.verdict, KIND_COLOURS[None]))))
            colour = CURSOR if i == state.cursor else SELECTED if entry.item in state.selected else None
            tile.setBackground(QBrush(QColor(colour)) if colour else QBrush())
            tile.setFont(bold if i == state.cursor else self.tiles.font())
            tile.setToolTip(plain_tip(f"{entry.file_name}\nyour vote: {vote_text(vote)}"
                                      + ("" if self.found.paths.get(entry.item) else "\nno image file")))
        self.tiles.scrollToItem(self.tiles.item(state.cursor))

    def _thumbnail_loaded(self, decoded: Decoded) -> None:
        state = self.state
        if state is None or state.shown is None or decoded.key.width != TILE.width():
            return
        for i, entry in enumerate(state.shown.entries):
            if str(self.found.paths.get(entry.item)) == decoded.key.path:
                self._set_icon(self.tiles.item(i), decoded)

    @staticmethod
    def _set_icon(tile: QListWidgetItem, decoded: Decoded) -> None:
        if decoded.image is not None:
            tile.setIcon(QIcon(QPixmap.fromImage(decoded.image)))

    def _set_chosen(self, row: int) -> None:
        if self.state is not None and row != self.state.row and self.state.go_to(row):
            self._show_set()

    def _tile_clicked(self, tile: QListWidgetItem) -> None:
        state = self.state
        row = self.tiles.row(tile)
        state.cursor = row
        state.toggle(state.shown.entries[row].item)
        self._render()

    def _preview(self, row: int) -> None:
        entry = self.state.shown.entries[row]
        path = self.found.paths.get(entry.item)
        if path is None:
            self.say(f"{entry.file_name}: this project has no image file for it")
            return
        preview_image(str(path), entry.file_name, f"{entry.file_name}: {self.state.shown.title}", self.loader, self)

    # -- keys -----------------------------------------------------------------------------------
    def _release_focus(self, widget, key: str) -> bool:
        """Enter or Escape in the similarity box: the value applies and the keys are the review's again."""
        if widget is not self.similarity and not self.similarity.isAncestorOf(widget):
            return False
        self.similarity.interpretText()
        self.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    def _columns(self) -> int:
        return max(1, self.tiles.viewport().width() // self.tiles.gridSize().width())

    def _key_pressed(self, key: str) -> bool:
        state = self.state
        if state is None or state.shown is None:
            if self.keymap.action_for(key) != "close_window":
                return False
            self.close()
            return True
        moves = {"Left": -1, "Right": 1, "Up": -self._columns(), "Down": self._columns()}
        if key in moves:
            state.move(moves[key])
        elif key == "Space":
            state.toggle()
        elif key == "A":
            state.toggle_all()
        elif key in ("Return", "Enter"):
            self._preview(state.cursor)
            return True
        elif key in ("PgDown", "PgUp"):
            self._step_set(1 if key == "PgDown" else -1)
            return True
        else:
            return self._action(self.keymap.action_for(key))
        self._render()
        return True

    def _action(self, name: str | None) -> bool:
        if name in ("next", "previous"):
            self._step_set(1 if name == "next" else -1)
        elif name == "undo":
            self.runner.act(acts.undo, self.project, panelist_id=self.panelist.id, on_done=self._undone,
                            on_error=self._failed)
        elif name == "close_window":
            self.close()
        elif name in ALIKE_ACTIONS or name == TOGGLE_PROBLEMATIC:
            self.cast(name)
        elif name == "category_fine_grained_oov":
            self.say("An out-of-vocabulary object is named image by image: on the review page.")
        else:
            return False
        return True

    def _step_set(self, step: int) -> None:
        if (self.state.next_set() if step > 0 else self.state.previous_set()):
            self._show_set()

    # -- votes ----------------------------------------------------------------------------------
    def cast(self, action: str) -> None:
        """Cast a keymap action on the selected images (one vote row each, in one batch)."""
        from reviewer.app.keymap import action as keymap_action

        state = self.state
        cast = state.cast(action)
        title = keymap_action(action).title
        if not cast.votes:
            self.say(cast.describe(title) if cast.refused else "Nothing selected: Space or A selects.")
            return
        state.expect(cast)
        self._render()
        items = [item for item, _ in cast.votes]
        shown = state.shown
        self.runner.act(acts.vote_batch, self.project, panelist_id=self.panelist.id, votes=list(cast.votes),
                        on_done=lambda _, i=items, s=shown, t=cast.describe(title): self._written(i, s, t),
                        on_error=lambda error, i=items: self._write_failed(i, error))

    def _written(self, items: list[Item], shown, said: str) -> None:
        self.runner.read(my_votes, self.project, panelist_id=self.panelist.id, items=items,
                         on_done=lambda votes: self._votes_read(votes, advance_from=shown), on_error=self._failed)
        self.say(f"{said} recorded (Ctrl+Z takes back one at a time)")
        self.recorded.emit(said)

    def _write_failed(self, items: list[Item], error: BaseException) -> None:
        self._failed(error)
        self.runner.read(my_votes, self.project, panelist_id=self.panelist.id, items=items,
                         on_done=self._votes_read, on_error=self._failed)

    def _undone(self, done) -> None:
        row = done.value
        if row is None:
            self.say("Nothing to undo.")
            return
        item = Item(row.image_id, row.predicted)
        self.runner.read(my_votes, self.project, panelist_id=self.panelist.id, items=[item],
                         on_done=self._votes_read, on_error=self._failed)
        self.say("Undone: your last vote (one image)")
        self.recorded.emit("undone")

    def _votes_read(self, votes: dict[Item, VoteState], advance_from=None) -> None:
        state = self.state
        if state is None:
            return
        state.take_votes(votes)
        self._render_sets()
        if advance_from is not None and advance_from is state.shown and state.set_complete() \
                and state.row + 1 < len(state.sets):
            state.next_set()  # every image of the set voted in full: on to the next
            self._show_set()
        elif state.shown is not None:
            self._render()

    def _changed(self, changes) -> None:
        """Votes cast elsewhere (the review page, another window): re-read mine on these images."""
        if self.state is None or not changes.votes:
            return
        items = [item for item in changes.items if item in self.state.items()]
        if items:
            self.runner.read(my_votes, self.project, panelist_id=self.panelist.id, items=items,
                             on_done=self._votes_read, on_error=self._failed)

    def shutdown(self) -> None:
        if self._shut:
            return
        self._shut = True
        self.watcher.changed.disconnect(self._changed)
        self.runner.shutdown(writes_msecs=30_000)
        self.loader.shutdown()

    def closeEvent(self, event) -> None:  # noqa: N802
        self.shutdown()
        super().closeEvent(event)


def open_alike_review(window) -> QtAlikeReview | None:
    """The main window's View > Review alike mistakes: one such window, on the run the
    review page shows, raised when asked for again."""
    bridge = window.bridge
    if window.project is None or bridge is None or bridge.state.run_id is None:
        window.show_message("Open a project with a complete run first.", error=True)
        return None

    def make() -> QtAlikeReview:
        return QtAlikeReview(window.project, window.panelist, bridge.state.run_id, window.keymap,
                             watcher=window.watcher, queue_filter=bridge.state.queue.filter
                             if bridge.state.queue is not None else None)

    return window.side.show("alike_review", make, size=(1500, 940))
