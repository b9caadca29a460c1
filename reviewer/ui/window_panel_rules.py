"""The main window's panel rules: the chair's rules in force (blind review, a unanimous
panel deciding, a closed panel), as the window shows them, and the chair's dialog
that changes them.

A part of `QtMainWindow` (a mixin of it), kept apart because it is one
responsibility: the rules every panelist works under (`reviewer.panel.rules`), read
when a project opens and saved through the act `reviewer panel-rules` runs. It uses
the window's `blind_box`, `rules_action`, `worker`, `watcher` and `show_message`;
its state is `panel_rules`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewer.ui.plain import plain_tip

if TYPE_CHECKING:
    from reviewer.project import Project


class WindowPanelRules:
    """The panel's rules as `QtMainWindow` shows them, and the chair's way to change them."""

    def _apply_rules(self, rules) -> None:
        """The panel's rules in force (reviewer.panel.rules), as the window shows them."""
        self.panel_rules = rules
        # The chair's blind rule holds for everyone: the window's own switch cannot show more.
        self.blind_box.setEnabled(not rules.blind)
        self.blind_box.blockSignals(True)  # shown as in force; the panelist's own preference is kept
        self.blind_box.setChecked(rules.blind or self.prefs.blind)
        self.blind_box.blockSignals(False)
        self.blind_box.setToolTip(plain_tip("The chair made this panel blind: others' votes show once you voted, or "
                                            "once the item is decided" if rules.blind else
                                            "Others' votes stay hidden on a mistake until you have voted on it"))
        # (a project is open: its page is needed now, and may not have been built yet)
        self.page.vote_panel.blind_rule = rules.blind
        if self.bridge is not None and self.bridge.state.current_item() is not None:
            self.page._show_others(self.bridge.state.current_item())
        self._enable_rules()

    def read_rules(self) -> None:
        """Read the rules in force again (a change record named the panel: the chair may have
        set them, in this window or elsewhere) and show them."""
        from reviewer.app.panel import panel_rules

        project = self.project
        self.worker.submit(panel_rules, project, on_done=lambda rules, p=project: p is self.project
                           and self._apply_rules(rules))

    def _enable_rules(self) -> None:
        """Panel > Rules… is the chair's; anyone else sees why it is greyed out."""
        chair = self.project is not None and self.panelist is not None and bool(self.panelist.is_chair)
        self.rules_action.setEnabled(chair)
        if self.project is None:
            why = "Open a project first: the rules are the project's"
        elif chair:
            why = "Blind review, a unanimous panel deciding, a closed panel: the rules every panelist works under"
        else:
            why = (f"Only the chair sets the panel's rules; you review as {self.panelist.name}. In force: "
                   f"{self.panel_rules.describe()}" if self.panel_rules else "Only the chair sets the panel's rules")
        self.rules_action.setToolTip(why)

    def edit_panel_rules(self) -> None:
        """The chair's rules in a dialog, saved through the act `reviewer panel-rules` runs."""
        if self.project is None or self.panel_rules is None or not self.rules_action.isEnabled():
            return
        from reviewer.app.panel import set_panel_rules
        from reviewer.ui.dialogs.qt_panel_rules import QtPanelRulesDialog

        dialog = QtPanelRulesDialog(self.panel_rules, self)
        if not dialog.exec() or not dialog.changes():
            return
        project = self.project
        self.worker.submit(set_panel_rules, project, chair_id=self.panelist.id, **dialog.changes(),
                           on_done=lambda done, p=project: self._rules_saved(p, done),
                           on_error=lambda e: self.show_message(f"The rules were not changed: {e}", error=True))

    def _rules_saved(self, project: Project, done) -> None:
        if project is not self.project:
            return
        self._apply_rules(done.value)
        rules = done.value
        self.show_message("Panel rules saved: " + ", ".join((
            "blind review for everyone" if rules.blind else "blind review each panelist's choice",
            "a unanimous panel decides" if rules.unanimous_final else "the chair locks unanimous items too",
            "the panel is closed" if rules.panel_closed else "new names may ask to join")))
        if self.watcher is not None:
            self.watcher.publish(done.changes)  # the queue, the group view and the counts follow
