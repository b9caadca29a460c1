"""The start screen: who you are, your recent projects, a new project, the demo."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.theme import ERROR, QtCard, section_title, set_text_colour, style_headline, style_muted, style_primary


class QtStartScreen(QWidget):
    open_project = Signal(str)
    new_project = Signal()
    open_demo = Signal()
    name_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(40, 40, 40, 40)
        card = QtCard()
        card.setMaximumWidth(720)
        card.setMinimumWidth(520)
        outer.addStretch(1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(card, 3)
        row.addStretch(1)
        outer.addLayout(row)
        outer.addStretch(1)
        layout = QVBoxLayout(card)
        layout.setContentsMargins(28, 24, 28, 24)
        layout.setSpacing(8)
        title = QLabel("ImageNet mistake reviewer")
        style_headline(title, 20)
        subtitle = QLabel("Review the remaining mistakes of image classifiers on ImageNet's multi-label "
                          "evaluation set, as a panel.")
        subtitle.setWordWrap(True)
        style_muted(subtitle)
        layout.addWidget(title)
        layout.addWidget(subtitle)
        layout.addWidget(section_title("Your name on the panel"))
        self.name = QLineEdit()
        self.name.setPlaceholderText("e.g. Ada Lovelace: every vote is recorded under this name")
        self.name.textChanged.connect(self._name_edited)
        # Enter in the name opens the selected recent project, as Enter in the list does.
        self.name.returnPressed.connect(self._open_selected)
        layout.addWidget(self.name)
        self.name_hint = QLabel("Enter your name to open a project.")
        style_muted(self.name_hint)
        layout.addWidget(self.name_hint)
        self.trust_note = QLabel(
            "On a SQLite project this name is taken on trust: anyone who can write the project's file can vote "
            "under any name (the history itself is append-only). On a PostgreSQL panel set up with "
            "'reviewer panel-setup' you act as your database role, whatever is typed here.")
        self.trust_note.setWordWrap(True)
        style_muted(self.trust_note)
        layout.addWidget(self.trust_note)
        layout.addWidget(section_title("Recent projects"))
        self.recent = QListWidget()
        self.recent.setMinimumHeight(140)
        # Activated is a double click or Enter: connecting doubleClicked too opened the project twice.
        self.recent.itemActivated.connect(self._open_item)
        layout.addWidget(self.recent, 1)
        self.no_recent = QLabel("No recent project yet: open one, create one, or start with the demo.")
        style_muted(self.no_recent)
        layout.addWidget(self.no_recent)
        # Why the last project could not be opened, whole (a recovery command is long) and
        # selectable, to copy into a terminal.
        self.error = text_label()
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_text_colour(self.error, ERROR)
        self.error.hide()
        layout.addWidget(self.error)
        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open project…")
        self.open_button.clicked.connect(self._browse)
        self.new_button = QPushButton("New project…")
        self.new_button.clicked.connect(self.new_project)
        self.demo_button = QPushButton("Open the demo")
        style_primary(self.demo_button)
        self.demo_button.clicked.connect(self.open_demo)
        self.demo_button.setToolTip("A few hundred real ImageNet images with the bundled EfficientNet-Lite0 run")
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.new_button)
        buttons.addStretch(1)
        buttons.addWidget(self.demo_button)
        layout.addLayout(buttons)
        self._update_enabled()

    def show_error(self, text: str) -> None:
        """Say why a project could not be opened ("": nothing to say)."""
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def set_name(self, name: str) -> None:
        self.name.setText(name)

    def panelist_name(self) -> str:
        return self.name.text().strip()

    def set_recent(self, projects: list[str]) -> None:
        self.recent.clear()
        for root in projects:
            item = QListWidgetItem(f"{Path(root).name}\n{root}")
            item.setData(Qt.ItemDataRole.UserRole, root)
            item.setToolTip(plain_tip(root))
            self.recent.addItem(item)
        self.recent.setVisible(bool(projects))
        self.no_recent.setVisible(not projects)
        if projects:
            self.recent.setCurrentRow(0)

    def _name_edited(self, text: str) -> None:
        self._update_enabled()
        # Why the last opening failed was about the name then ("bob is not on this panel"):
        # under another name it no longer holds.
        self.show_error("")
        self.name_changed.emit(text.strip())

    def _open_selected(self) -> None:
        item = self.recent.currentItem()
        if item is not None and self.recent.isVisible() and self.panelist_name():
            self._open_item(item)

    def _update_enabled(self) -> None:
        ok = bool(self.panelist_name())
        for button in (self.open_button, self.new_button, self.demo_button):
            button.setEnabled(ok)
        self.recent.setEnabled(ok)
        self.name_hint.setVisible(not ok)

    def _open_item(self, item: QListWidgetItem) -> None:
        if self.panelist_name():
            self.open_project.emit(item.data(Qt.ItemDataRole.UserRole))

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a review project (the folder holding project.json)")
        if folder:
            self.open_project.emit(folder)
