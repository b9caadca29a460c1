"""Changing the keys: one row per action, keys typed as "W" or "Ctrl+Z",
several separated by commas, or recorded: "Record a key" and then the key
itself, read as the window reads it (`reviewer.ui.keys`), so "?" is recorded
as "?" whatever the layout. Saved to the user config dir; a key bound twice
is refused with both actions named."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reviewer.app.keymap import ACTIONS, DEFAULTS, Keymap, action, find_conflicts, normalise_key, save_keymap
from reviewer.errors import UserError
from reviewer.ui.keys import key_text
from reviewer.ui.plain import text_label
from reviewer.ui.theme import ERROR, set_text_colour, style_muted


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
        for row, act in enumerate(ACTIONS):
            title = QTableWidgetItem(f"{act.group}: {act.title}")
            title.setFlags(title.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(row, 0, title)
            self.table.setItem(row, 1, QTableWidgetItem(", ".join(keymap.keys(act.name))))
        layout.addWidget(self.table)
        record_row = QHBoxLayout()
        self.record = QPushButton("Record a key")
        self.record.setToolTip("Then press the key: it is added to the selected action's keys")
        self.record.clicked.connect(self.start_recording)
        self.recording = text_label("")
        style_muted(self.recording)
        record_row.addWidget(self.record)
        record_row.addWidget(self.recording, 1)
        layout.addLayout(record_row)
        # A key bound twice is said at once, where it is typed or recorded, not only on Save.
        self.conflict = text_label("")
        self.conflict.setWordWrap(True)
        set_text_colour(self.conflict, ERROR)
        layout.addWidget(self.conflict)
        self.table.itemChanged.connect(lambda item: self.check_conflicts() if item.column() == 1 else None)
        self._recording_row: int | None = None
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
                                   | QDialogButtonBox.StandardButton.RestoreDefaults)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(self.restore_defaults)
        layout.addWidget(buttons)

    def start_recording(self) -> None:
        """The next key pressed is added to the keys of the selected action."""
        row = self.table.currentRow()
        if row < 0:
            self.recording.setText("Select an action first.")
            return
        self._recording_row = row
        self.recording.setText(f"Press the key for “{ACTIONS[row].title}” (Esc: stop)…")
        self.grabKeyboard()

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if self._recording_row is None:
            super().keyPressEvent(event)
            return
        key = key_text(event)
        if key is None:
            return  # a modifier on its way to a combination
        row, self._recording_row = self._recording_row, None
        self.releaseKeyboard()
        if key == "Esc":
            self.recording.setText("")
            return
        cell = self.table.item(row, 1)
        keys = [k.strip() for k in cell.text().split(",") if k.strip()]
        if key not in map(normalise_key, keys):
            keys.append(key)
        cell.setText(", ".join(keys))
        self.recording.setText(f"Recorded {key} for “{ACTIONS[row].title}”.")
        self.check_conflicts()

    def check_conflicts(self) -> list[tuple[str, str, str]]:
        """Say every key bound to two actions, and mark their rows; [] when none."""
        conflicts = find_conflicts(self.bindings())
        self.conflict.setText("\n".join(
            f"⚠ {key} is bound to both “{action(first).title}” and “{action(second).title}”: give one of them "
            "another key" for key, first, second in conflicts))
        clashing = {n for _, first, second in conflicts for n in (first, second)}
        self.table.blockSignals(True)
        for row, act in enumerate(ACTIONS):
            self.table.item(row, 1).setBackground(QColor(ERROR).darker(250) if act.name in clashing else QBrush())
        self.table.blockSignals(False)
        return conflicts

    def bindings(self) -> dict[str, tuple[str, ...]]:
        out = {}
        for row, act in enumerate(ACTIONS):
            text = self.table.item(row, 1).text()
            out[act.name] = tuple(normalise_key(k) for k in text.split(",") if k.strip())
        return out

    def restore_defaults(self) -> None:
        for row, act in enumerate(ACTIONS):
            self.table.item(row, 1).setText(", ".join(DEFAULTS[act.name]))

    def save(self) -> None:
        keymap = Keymap(bindings=self.bindings())
        try:
            save_keymap(keymap)
        except UserError as exc:
            QMessageBox.warning(self, "Keys not saved", str(exc))
            return
        self.keymap = keymap
        self.accept()
