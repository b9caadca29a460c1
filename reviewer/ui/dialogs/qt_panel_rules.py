"""Panel > Rules…: the chair's rules for the whole panel (reviewer.panel.rules), as
`reviewer panel-rules PROJECT --blind on ...` sets them: blind review for everyone, a
unanimous panel deciding without a meeting, a closed panel. The window saves the
changes through the same act as the command (`reviewer.app.panel.set_panel_rules`)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from reviewer.panel.rules import BLIND, PANEL_CLOSED, UNANIMOUS_FINAL, PanelRules
from reviewer.ui.plain import text_label
from reviewer.ui.theme import style_muted

# (rule, its checkbox, what it means), in the order `reviewer panel-rules` prints them.
RULES = (
    (BLIND, "Blind review for everyone",
     "Nobody sees another panelist's vote on an item before voting on it, or before it is decided, whatever "
     "their own Blind setting (every view and command: the review page, the meeting, reviewer show)."),
    (UNANIMOUS_FINAL, "A unanimous panel decides without a meeting (the paper's rule)",
     "Off: unanimous items wait for your lock too (Lock all unanimous in the meeting)."),
    (PANEL_CLOSED, "Closed panel: only the chair adds panelists",
     "Opening the project under a new name is refused, with how the chair adds a panelist "
     "(reviewer panelist PROJECT NAME); open, a new name is asked before it joins."),
)


class QtPanelRulesDialog(QDialog):
    """The rules in force as checkboxes; `changes()` is what the chair changed."""

    def __init__(self, rules: PanelRules, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Panel rules")
        self.rules = rules
        layout = QVBoxLayout(self)
        intro = text_label("The chair's rules hold for every panelist of this project.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.boxes: dict[str, QCheckBox] = {}
        for key, title, meaning in RULES:
            box = QCheckBox(title)
            box.setChecked(getattr(rules, key))
            box.setToolTip(meaning)
            words = QLabel(meaning)
            words.setWordWrap(True)
            words.setContentsMargins(24, 0, 0, 8)
            style_muted(words)
            layout.addWidget(box)
            layout.addWidget(words)
            self.boxes[key] = box
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.setMinimumWidth(520)

    def changes(self) -> dict[str, bool]:
        """{rule: new value} of the rules the chair changed (none: nothing to save)."""
        return {key: box.isChecked() for key, box in self.boxes.items() if box.isChecked() != getattr(self.rules, key)}
