"""The window's toolbar while a project is open: project, the queue under review (the
panel's scope or one run: `qt_run_selector`), Run model…, blind mode, who is reviewing,
and the keys."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLabel, QSizePolicy, QToolBar, QWidget

from reviewer.ui.plain import text_label
from reviewer.ui.qt_run_selector import QtRunSelector
from reviewer.ui.theme import set_font


class QtReviewToolbar(QToolBar):
    """Widgets only; `trigger(name)` runs a keymap action, so a button and its key do the same."""

    def __init__(self, trigger: Callable[[str], None], *, blind: bool):
        super().__init__("Review")
        self.setMovable(False)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.project_label = text_label()
        set_font(self.project_label, bold=True)
        self.project_label.setContentsMargins(8, 0, 8, 0)
        self.addWidget(self.project_label)
        self.addWidget(QLabel("Review:"))
        self.run_combo = QtRunSelector()  # the panel's scope, then each run
        self.addWidget(self.run_combo)
        self.run_model_button = self.addAction("Run model…", lambda: trigger("run_model"))
        self.addSeparator()
        self.blind_box = QCheckBox("Blind")
        self.blind_box.setToolTip("Others' votes stay hidden on a mistake until you have voted on it")
        self.blind_box.setChecked(blind)
        self.blind_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.addWidget(self.blind_box)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.addWidget(spacer)
        self.panelist_label = text_label()
        set_font(self.panelist_label, bold=True)  # who every vote is recorded under: in plain sight
        self.panelist_label.setContentsMargins(8, 0, 8, 0)
        self.addWidget(self.panelist_label)
        self.addAction("Keys  ?", lambda: trigger("help"))
