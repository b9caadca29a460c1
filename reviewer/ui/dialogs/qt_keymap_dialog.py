"""Changing the keys: one row per action, keys typed as "W" or "Ctrl+Z",
several separated by commas. Saved to the user config dir; a key bound twice
is refused with both actions named."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reviewer.app.keymap import ACTIONS, DEFAULTS, Keymap, normalise_key, save_keymap
from reviewer.errors import UserError
from reviewer.ui.theme import style_muted


class QtKeymapDialog(QDialog):
    def __init__(self, keymap: Keymap, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Change keys")
        self.resize(620, 640)
        self.keymap = keymap
        layout = QVBoxLayout(self)
        hint = QLabel("Type keys as they read on the keyboard (W, Space, Right, Ctrl+Z); separate several "
                      "with commas; leave empty for none.")
        hint.setWordWrap(True)
        style_muted(hint)
        layout.addWidget(hint)
        self.table = QTableWidget(len(ACTIONS), 2)
        self.table.setHorizontalHeaderLabels(["Action", "Keys"])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        for row, action in enumerate(ACTIONS):
            title = QTableWidgetItem(f"{action.group}: {action.title}")
            title.setFlags(title.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(row, 0, title)
            self.table.setItem(row, 1, QTableWidgetItem(", ".join(keymap.keys(action.name))))
        layout.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
                                   | QDialogButtonBox.StandardButton.RestoreDefaults)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(self.restore_defaults)
        layout.addWidget(buttons)

    def bindings(self) -> dict[str, tuple[str, ...]]:
        out = {}
        for row, action in enumerate(ACTIONS):
            text = self.table.item(row, 1).text()
            out[action.name] = tuple(normalise_key(k) for k in text.split(",") if k.strip())
        return out

    def restore_defaults(self) -> None:
        for row, action in enumerate(ACTIONS):
            self.table.item(row, 1).setText(", ".join(DEFAULTS[action.name]))

    def save(self) -> None:
        keymap = Keymap(bindings=self.bindings())
        try:
            save_keymap(keymap)
        except UserError as exc:
            QMessageBox.warning(self, "Keys not saved", str(exc))
            return
        self.keymap = keymap
        self.accept()
