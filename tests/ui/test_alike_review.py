"""Alike mistakes reviewed side by side, from the keyboard (issue 26): a confusion pair's images side
by side, one key casting the same vote on the selected ones, each recorded as the
panelist's own vote on that item and taken back one at a time with Ctrl+Z."""

from __future__ import annotations

import pytest
from project_data import new_project
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from review_data import add_images, add_run

from reviewer.app import panel as acts
from reviewer.app.keymap import default_keymap
from reviewer.items import Item

pytestmark = pytest.mark.gui


@pytest.fixture
def alike(tmp_path):
    """American chameleon (40) taken for green lizard (46) three times, goldfish (1) for great
    white shark (2) twice, one mistake alone."""
    project = new_project(tmp_path / "p")
    ids = add_images(project, [40, 40, 40, 1, 1, 5])
    run_id = add_run(project, "m", dict(zip(ids, [46, 46, 46, 2, 2, 7])))
    ann = acts.add_panelist(project, "ann", chair=True).value
    return project, ann, run_id, [Item(i, p) for i, p in zip(ids, [46, 46, 46, 2, 2, 7])]


def open_view(qtbot, project, ann, run_id):
    from reviewer.ui.app import create_app
    from reviewer.ui.review.qt_alike_review import QtAlikeReview

    create_app()
    view = QtAlikeReview(project, ann, run_id, default_keymap())
    qtbot.addWidget(view)
    view.resize(1280, 800)
    with qtbot.waitSignal(view.loaded, timeout=20_000):
        view.show()
    view.activateWindow()
    return view


def press(qtbot, view, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(QApplication.focusWidget() or view, key, modifier)


def vote_of(project, ann, item):
    v = acts.my_vote(project, panelist_id=ann.id, item=item)
    return v.verdict, v.severity, v.category


def test_a_set_voted_from_the_keyboard_and_undone_one_by_one(qtbot, alike):
    project, ann, run_id, items = alike
    view = open_view(qtbot, project, ann, run_id)
    assert [view.set_list.item(i).text() for i in range(view.set_list.count())] == [
        "American chameleon → green lizard (3)", "goldfish → great white shark (2)"]
    assert "3 of 3 selected" in view.title.text() and view.tiles.count() == 3
    # The second image out, then "wrong" on the other two: one vote each.
    press(qtbot, view, Qt.Key.Key_Right)
    press(qtbot, view, Qt.Key.Key_Space)
    assert "2 of 3 selected" in view.title.text() and view.tiles.item(1).text().startswith("☐")
    with qtbot.waitSignal(view.recorded, timeout=10_000):
        press(qtbot, view, Qt.Key.Key_2)
    assert [vote_of(project, ann, i)[0] for i in items[:3]] == ["wrong", None, "wrong"]
    for key in (Qt.Key.Key_M, Qt.Key.Key_F):
        with qtbot.waitSignal(view.recorded, timeout=10_000):
            press(qtbot, view, key)
    assert vote_of(project, ann, items[2]) == ("wrong", "major", "fine_grained")
    qtbot.waitUntil(lambda: "wrong · major · fine-grained" in view.tiles.item(2).text(), timeout=10_000)
    # Only the second now (A: all, A again: none, Space: the cursor's), unclear: the set is done and the
    # next one opens.
    press(qtbot, view, Qt.Key.Key_A)
    assert "3 of 3 selected" in view.title.text()
    press(qtbot, view, Qt.Key.Key_A)
    press(qtbot, view, Qt.Key.Key_Space)
    assert "1 of 3 selected" in view.title.text()
    with qtbot.waitSignal(view.recorded, timeout=10_000):
        press(qtbot, view, Qt.Key.Key_3)
    qtbot.waitUntil(lambda: view.state.row == 1, timeout=10_000)
    assert view.set_list.item(0).text().startswith("✓ ")
    # Ctrl+Z: the last vote alone (the second image's unclear), then F's two votes one at a time (the
    # third image's, cast last, first), each undo leaving the other images as they were.
    expected = [(items[1], (None, None, None)), (items[2], ("wrong", "major", None)),
                (items[0], ("wrong", "major", None))]
    for n, (item, vote) in enumerate(expected):
        with qtbot.waitSignal(view.recorded, timeout=10_000):
            press(qtbot, view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        assert vote_of(project, ann, item) == vote
        if n == 1:
            assert vote_of(project, ann, items[0]) == ("wrong", "major", "fine_grained")
    press(qtbot, view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not view.isVisible(), timeout=5_000)


def test_a_severity_on_an_image_voted_correct_is_refused_and_said(qtbot, alike):
    project, ann, run_id, items = alike
    acts.vote(project, panelist_id=ann.id, item=items[3], verdict="correct")
    view = open_view(qtbot, project, ann, run_id)
    press(qtbot, view, Qt.Key.Key_J)  # the goldfish set
    assert view.state.row == 1 and view.tiles.item(0).text().endswith("correct")
    with qtbot.waitSignal(view.recorded, timeout=10_000):
        press(qtbot, view, Qt.Key.Key_N)
    assert vote_of(project, ann, items[3]) == ("correct", None, None)
    assert vote_of(project, ann, items[4]) == ("wrong", "minor", None)
    assert "1 not recorded (severity and category describe a wrong prediction" in view.status.text()


def test_similar_images_need_an_index_and_say_so(qtbot, alike):
    project, ann, run_id, _ = alike
    view = open_view(qtbot, project, ann, run_id)
    with qtbot.waitSignal(view.loaded, timeout=5_000, raising=False):
        view.alike_by.setCurrentIndex(1)
    qtbot.waitUntil(lambda: "reviewer index" in view.status.text(), timeout=10_000)


def test_the_window_opens_it_from_the_view_menu(qtbot, open_window):
    window = open_window()
    action = window.actions_by_name["group_review"]  # the keymap's name for it, kept (keymap.json stores it)
    assert action.text() == "Review alike mistakes (same confusion, similar images)\tCtrl+Shift+G"
    action.trigger()
    view = window.side.get("alike_review")
    assert view.windowTitle() == f"Alike mistakes: {window.project.name}"
    qtbot.waitUntil(lambda: "are alike this way" in view.status.text(), timeout=10_000)
    assert view.status.text() == "No two of the 8 mistakes are alike this way."
    view.close()


def test_similar_images_at_a_similarity_the_panelist_sets(qtbot, alike, tmp_path):
    import numpy as np
    from index_data import write_index
    from review_data import val_name

    project, ann, run_id, _ = alike
    # The first chameleon and image 6 (an electric ray) at cosine 0.6; the rest apart.
    vectors = np.vstack([np.eye(8)[:5], [0.6, 0, 0, 0, 0, 0, 0, 0.8]])
    write_index(project.root, train_root=tmp_path, train=[],
                project=[(f"/v/{val_name(n)}", "") for n in range(1, 7)], project_vectors=vectors)
    view = open_view(qtbot, project, ann, run_id)
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.alike_by.setCurrentIndex(1)
    assert view.similarity.isVisible() and view.similarity.value() == 0.75
    assert view.empty.isVisible() and "Lower the similarity" in view.empty.text()
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.similarity.setValue(0.55)
    assert view.set_list.count() == 1 and view.set_list.item(0).text() == "like American chameleon · electric ray (2)"
    assert [view.state.shown.entries[i].file_name for i in range(2)] == [val_name(1), val_name(6)]
