"""The main window's menus and keys: the toolbar, the menu bar, and every keymap
action carried out by name, whether a key, a menu or a button asked for it.

A part of `QtMainWindow` (a mixin of it), kept apart because it is one
responsibility: what the window offers and how a key reaches it. It uses the
window's widgets and acts (`page`, `help`, `start`, `open_run`, `show_start`,
`export_project`, ...); it holds no state of its own beyond the actions it builds.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from reviewer.app.keymap import ACTIONS, Keymap
from reviewer.ui.keys import AppKey, KeyDispatcher
from reviewer.ui.review.qt_review_toolbar import QtReviewToolbar

MENUS = {"Verdict": "&Review", "Severity (wrong)": "&Review", "Category (wrong)": "&Review", "Move": "&Review",
         "Image": "&View", "Window": "&View"}
# Acts on projects and runs belong in File beside New project and Export, not among the views.
FILE_ACTIONS = ("open_project", "run_model")
PAGE_ACTIONS = {a.name for a in ACTIONS if a.group in MENUS and a.group != "Window"}


class WindowMenus:
    """The toolbar, the menus and the key dispatch of `QtMainWindow`."""

    def _build_toolbar(self) -> None:
        bar = QtReviewToolbar(self.trigger, blind=self.prefs.blind)
        self.addToolBar(bar)
        self.project_label, self.panelist_label = bar.project_label, bar.panelist_label
        self.run_combo, self.run_model_button, self.blind_box = bar.run_combo, bar.run_model_button, bar.blind_box
        self.run_combo.run_chosen.connect(self.open_run)
        self.blind_box.toggled.connect(self.set_blind)
        self.toolbar = bar
        bar.setVisible(False)

    def _build_actions(self) -> None:
        menus = {}
        file_menu = self.menuBar().addMenu("&File")
        menus["&File"] = file_menu
        file_menu.addAction("Start screen", self.show_start)
        self._add_action(file_menu, "open_project")
        file_menu.addAction("New project…", self.new_project)
        file_menu.addAction("Open the demo", self.open_demo)
        file_menu.addSeparator()
        self._add_action(file_menu, "run_model")
        self.export_action = file_menu.addAction("Export…", self.export_project)
        file_menu.addSeparator()
        # Quit from any of the app's windows (the group view, the analysis) closes them all.
        file_menu.addAction("Quit\tCtrl+Q", self.close)
        self.quit_key = AppKey(self, "Ctrl+Q", self.close)
        for action in ACTIONS:
            if action.group not in MENUS or action.name in FILE_ACTIONS:
                continue  # the group view's own keys; those File holds
            menu_name = MENUS[action.group]
            if menu_name not in menus:
                menus[menu_name] = self.menuBar().addMenu(menu_name)
            self._add_action(menus[menu_name], action.name)
        enlarge = QAction("Enlarge small images to fit", self)
        enlarge.setCheckable(True)
        enlarge.setChecked(self.prefs.enlarge_small_images)
        enlarge.setToolTip("Off: a file smaller than the view is shown at its own pixels (100 %), not blown up")
        enlarge.toggled.connect(self.set_enlarge_small)
        menus["&View"].addSeparator()
        menus["&View"].addAction(enlarge)
        self.enlarge_action = enlarge
        evidence = QAction("Show published evidence before I vote", self)
        evidence.setCheckable(True)
        evidence.setChecked(self.prefs.evidence_before_vote)
        evidence.setToolTip("Off: what ReaL, cleanlab, Flaws of ImageNet ... say about a mistake shows only once "
                            "you have given your verdict (for panels that want independent judgements)")
        evidence.toggled.connect(self.set_evidence_before_vote)
        menus["&View"].addAction(evidence)
        self.evidence_action = evidence
        panel_menu = self.menuBar().addMenu("&Panel")
        panel_menu.setToolTipsVisible(True)  # a disabled Rules… says why
        self.rules_action = panel_menu.addAction("Rules…", self.edit_panel_rules)
        self._enable_rules()
        # Keys reach the actions through one dispatcher (reviewer.ui.keys), not as QAction
        # shortcuts: the menus only show them.
        self.keys = KeyDispatcher(self, self._key_pressed, release_focus=self._release_focus)
        self.apply_keymap(self.keymap)

    def _add_action(self, menu, name: str) -> QAction:
        """A keymap action in a menu (its keys shown by `apply_keymap`)."""
        qaction = QAction(next(a.title for a in ACTIONS if a.name == name), self)
        qaction.triggered.connect(lambda _=False, n=name: self.trigger(n))
        menu.addAction(qaction)
        self.actions_by_name[name] = qaction
        return qaction

    def apply_keymap(self, keymap: Keymap) -> None:
        self.keymap = keymap
        for name, qaction in self.actions_by_name.items():
            title = qaction.text().split("\t")[0]
            keys = keymap.keys(name)
            qaction.setText(f"{title}\t{', '.join(keys)}" if keys else title)
        if self._page is not None:
            self._page.set_keymap(keymap)
        self.help.set_keymap(keymap)
        group = self.side.get("group")
        if group is not None:
            group.set_keymap(keymap)

    def _key_pressed(self, key: str) -> bool:
        """A key press in this window (reviewer.ui.keys): its action, if it has one here."""
        if key == "Esc" and self.help.isVisible():
            self.help.hide_overlay()
            return True
        if key == "Esc" and self._page is not None and self._page.vote_panel.asking():
            self._page.vote_panel.cancel_text()  # the inline field left open (Tab, a click): Esc closes it
            return True
        name = self.keymap.action_for(key)
        return name is not None and self.trigger(name)

    def _release_focus(self, widget, key: str) -> bool:
        """Enter or Escape in a filter box of the review page: the filter applies and the
        review keys work again."""
        if self._page is None or self.stack.currentWidget() is not self._page \
                or not self._page.queue_panel.isAncestorOf(widget):
            return False
        self.page.queue_panel.finish_editing()
        return True

    def trigger(self, name: str) -> bool:
        """Carry out an action by name (a key, a menu); False when it does nothing here."""
        if self._page is not None and self._page.vote_panel.typing():
            return False  # the inline text field has the keys (left, it has them no more)
        if name == "help":
            self.help.hide_overlay() if self.help.isVisible() else self.help.show_overlay()
        elif self.help.isVisible():
            return False
        elif name == "edit_keys":
            self.edit_keys()
        elif name == "open_project":
            self.show_start()
        elif name == "run_model":
            self.open_run_dialog()
        elif name == "group_view":
            self.open_group_view()
        elif name == "group_review":
            from reviewer.ui.review.qt_group_review import open_group_review

            open_group_review(self)
        elif name == "analysis_view":
            self.open_analysis_view()
        elif name == "toggle_blind":
            if self.blind_box.isEnabled():
                self.blind_box.toggle()
            else:  # the chair's rule: nothing to switch, and the panelist's own setting is kept
                self.show_message("Blind review is the chair's rule on this panel: others' votes show once you "
                                  "voted, or once the item is decided.")
        elif name == "focus_filter":
            if self._page is None or self.stack.currentWidget() is not self._page:
                return False
            self.page.queue_panel.class_filter.setFocus(Qt.FocusReason.ShortcutFocusReason)
        elif name in PAGE_ACTIONS and self._page is not None and self.stack.currentWidget() is self._page:
            return self.page.trigger(name)
        else:
            return False
        return True

    def edit_keys(self) -> None:
        from reviewer.ui.dialogs.qt_keymap_dialog import QtKeymapDialog

        dialog = QtKeymapDialog(self.keymap, self)
        if dialog.exec():
            self.apply_keymap(dialog.keymap)
            self.show_message("Keys saved.")
