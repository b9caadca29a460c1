"""The key editor says a key bound twice as soon as it is recorded or typed, not only
when Save refuses it (issue 23's walk)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.gui


def test_a_conflict_shows_when_a_key_is_recorded_or_typed(qtbot):
    from reviewer.app.keymap import ACTIONS, default_keymap
    from reviewer.ui.app import create_app
    from reviewer.ui.dialogs.qt_keymap_dialog import QtKeymapDialog

    create_app()
    dialog = QtKeymapDialog(default_keymap())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.conflict.text() == ""
    rows = {a.name: i for i, a in enumerate(ACTIONS)}
    dialog.table.setCurrentCell(rows["verdict_wrong"], 1)
    qtbot.mouseClick(dialog.record, Qt.MouseButton.LeftButton)
    QApplication.sendEvent(dialog, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_C, Qt.KeyboardModifier.NoModifier, "c"))
    assert dialog.bindings()["verdict_wrong"] == ("2", "W", "C")
    # Said at once, naming both actions; the two rows marked.
    text = dialog.conflict.text()
    assert "C is bound to both “Prediction is correct” and “Prediction is wrong”" in text
    assert dialog.table.item(rows["verdict_wrong"], 1).background().style() != Qt.BrushStyle.NoBrush
    # Typed in the cell: the correct verdict gives C up; the conflict is gone.
    dialog.table.item(rows["verdict_correct"], 1).setText("1")
    assert dialog.conflict.text() == ""
    assert dialog.table.item(rows["verdict_wrong"], 1).background().style() == Qt.BrushStyle.NoBrush
    # A typed key that clashes is said too.
    dialog.table.item(rows["severity_major"], 1).setText("M, N")
    assert "N is bound to both “Major mistake” and “Minor mistake”" in dialog.conflict.text()
