"""The window asks before a new name joins the panel, refuses one on a closed panel,
does not remember a one-off --reviewer, and shows the chair's blind rule as in force
(issue 23: typing "carol" on the start screen silently added a panelist, a typo too)."""

from __future__ import annotations

import pytest

from reviewer.app import panel as acts
from reviewer.app.preferences import Preferences

pytestmark = pytest.mark.gui


@pytest.fixture
def window_for(qtbot, review_project, monkeypatch):
    from reviewer.ui.app import create_app
    from reviewer.ui.qt_main_window import QtMainWindow

    create_app()
    monkeypatch.setattr("reviewer.ui.qt_main_window.save_preferences", lambda prefs: None)
    acts.add_panelist(review_project, "ann", chair=True)
    acts.add_panelist(review_project, "bob")
    asked = []

    def make(name: str, *, answer: bool = False):
        window = QtMainWindow(preferences=Preferences(panelist_name="ann"))
        qtbot.addWidget(window)
        window.resize(1280, 800)
        window.show()
        window.confirm_join = lambda question: asked.append(question) or answer
        window.start.set_name(name)
        return window

    return review_project, make, asked


def test_a_new_name_is_asked_and_refused_without_a_yes(qtbot, window_for):
    project, make, asked = window_for
    window = make("carol", answer=False)
    window.open_project(str(project.root))
    qtbot.waitUntil(lambda: "did not join" in window.start.error.text(), timeout=20_000)
    assert asked and "carol is not on this panel (panelists: ann, bob): join as a new panelist?" in asked[0]
    assert sorted(acts.names(project).values()) == ["ann", "bob"]
    assert window.project is None


def test_a_yes_joins_and_the_name_is_shown(qtbot, window_for):
    project, make, asked = window_for
    window = make("carol", answer=True)
    with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
        window.open_project(str(project.root))
    assert sorted(acts.names(project).values()) == ["ann", "bob", "carol"]
    assert window.panelist_label.text() == "Reviewing as carol" and window.panelist_label.font().bold()


def test_a_closed_panel_refuses_without_asking(qtbot, window_for):
    project, make, asked = window_for
    ann = next(i for i, n in acts.names(project).items() if n == "ann")
    acts.set_panel_rules(project, chair_id=ann, panel_closed=True)
    window = make("Bob", answer=True)
    window.open_project(str(project.root))
    qtbot.waitUntil(lambda: "closed" in window.start.error.text(), timeout=20_000)
    assert not asked and "did you mean bob?" in window.start.error.text()


def test_a_one_off_name_is_not_remembered_and_the_blind_rule_is_shown(qtbot, window_for):
    project, make, _ = window_for
    ann = next(i for i, n in acts.names(project).items() if n == "ann")
    acts.set_panel_rules(project, chair_id=ann, blind=True)
    window = make("bob")
    window.prefs.blind = False
    window.one_off_panelist = "bob"  # `reviewer gui PROJECT --reviewer bob`
    with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
        window.open_project(str(project.root))
    assert window.panelist.name == "bob" and window.prefs.panelist_name == "ann"
    assert window.blind_box.isChecked() and not window.blind_box.isEnabled()
    assert window.prefs.blind is False  # the panelist's own choice is kept for rule-less panels
    window.close()
    assert window.prefs.panelist_name == "ann"
