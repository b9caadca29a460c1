"""Panel > Rules… (issue 23): the chair sets the panel's rules in the window, through the
act `reviewer panel-rules` runs; anyone else sees the menu item greyed out, saying why."""

from __future__ import annotations

from reviewer.app import panel as acts
from reviewer.ui.dialogs.qt_panel_rules import QtPanelRulesDialog


def test_the_chair_sets_the_panels_rules_in_a_dialog(qtbot, open_window, review_project, monkeypatch):
    acts.add_panelist(review_project, "ann", chair=True)
    window = open_window(blind=False)
    assert window.rules_action.isEnabled()
    # A new panel is blind (issue 35): the window's own Blind switch shows the rule and cannot show more.
    assert window.panel_rules.blind and window.blind_box.isChecked() and not window.blind_box.isEnabled()
    shown = []

    def answer(dialog):  # the chair turns blind review off and closes the panel, then saves
        shown.append({key: box.isChecked() for key, box in dialog.boxes.items()})
        dialog.boxes["blind"].setChecked(False)
        dialog.boxes["panel_closed"].setChecked(True)
        return 1  # QDialog.exec's Accepted

    monkeypatch.setattr(QtPanelRulesDialog, "exec", answer)
    window.rules_action.trigger()
    assert shown == [{"blind": True, "unanimous_final": True, "panel_closed": False}]  # the rules in force
    qtbot.waitUntil(lambda: not window.panel_rules.blind, timeout=10_000)
    rules = acts.panel_rules(review_project)  # as `reviewer panel-rules PROJECT` prints them
    assert (rules.blind, rules.unanimous_final, rules.panel_closed) == (False, True, True)
    # The window follows at once: the panelist's own switch (off here) is theirs again.
    assert not window.blind_box.isChecked() and window.blind_box.isEnabled()
    assert window.status_text.text() == ("Panel rules saved: blind review each panelist's choice, a unanimous panel "
                                         "decides, the panel is closed")

    def cancel(dialog):  # a box unticked, then Cancel: nothing is written
        dialog.boxes["unanimous_final"].setChecked(False)
        return 0

    monkeypatch.setattr(QtPanelRulesDialog, "exec", cancel)
    window.rules_action.trigger()
    window.worker.wait(10_000)
    assert acts.panel_rules(review_project) == rules


def test_a_panelist_who_is_not_the_chair_sees_the_rules_greyed_out_and_why(qtbot, open_window, review_project,
                                                                            monkeypatch):
    acts.add_panelist(review_project, "ann", chair=True)
    acts.add_panelist(review_project, "bob")
    window = open_window(panelist_name="bob")
    assert not window.rules_action.isEnabled()
    tip = window.rules_action.toolTip()
    assert tip.startswith("Only the chair sets the panel's rules; you review as bob. In force: blind review: ")
    opened = []
    monkeypatch.setattr(QtPanelRulesDialog, "exec", lambda dialog: opened.append(dialog) or 0)
    window.edit_panel_rules()  # even if asked directly: nothing opens
    assert opened == []
    window.close_project()
    assert not window.rules_action.isEnabled()
    assert window.rules_action.toolTip() == "Open a project first: the rules are the project's"
