"""The main window's parts, each built alone on a small model (not through the whole window):
the status strip, ..."""

from __future__ import annotations

import pytest

from reviewer.ui.app import create_app
from reviewer.ui.qt_status_strip import MESSAGE_MSECS, QtStatusStrip
from reviewer.ui.theme import ERROR

pytestmark = pytest.mark.gui


@pytest.fixture
def strip(qtbot):
    create_app()
    strip = QtStatusStrip()
    qtbot.addWidget(strip)
    strip.show()
    return strip


def test_the_status_strip_says_a_message_and_scrubs_a_password(strip):
    strip.show_message("Cannot reach postgresql://ann:secret@db/panel", error=True)
    assert "secret" not in strip.text.text()
    assert strip.text.palette().windowText().color().name() == ERROR.lower() and strip.message_is_error
    assert strip._message_timer.interval() == MESSAGE_MSECS and strip._message_timer.isActive()


def test_a_vote_clears_a_note_but_not_an_error(strip):
    strip.show_message("Undone: a vote")
    strip.clear_note()
    assert strip.text.text() == ""
    strip.show_message("The vote was not recorded", error=True)
    strip.clear_note()
    assert strip.text.text() == "The vote was not recorded"
    strip.clear_refusal()  # a refusal about a name typed before no longer holds
    assert strip.text.text() == ""
    strip.show_message("Keys saved.")
    strip.clear_refusal()
    assert strip.text.text() == "Keys saved."


def test_the_undo_key_shows_while_there_is_a_vote_to_undo(strip):
    strip.show_undo(True, ["Ctrl+Z", "U"])
    assert strip.undo_label.text() == "Undo: Ctrl+Z"
    strip.show_undo(True, [])
    assert strip.undo_label.text() == "Undo: Review menu"
    strip.show_undo(False, ["Ctrl+Z"])
    assert strip.undo_label.text() == ""


def test_a_finished_run_is_offered_then_taken_or_withdrawn(qtbot, strip):
    strip.offer_run(3, model="resnet50", current=1)
    assert strip.show_run_button.isVisible() and strip.show_run_button.text() == "Show run #3"
    assert "you are still reviewing run #1" in strip.text.text()
    with qtbot.waitSignal(strip.offered_run_chosen) as chosen:
        strip.show_run_button.click()
    assert chosen.args == [3] and not strip.show_run_button.isVisible() and strip.offered_run is None
    strip.offer_run(4, model="vit", current=1)
    strip.run_opened(2)  # another run opened: the offer stands
    assert strip.show_run_button.isVisible()
    strip.run_opened(4)  # the offered run chosen in the toolbar's list: no longer an offer
    assert not strip.show_run_button.isVisible() and strip.offered_run is None
