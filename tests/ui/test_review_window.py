"""The review window driven with the keyboard, offscreen, on a real project."""

from __future__ import annotations

import html
import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog, QLabel

from db.tables import ProjectSetting
from reviewer.app import panel as acts
from reviewer.ui.qt_image_view import QtImageView

pytestmark = pytest.mark.gui


def plain(label) -> str:
    """A rich-text label as the panelist reads it."""
    return html.unescape(re.sub(r"<br\s*/?>", "\n", re.sub(r"<(?!br)[^>]+>", "", label.text())))


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier):
    """A key press where the keyboard focus is, as a panelist's key would go."""
    qtbot.keyClick(QApplication.focusWidget() or window, key, modifier)


def wait_recorded(qtbot, window):
    qtbot.waitUntil(lambda: not window.bridge.state.pending, timeout=10_000)


def test_votes_with_keys_advance_and_are_recorded(qtbot, open_window, review_project):
    window = open_window()
    bridge, page = window.bridge, window.page
    assert page.queue_panel.counts.text() == "8 mistakes: 0 decided · 0 disputed · 8 open; 0 voted by me"
    first = bridge.state.current_item()
    assert "predicted goldfish" in plain(page.headline) and "81.0%" in plain(page.headline)
    with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
        press(qtbot, window, Qt.Key.Key_1)  # correct: moves on at once
    second = bridge.state.current_item()
    assert second != first and bridge.state.row == 1
    # Wrong needs a severity and a category before it moves on.
    press(qtbot, window, Qt.Key.Key_W)
    assert bridge.state.current_item() == second
    assert page.vote_panel.buttons["verdict_wrong"].isChecked()
    press(qtbot, window, Qt.Key.Key_M)
    with qtbot.waitSignal(page.mistake_shown, timeout=10_000):
        press(qtbot, window, Qt.Key.Key_F)
    assert bridge.state.row == 2
    wait_recorded(qtbot, window)
    ann = window.panelist.id
    assert acts.my_vote(review_project, panelist_id=ann, item=first).verdict == "correct"
    state = acts.my_vote(review_project, panelist_id=ann, item=second)
    assert (state.verdict, state.severity, state.category) == ("wrong", "major", "fine_grained")
    # ann is the whole panel: her votes are unanimous, so both mistakes are decided.
    qtbot.waitUntil(lambda: page.queue_panel.counts.text()
                    == "8 mistakes: 2 decided · 0 disputed · 6 open; 2 voted by me", timeout=10_000)
    # Back to the first: its recorded vote is shown.
    press(qtbot, window, Qt.Key.Key_K)
    press(qtbot, window, Qt.Key.Key_K)
    assert bridge.state.current_item() == first
    assert page.vote_panel.buttons["verdict_correct"].isChecked()
    assert "recorded" in plain(page.vote_panel.status)


def test_undo_restores_the_previous_vote_and_shows_it(qtbot, open_window, review_project):
    window = open_window()
    bridge = window.bridge
    first = bridge.state.current_item()
    press(qtbot, window, Qt.Key.Key_2)  # wrong
    press(qtbot, window, Qt.Key.Key_N)  # minor
    press(qtbot, window, Qt.Key.Key_J)  # move on by hand
    wait_recorded(qtbot, window)
    assert window.undo_label.text().startswith("Undo")
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: bridge.state.current_item() == first and bridge.state.my_vote(first).severity is None,
                    timeout=10_000)
    state = acts.my_vote(review_project, panelist_id=window.panelist.id, item=first)
    assert (state.verdict, state.severity) == ("wrong", None)
    assert not window.page.vote_panel.buttons["severity_minor"].isChecked()
    assert "Undone" in window.status_text.text()
    press(qtbot, window, Qt.Key.Key_N)  # a new vote: the word about the undo no longer applies
    assert "Undone" not in window.status_text.text()


def test_filters_and_next_unvoted(qtbot, open_window):
    window = open_window()
    bridge, panel = window.bridge, window.page.queue_panel
    press(qtbot, window, Qt.Key.Key_3)  # unclear on the first, moves on
    wait_recorded(qtbot, window)
    panel.set_status("unvoted")
    qtbot.waitUntil(lambda: len(bridge.state.queue) == 7)
    assert panel.counts.text() == "7 of 8 mistakes shown: 0 decided · 0 disputed · 7 open; 0 voted by me"
    panel.set_status("all")
    # "/" jumps to the class filter; typing a class name narrows the queue.
    press(qtbot, window, Qt.Key.Key_Slash)
    assert QApplication.focusWidget() is panel.class_filter
    qtbot.keyClicks(panel.class_filter, "tabby")
    qtbot.waitUntil(lambda: len(bridge.state.queue) == 1, timeout=5_000)
    assert "tabby" in plain(window.page.headline)
    assert panel.counts.text() == "1 of 8 mistakes shown: 0 decided · 0 disputed · 1 open; 0 voted by me"
    panel.class_filter.clear()
    press(qtbot, window, Qt.Key.Key_Escape)  # back to reviewing, the filter applied at once
    assert len(bridge.state.queue) == 8 and QApplication.focusWidget() is window.page
    # Space: the next mistake not voted on, skipping the voted first one (wrapping round).
    bridge.state.go_to(7)
    press(qtbot, window, Qt.Key.Key_Space)
    assert bridge.state.row == 1


