"""The main window's menus and keys: the menu bar, and every keymap action carried out by name,
whether a key, a menu or a button asked for it.

A part of the main window that owns its actions, the keymap in force and the key dispatch
(`reviewer.ui.keys.KeyDispatcher`). It takes the acts it triggers (`acts`, by name: the
window's own, such as the start screen, a new project, Export…, the meeting) and the views
a key may belong to (the help overlay, the review page once built, the stack showing it), and
carries out the rest on the review page. `keymap_changed` tells the views that show keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction

from reviewer.app.keymap import ACTIONS, Keymap
from reviewer.ui.keys import AppKey, KeyDispatcher

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow, QStackedWidget

    from reviewer.ui.review.qt_help_overlay import QtHelpOverlay
    from reviewer.ui.review.qt_review_page import QtReviewPage

MENUS = {"Verdict": "&Review", "Severity (wrong)": "&Review", "Category (wrong)": "&Review", "Move": "&Review",
         "Image": "&View", "Window": "&View"}
# Acts on projects and runs belong in File beside New project and Export, not among the views.
FILE_ACTIONS = ("open_project", "run_model")
PAGE_ACTIONS = {a.name for a in ACTIONS if a.group in MENUS and a.group != "Window"}
# The keymap actions the window carries out through `acts` (the rest are the review page's).
WINDOW_ACTS = ("edit_keys", "open_project", "run_model", "group_view", "group_review", "analysis_view",
               "toggle_blind")


class MainMenus(QObject):
    """The menu bar of `window`, its keys, and `trigger(name)` for every keymap action."""

    keymap_changed = Signal(object)  # the keymap now in force (reviewer.app.keymap.Keymap)

    def __init__(self, window: QMainWindow, keymap: Keymap, *, acts: Mapping[str, Callable[[], object]],
                 help: QtHelpOverlay, page: Callable[[], QtReviewPage | None], stack: QStackedWidget,
                 enlarge_small: bool, evidence_before_vote: bool) -> None:
        super().__init__(window)
        self.keymap = keymap
        self._acts, self._help, self._page, self._stack = acts, help, page, stack
        self.actions_by_name: dict[str, QAction] = {}
        bar = window.menuBar()
        menus = {"&File": bar.addMenu("&File")}
        file_menu = menus["&File"]
        file_menu.addAction("Start screen", acts["start_screen"])
        self._add_action(window, file_menu, "open_project")
        file_menu.addAction("New project…", acts["new_project"])
        file_menu.addAction("Open the demo", acts["open_demo"])
        file_menu.addSeparator()
        self._add_action(window, file_menu, "run_model")
        self.export_action = file_menu.addAction("Export…", acts["export"])
        file_menu.addSeparator()
        # Quit from any of the app's windows (the meeting, the analysis) closes them all.
        file_menu.addAction("Quit\tCtrl+Q", window.close)
        self.quit_key = AppKey(window, "Ctrl+Q", window.close)
        for action in ACTIONS:
            if action.group not in MENUS or action.name in FILE_ACTIONS:
                continue  # the meeting's own keys; those File holds
            menu_name = MENUS[action.group]
            if menu_name not in menus:
                menus[menu_name] = bar.addMenu(menu_name)
            self._add_action(window, menus[menu_name], action.name)
        menus["&View"].addSeparator()
        self.enlarge_action = self._switch(
            window, menus["&View"], "Enlarge small images to fit", enlarge_small, acts["enlarge_small"],
            "Off: a file smaller than the view is shown at its own pixels (100 %), not blown up")
        self.evidence_action = self._switch(
            window, menus["&View"], "Show published evidence before I vote", evidence_before_vote,
            acts["evidence_before_vote"], "Off: what ReaL, cleanlab, Flaws of ImageNet ... say about a mistake "
            "shows only once you have given your verdict (for panels that want independent judgements)")
        panel_menu = bar.addMenu("&Panel")
        panel_menu.setToolTipsVisible(True)  # a disabled Rules… says why
        self.rules_action = panel_menu.addAction("Rules…")  # carried out, and enabled, by the rules in force
        # Keys reach the actions through one dispatcher (reviewer.ui.keys), not as QAction
        # shortcuts: the menus only show them.
        self.keys = KeyDispatcher(window, self._key_pressed, release_focus=self._release_focus)
        self.apply_keymap(keymap)

    def _add_action(self, window: QMainWindow, menu, name: str) -> QAction:
        """A keymap action in a menu (its keys shown by `apply_keymap`)."""
        qaction = QAction(next(a.title for a in ACTIONS if a.name == name), window)
        qaction.triggered.connect(lambda _=False, n=name: self.trigger(n))
        menu.addAction(qaction)
        self.actions_by_name[name] = qaction
        return qaction

    @staticmethod
    def _switch(window: QMainWindow, menu, title: str, checked: bool, act: Callable[[bool], object],
                tip: str) -> QAction:
        """A checkable view setting at the end of `menu`."""
        action = QAction(title, window)
        action.setCheckable(True)
        action.setChecked(checked)
        action.setToolTip(tip)
        action.toggled.connect(act)
        menu.addAction(action)
        return action

    def apply_keymap(self, keymap: Keymap) -> None:
        self.keymap = keymap
        for name, qaction in self.actions_by_name.items():
            title = qaction.text().split("\t")[0]
            keys = keymap.keys(name)
            qaction.setText(f"{title}\t{', '.join(keys)}" if keys else title)
        self.keymap_changed.emit(keymap)

    def _page_shown(self) -> QtReviewPage | None:
        """The review page, while it is built and on screen."""
        page = self._page()
        return page if page is not None and self._stack.currentWidget() is page else None

    def _key_pressed(self, key: str) -> bool:
        """A key press in this window (reviewer.ui.keys): its action, if it has one here."""
        page = self._page()
        if key == "Esc" and self._help.isVisible():
            self._help.hide_overlay()
            return True
        if key == "Esc" and page is not None and page.vote_panel.asking():
            page.vote_panel.cancel_text()  # the inline field left open (Tab, a click): Esc closes it
            return True
        name = self.keymap.action_for(key)
        return name is not None and self.trigger(name)

    def _release_focus(self, widget, key: str) -> bool:
        """Enter or Escape in a filter box of the review page: the filter applies and the
        review keys work again."""
        page = self._page_shown()
        if page is None or not page.queue_panel.isAncestorOf(widget):
            return False
        page.queue_panel.finish_editing()
        return True

    def trigger(self, name: str) -> bool:
        """Carry out an action by name (a key, a menu); False when it does nothing here."""
        page = self._page()
        if page is not None and page.vote_panel.typing():
            return False  # the inline text field has the keys (left, it has them no more)
        if name == "help":
            self._help.hide_overlay() if self._help.isVisible() else self._help.show_overlay()
        elif self._help.isVisible():
            return False
        elif name in WINDOW_ACTS:
            self._acts[name]()
        elif name == "focus_filter":
            if self._page_shown() is None:
                return False
            page.queue_panel.class_filter.setFocus(Qt.FocusReason.ShortcutFocusReason)
        elif name in PAGE_ACTIONS and self._page_shown() is not None:
            return page.trigger(name)
        else:
            return False
        return True
