"""The panel's rules in force (blind review, a unanimous panel deciding, a closed panel) as the
window shows them, and the chair's dialog that changes them.

A part of the main window that owns the rules as last read (`rules`), the toolbar's Blind
switch and Panel > Rules…. It follows the `ProjectHolder` itself: the rules read when a project
opens, read again when a change record names the panel (the chair may have set them, here or
elsewhere), and saved through the act `reviewer panel-rules` runs. `applied` tells the review
page the rules now in force; `blind_switched` is the panelist's own switch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from reviewer.ui.plain import plain_tip

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QCheckBox, QWidget

    from reviewer.panel.rules import PanelRules
    from reviewer.project import Project
    from reviewer.ui.project_holder import ProjectHolder
    from reviewer.ui.workers import Worker


class RulesInForce(QObject):
    """The panel's rules for the holder's project, its Blind switch and the chair's Rules…."""

    applied = Signal(object)  # the rules now in force (reviewer.panel.rules.PanelRules)
    blind_switched = Signal(bool)  # the panelist's own Blind switch, where the rules leave it to them
    message = Signal(str, bool)  # text, is an error

    def __init__(self, holder: ProjectHolder, worker: Worker, *, blind_box: QCheckBox, rules_action: QAction,
                 own_blind: bool, dialog_parent: QWidget) -> None:
        super().__init__(holder)
        self._holder, self._worker = holder, worker
        self.blind_box, self.rules_action = blind_box, rules_action
        self._own_blind = own_blind  # the panelist's preference, kept under the chair's rule
        self._dialog_parent = dialog_parent
        self.rules: PanelRules | None = None
        blind_box.toggled.connect(self._blind_toggled)
        rules_action.triggered.connect(self.edit)
        holder.opened.connect(lambda: self.apply(holder.rules))
        holder.closed.connect(self._enable)
        holder.changed.connect(lambda changes: changes.panel and self.read())
        self._enable()

    def apply(self, rules: PanelRules) -> None:
        """The panel's rules in force (reviewer.panel.rules), as the window shows them."""
        self.rules = rules
        # The chair's blind rule holds for everyone: the window's own switch cannot show more.
        self.blind_box.setEnabled(not rules.blind)
        self.blind_box.blockSignals(True)  # shown as in force; the panelist's own preference is kept
        self.blind_box.setChecked(rules.blind or self._own_blind)
        self.blind_box.blockSignals(False)
        self.blind_box.setToolTip(plain_tip("The chair made this panel blind: others' votes show once you voted, or "
                                            "once the item is decided" if rules.blind else
                                            "Others' votes stay hidden on a mistake until you have voted on it"))
        self.applied.emit(rules)
        self._enable()

    def _blind_toggled(self, blind: bool) -> None:
        self._own_blind = blind
        self.blind_switched.emit(blind)

    def toggle_blind(self) -> None:
        """The blind key: the panelist's switch, unless the chair's rule holds it."""
        if self.blind_box.isEnabled():
            self.blind_box.toggle()
        else:  # the chair's rule: nothing to switch, and the panelist's own setting is kept
            self.message.emit("Blind review is the chair's rule on this panel: others' votes show once you "
                              "voted, or once the item is decided.", False)

    def read(self) -> None:
        """Read the rules in force again and show them."""
        from reviewer.app.panel import panel_rules

        project = self._holder.project
        if project is None:
            return
        self._worker.submit(panel_rules, project, on_done=lambda rules, p=project: p is self._holder.project
                            and self.apply(rules))

    def _enable(self) -> None:
        """Panel > Rules… is the chair's; anyone else sees why it is greyed out."""
        project, panelist = self._holder.project, self._holder.panelist
        chair = project is not None and panelist is not None and bool(panelist.is_chair)
        self.rules_action.setEnabled(chair)
        if project is None:
            why = "Open a project first: the rules are the project's"
        elif chair:
            why = "Blind review, a unanimous panel deciding, a closed panel: the rules every panelist works under"
        else:
            why = (f"Only the chair sets the panel's rules; you review as {panelist.name}. In force: "
                   f"{self.rules.describe()}" if self.rules else "Only the chair sets the panel's rules")
        self.rules_action.setToolTip(why)

    def edit(self) -> None:
        """The chair's rules in a dialog, saved through the act `reviewer panel-rules` runs."""
        if self._holder.project is None or self.rules is None or not self.rules_action.isEnabled():
            return
        from reviewer.app.panel import set_panel_rules
        from reviewer.ui.dialogs.qt_panel_rules import QtPanelRulesDialog

        dialog = QtPanelRulesDialog(self.rules, self._dialog_parent)
        if not dialog.exec() or not dialog.changes():
            return
        project = self._holder.project
        self._worker.submit(set_panel_rules, project, chair_id=self._holder.panelist.id, **dialog.changes(),
                            on_done=lambda done, p=project: self._saved(p, done),
                            on_error=lambda e: self.message.emit(f"The rules were not changed: {e}", True))

    def _saved(self, project: Project, done) -> None:
        if project is not self._holder.project:
            return
        rules = done.value
        self.apply(rules)
        self.message.emit("Panel rules saved: " + ", ".join((
            "blind review for everyone" if rules.blind else "blind review each panelist's choice",
            "a unanimous panel decides" if rules.unanimous_final else "the chair locks unanimous items too",
            "the panel is closed" if rules.panel_closed else "new names may ask to join")), False)
        if self._holder.watcher is not None:
            self._holder.watcher.publish(done.changes)  # the queue, the meeting and the counts follow
