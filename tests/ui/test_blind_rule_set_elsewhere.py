"""The chair's blind rule reaches an open window (issue 35, 7b): set elsewhere while bob's
window is open, his Blind switch shows it in force and greys out, Ctrl+B says the chair's
rule hides the votes instead of unticking the switch (which blanked the pane, pretending
to do something), and the pane says why the votes are hidden."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer.app import panel as acts

pytestmark = pytest.mark.gui


def test_a_blind_rule_set_elsewhere_is_in_force_and_ctrl_b_says_so(qtbot, open_window, review_project):
    who = {name: acts.add_panelist(review_project, name, chair=name == "ann").value.id for name in ("ann", "bob", "cat")}
    acts.set_panel_rules(review_project, chair_id=who["ann"], blind=False)
    window = open_window(panelist_name="bob", blind=False)
    key = window.bridge.state.current_item()
    acts.vote(review_project, panelist_id=who["cat"], item=key, verdict="wrong")
    window.bridge.state.refresh_others(key)
    qtbot.waitUntil(lambda: "cat" in window.page.vote_panel.others.text(), timeout=10_000)
    assert window.blind_box.isEnabled() and not window.blind_box.isChecked()

    acts.set_panel_rules(review_project, chair_id=who["ann"], blind=True)  # the chair, on another machine
    window.watcher.poll()  # as the poll would, within a second
    qtbot.waitUntil(lambda: not window.blind_box.isEnabled(), timeout=10_000)
    assert window.blind_box.isChecked()
    qtbot.waitUntil(lambda: "chair made this panel blind" in window.page.vote_panel.others.text(), timeout=10_000)
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert window.blind_box.isChecked()  # nothing to switch off
    assert "chair's rule" in window.status_text.text()
    assert "chair made this panel blind" in window.page.vote_panel.others.text()


def test_a_window_opened_under_the_rule_says_the_chair_hides_the_votes(qtbot, open_window, review_project):
    ann = acts.add_panelist(review_project, "ann", chair=True).value.id
    acts.set_panel_rules(review_project, chair_id=ann, blind=True)
    window = open_window(panelist_name="bob")
    qtbot.waitUntil(lambda: "chair made this panel blind" in window.page.vote_panel.others.text(), timeout=10_000)
