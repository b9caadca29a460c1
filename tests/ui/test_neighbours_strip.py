"""The review page's strip of nearest training images (issue 26), on the review project with
a hand-built index beside it: the K nearest with their training labels and similarity, the
duplicates marked and said in words, thumbnails decoded off the UI thread, a click opens
one large, and a project without an index shows no strip."""

from __future__ import annotations

import pytest
from index_data import duplicate, write_index
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QDialog, QLabel

from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.theme import ERROR

pytestmark = pytest.mark.gui

# Training images: sample files under their own classes (the training folder is tests/data/imagenet-samples).
TRAIN = [("n01443537_goldfish.JPEG", "n01443537"), ("n02085620_Chihuahua.JPEG", "n02085620"),
         ("n02086240_Shih-Tzu.JPEG", "n02086240"), ("n02692877_airship.JPEG", "n02692877")]


@pytest.fixture
def indexed(review_project, shared_data):
    """The first mistake (tench predicted goldfish) has three neighbours, the first an exact copy;
    an airship is a near duplicate not among them. The second mistake has none stored."""
    root = shared_data / "imagenet-samples"
    write_index(review_project.root, train_root=root, train=TRAIN, k=3,
                neighbours={"n01440764_tench.JPEG": [(0, 0.97), (2, 0.55), (1, 0.41)]},
                duplicates=[duplicate("n01440764_tench.JPEG", "exact", train_root=root, path=TRAIN[0][0],
                                      wnid="n01443537", row=0),
                            duplicate("n01440764_tench.JPEG", "perceptual", train_root=root, path=TRAIN[3][0],
                                      wnid="n02692877", row=3, distance=3)])
    return review_project


def test_the_strip_shows_the_neighbours_and_marks_the_duplicates(qtbot, open_window, indexed):
    window = open_window()
    strip = window.page.neighbours
    assert window.bridge.state.current().file_name == "n01440764_tench.JPEG"
    qtbot.waitUntil(lambda: strip.isVisible() and len(strip.strip.shown()) == 4, timeout=10_000)
    texts = [item.text() for item in strip.strip.shown()]
    assert texts == ["0.97 goldfish", "0.55 Shih-Tzu", "0.41 Chihuahua", "near · airship"]
    assert "3 nearest training images" in strip.title.text() and "1 of 3" in strip.title.text()
    words = strip.duplicates.text()
    assert "exact duplicate of n01443537_goldfish.JPEG, labelled goldfish in training" in words
    assert "near duplicate (perceptual hash) of n02692877_airship.JPEG" in words
    # The exact copy reads in the colour of an error, the plain neighbour does not.
    assert strip.strip.list.item(0).foreground().color() == QColor(ERROR)
    assert strip.strip.list.item(2).foreground().color() != QColor(ERROR)
    assert "exact duplicate of the shown image" in strip.strip.list.item(0).toolTip()
    # Thumbnails arrive from the worker once the panelist stays.
    qtbot.waitUntil(lambda: all(not strip.strip.list.item(i).icon().isNull() for i in range(4)), timeout=10_000)


def test_a_neighbour_opens_large_and_escape_closes_it(qtbot, open_window, indexed):
    window = open_window()
    strip = window.page.neighbours
    qtbot.waitUntil(lambda: len(strip.strip.shown()) == 4, timeout=10_000)
    strip.strip.list.itemClicked.emit(strip.strip.list.item(2))
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible())
    assert dialog.windowTitle() == "n02085620_Chihuahua.JPEG"
    words = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert "nearest training image 3 of 3, labelled Chihuahua (n02085620) in training" in words
    assert "similarity 0.410" in words
    qtbot.waitUntil(dialog.findChild(QtImageView).has_image, timeout=10_000)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=5_000)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5_000)
    assert window.bridge.state.row == 0  # the key closed the preview, it did not vote or move


def test_a_mistake_without_stored_neighbours_says_why_with_the_same_height(qtbot, open_window, indexed):
    window = open_window()
    strip = window.page.neighbours
    qtbot.waitUntil(lambda: len(strip.strip.shown()) == 4, timeout=10_000)
    # The strip's first showing lays the column out again (it gives way to a short window, issue 35).
    qtbot.waitUntil(lambda: strip.height() == strip.sizeHint().height(), timeout=5_000)
    height = strip.height()
    with qtbot.waitSignal(window.page.mistake_shown, timeout=10_000):
        qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_J)
    qtbot.waitUntil(lambda: strip.strip.empty.isVisible(), timeout=10_000)
    assert "No neighbours stored for this image" in strip.strip.empty.text()
    assert "No duplicate of this image" in strip.duplicates.text()
    assert strip.height() == height  # the image view above keeps its size


def test_no_index_no_strip(qtbot, open_window):
    window = open_window()
    assert window.page.exemplars.isVisible() and not window.page.neighbours.isVisible()


def test_the_meeting_shows_the_same_strip(qtbot, indexed):
    from reviewer.app import panel as acts
    from reviewer.items import Item
    from reviewer.ui.app import create_app
    from reviewer.ui.meeting.qt_meeting_view import QtMeetingView

    create_app()
    ann, bob = (acts.add_panelist(indexed, name, chair=name == "ann").value for name in ("ann", "bob"))
    tench = Item(indexed.ids["n01440764_tench.JPEG"], 1)
    acts.vote(indexed, panelist_id=ann.id, item=tench, verdict="wrong")
    acts.vote(indexed, panelist_id=bob.id, item=tench, verdict="correct")  # split: the group discusses it
    view = QtMeetingView(indexed, ann)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    with qtbot.waitSignal(view.item_shown, timeout=20_000):
        view.show()
    strip = view.neighbours
    qtbot.waitUntil(lambda: strip.isVisible() and len(strip.strip.shown()) == 4, timeout=10_000)
    assert strip.strip.list.item(0).text() == "0.97 goldfish" and "exact duplicate" in strip.duplicates.text()
    view.close()