def test_blind_until_voted_then_others_are_shown(qtbot, open_window, review_project):
    bob = acts.add_panelist(review_project, "bob").value.id
    # A panel starts blind (issue 35); on this one the chair's rule is off, so each panelist's own switch decides.
    review_project.write(lambda s: s.merge(ProjectSetting(key="blind", value="off")))
    window = open_window()
    key = window.bridge.state.current_item()
    acts.vote(review_project, panelist_id=bob, item=key, verdict="wrong")
    window.bridge.state.refresh_others(key)
    qtbot.waitUntil(lambda: window.bridge.state.others.get(key, 1) is None, timeout=5_000)
    others = window.page.vote_panel.others
    assert "Hidden until you vote" in plain(others) and "bob" not in plain(others)
    window.prefs.auto_advance = window.page.auto_advance = "off"
    press(qtbot, window, Qt.Key.Key_C)
    qtbot.waitUntil(lambda: "bob" in plain(others), timeout=10_000)
    assert "wrong" in plain(others)
    # Not blind: another mistake shows others' votes before one's own.
    second = window.bridge.state.queue[1].item
    acts.vote(review_project, panelist_id=bob, item=second, verdict="unclear")
    press(qtbot, window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert not window.blind_box.isChecked()
    press(qtbot, window, Qt.Key.Key_J)
    qtbot.waitUntil(lambda: "unclear" in plain(others), timeout=10_000)


def test_missing_image_and_labels_only_image_show_placeholders(qtbot, open_window):
    window = open_window()
    bridge, image = window.bridge, window.page.image
    names = [e.file_name for e in bridge.state.queue.shown()]
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        bridge.state.go_to(names.index("n02099601_golden_retriever.JPEG"))
    assert image.message == "Image file not found" and not image.has_image()
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        bridge.state.go_to(names.index("ILSVRC2012_val_00000001.JPEG"))
    assert image.message == "No image file"
    # Voting still works on a mistake without its image.
    press(qtbot, window, Qt.Key.Key_U)
    wait_recorded(qtbot, window)


def test_out_of_vocabulary_category_asks_the_object_name(qtbot, open_window, review_project):
    window = open_window()
    key = window.bridge.state.current_item()
    press(qtbot, window, Qt.Key.Key_W)
    press(qtbot, window, Qt.Key.Key_M)
    press(qtbot, window, Qt.Key.Key_O)
    field = window.page.vote_panel.field
    assert field.isVisible() and QApplication.focusWidget() is field
    qtbot.keyClicks(field, "carp")  # letters go to the field, not to the vote keys
    assert window.bridge.state.my_vote(key).category is None
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        qtbot.keyClick(field, Qt.Key.Key_Return)
    wait_recorded(qtbot, window)
    state = acts.my_vote(review_project, panelist_id=window.panelist.id, item=key)
    assert (state.category, state.oov_name) == ("fine_grained_oov", "carp")


def test_help_overlay_lists_the_keys(qtbot, open_window):
    window = open_window()
    press(qtbot, window, Qt.Key.Key_Question, Qt.KeyboardModifier.ShiftModifier)
    assert window.help.isVisible()
    texts = " ".join(w.text() for w in window.help.findChildren(QLabel))
    assert "Prediction is wrong" in texts and "Ctrl+Z" in texts
    press(qtbot, window, Qt.Key.Key_Escape)
    assert not window.help.isVisible()


def test_closing_the_window_finishes_pending_votes(qtbot, open_window, review_project):
    window = open_window()
    key = window.bridge.state.current_item()
    press(qtbot, window, Qt.Key.Key_1)
    window.close()  # right after the key: the vote is still being written
    assert acts.my_vote(review_project, panelist_id=acts.add_panelist(review_project, "ann").value.id,
                        item=key).verdict == "correct"


def test_zoom_to_full_resolution_and_back(qtbot, open_window):
    window = open_window()
    bridge, image = window.bridge, window.page.image
    names = [e.file_name for e in bridge.state.queue.shown()]
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        bridge.state.go_to(names.index("n02091032_Italian_greyhound.JPEG"))
    assert image.is_fit() and image.image_size().width() < 2400  # decoded at the view's size
    press(qtbot, window, Qt.Key.Key_Z)  # 1:1: the full file is decoded on demand
    qtbot.waitUntil(lambda: image.image_size().width() == 2400, timeout=10_000)
    assert image.zoom() == 1.0 and not image.is_fit()
    press(qtbot, window, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)  # pan, not "next"
    assert bridge.state.current_item()[0] == bridge.state.queue.shown()[names.index("n02091032_Italian_greyhound.JPEG")].image_id
    press(qtbot, window, Qt.Key.Key_0)
    assert image.is_fit()


def test_changed_keys_take_effect(qtbot, open_window, review_project):
    from reviewer.app.keymap import load_keymap, save_keymap

    keymap = load_keymap()
    keymap.bindings["verdict_wrong"] = ("Q",)
    save_keymap(keymap)
    window = open_window()
    key = window.bridge.state.current_item()
    press(qtbot, window, Qt.Key.Key_W)  # no longer bound
    assert window.bridge.state.my_vote(key).verdict is None
    press(qtbot, window, Qt.Key.Key_Q)
    assert window.bridge.state.my_vote(key).verdict == "wrong"
    assert "[Q]" in window.page.vote_panel.buttons["verdict_wrong"].text()


def test_the_meeting_opens_from_the_window(qtbot, open_window):
    window = open_window()
    press(qtbot, window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    view = window._meeting_view
    assert view is not None and view.isVisible()
    assert view.project is window.project and view.panelist.id == window.panelist.id
    # Named the meeting wherever the panelist reads it (issue 35: "group" named two things); Ctrl+G kept.
    assert view.windowTitle() == f"Meeting: {window.project.name}"
    assert window.actions_by_name["group_view"].text() == "Meeting (panel discussion)\tCtrl+G"
    window.close()
    assert not view.isVisible()


def test_note_and_problematic_flag(qtbot, open_window, review_project):
    window = open_window()
    key = window.bridge.state.current_item()
    press(qtbot, window, Qt.Key.Key_P)
    assert window.page.vote_panel.buttons["toggle_problematic"].isChecked()
    press(qtbot, window, Qt.Key.Key_E)
    qtbot.keyClicks(window.page.vote_panel.field, "tench on a tarp, label fine")
    qtbot.keyClick(window.page.vote_panel.field, Qt.Key.Key_Return)
    assert window.bridge.state.current_item() == key  # neither moves on: no verdict yet
    wait_recorded(qtbot, window)
    state = acts.my_vote(review_project, panelist_id=window.panelist.id, item=key)
    assert state.problematic and state.note == "tench on a tarp, label fine" and state.verdict is None
    assert "tench on a tarp" in plain(window.page.vote_panel.note)
    # The others' votes are read again while the mistake stays on screen.
    bob = acts.add_panelist(review_project, "bob").value.id
    window.blind_box.setChecked(False)
    acts.vote(review_project, panelist_id=bob, item=key, verdict="unclear")
    # Another process's vote arrives through the poll (no wait for the timer here).
    qtbot.waitUntil(lambda: window.watcher._cursor is not None, timeout=10_000)
    window.watcher.poll()
    qtbot.waitUntil(lambda: "bob" in plain(window.page.vote_panel.others), timeout=10_000)


def test_image_cache_is_bounded_in_bytes(qtbot, shared_data):
    from reviewer.ui.image_loader import ImageLoader, full_key

    loader = ImageLoader(threads=1, cache_mb=12)
    names = ["n02091032_Italian_greyhound.JPEG", "n03843555_oil_filter.JPEG", "n01440764_tench.JPEG"]
    for name in names:
        with qtbot.waitSignal(loader.loaded, timeout=10_000):
            loader.request(full_key(shared_data / "imagenet-samples" / name))
    # 2400x1600 (15 MB) and 1836x1377 (10 MB) do not both fit in 12 MB: the oldest went first.
    assert loader.cached(full_key(shared_data / "imagenet-samples" / names[0])) is None
    assert loader.cached(full_key(shared_data / "imagenet-samples" / names[2])) is not None
    loader.shutdown()


def test_an_exemplar_opens_large(qtbot, open_window):
    window = open_window()  # the first mistake predicts goldfish; the goldfish sample is an exemplar
    strip = window.page.exemplars.predicted.strip.list
    qtbot.waitUntil(lambda: strip.count() == 1, timeout=5_000)
    before = set(window.page.findChildren(QDialog))
    strip.itemClicked.emit(strip.item(0))
    [dialog] = set(window.page.findChildren(QDialog)) - before
    assert dialog.isVisible() and dialog.windowTitle() == "n01443537_goldfish.JPEG"
    view = dialog.findChild(QtImageView)
    qtbot.waitUntil(view.has_image, timeout=10_000)
    dialog.close()


def test_an_example_image_opens_in_a_window_that_has_the_keys_until_closed(qtbot, open_window):
    """Its own caption and Close button, modal to the review (no vote key can reach the mistake
    behind it), the keys at once, and Escape or Ctrl+W closes it."""
    window = open_window()
    detail = window.bridge.state.detail(window.bridge.state.current_item())
    exemplars = [e for e in (*detail.predicted_exemplars, *detail.label_exemplars) if e.path is not None]
    assert exemplars, "the review project has example images of some shown class"
    for close_key in ((Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier),
                      (Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)):
        window.page.exemplars.activated.emit(exemplars[0])
        dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible())
        assert dialog.windowModality() == Qt.WindowModality.WindowModal
        qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=5_000)
        assert exemplars[0].file_name in " ".join(label.text() for label in dialog.findChildren(QLabel))
        qtbot.keyClick(QApplication.focusWidget(), *close_key)
        qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5_000)
