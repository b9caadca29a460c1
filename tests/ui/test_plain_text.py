"""Every string a panelist (or anyone who can write the database) can store is shown
as text, never as markup (issue 29, finding 5): a note's tooltip in the meeting
rendered HTML, a local <img> included, and a panelist named with HTML rendered in
"Reviewing as".

Markup is planted in every user-writable string the window shows (panelist names,
vote notes, discussion notes, out-of-vocabulary names, the chair's reason, the
project's name, a model's name, a file name, a zoom result's model) and every label,
tooltip, text view and list cell of the review page and the meeting is checked:
wherever Qt would render rich text, no planted element may be rendered."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QModelIndex
from PySide6.QtGui import (
    Qt,  # QtGui.Qt adds mightBeRichText to the namespace
    QTextDocument,
)
from PySide6.QtWidgets import QAbstractItemView, QLabel, QTextEdit, QWidget
from review_data import snapshot_of
from sqlalchemy import select, update

from db.engine import write_session
from db.tables import Image, Model
from reviewer.app import panel as acts
from reviewer.items import Item
from reviewer.runs.zoom import ZoomParams, ZoomResult, save_zoom

pytestmark = pytest.mark.gui

MARK = "<img src='planted.png'><b>x</b>"  # an element Qt renders when the text is taken as HTML
RENDERED = 'src="planted.png"'  # how a rendered <img> reads in QTextDocument.toHtml()


def rich(text: str, fmt) -> bool:
    if fmt == Qt.TextFormat.RichText:
        return True
    return fmt == Qt.TextFormat.AutoText and Qt.mightBeRichText(text)


def rendered(text: str) -> bool:
    """Whether the planted element is an element of `text` read as HTML."""
    doc = QTextDocument()
    doc.setHtml(text)
    return RENDERED in doc.toHtml()


def leaks(root: QWidget) -> list[str]:
    """Where the planted markup is rendered as markup: label texts, tooltips, text views, cells."""
    out = []
    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        if isinstance(w, QLabel) and rich(w.text(), w.textFormat()) and rendered(w.text()):
            out.append(f"label {w.objectName() or type(w).__name__}: {w.text()[:120]}")
        if w.toolTip() and rich(w.toolTip(), Qt.TextFormat.AutoText) and rendered(w.toolTip()):
            out.append(f"tooltip of {w.objectName() or type(w).__name__}: {w.toolTip()[:120]}")
        if isinstance(w, QTextEdit) and RENDERED in w.document().toHtml():
            out.append(f"text view {w.objectName() or type(w).__name__}: {w.toPlainText()[:120]}")
        if isinstance(w, QAbstractItemView) and w.model() is not None:
            model = w.model()
            root_index = QModelIndex()
            for row in range(min(model.rowCount(root_index), 200)):
                for col in range(_columns(model)):
                    tip = model.index(row, col).data(Qt.ItemDataRole.ToolTipRole)
                    if isinstance(tip, str) and rich(tip, Qt.TextFormat.AutoText) and rendered(tip):
                        out.append(f"cell tooltip ({row}, {col}) of {type(w).__name__}: {tip[:120]}")
    return out


def _columns(model) -> int:
    try:
        return model.columnCount(QModelIndex())
    except TypeError:  # a list model: one column (columnCount is private there)
        return 1


def shown_literally(root: QWidget) -> bool:
    """Somewhere the planted text reads as it was typed (it is shown, as text)."""
    for w in [root, *root.findChildren(QWidget)]:
        if isinstance(w, QLabel):
            text = w.text()
            if rich(text, w.textFormat()):
                doc = QTextDocument()
                doc.setHtml(text)
                text = doc.toPlainText()
            if MARK in text:
                return True
    return False


@pytest.fixture
def planted(review_project):
    """The review project with markup in every string a user can write."""
    project = review_project
    items = snapshot_of(project).items
    eve = acts.add_panelist(project, f"eve{MARK}", chair=True).value
    bob = acts.add_panelist(project, f"bob{MARK}").value
    first = Item(items[0].image_id, items[0].predicted)
    for who, verdict in ((eve, "wrong"), (bob, "correct")):
        acts.vote(project, panelist_id=who.id, item=first, verdict=verdict, note=f"note{MARK}")
    acts.vote(project, panelist_id=bob.id, item=first, severity="major", category="fine_grained_oov",
              oov_name=f"thing{MARK}")
    acts.note(project, panelist_id=bob.id, item=first, text=f"discussion{MARK}")
    second = Item(items[1].image_id, items[1].predicted)
    for who in (eve, bob):
        acts.vote(project, panelist_id=who.id, item=second, verdict="unclear")
    acts.override(project, chair_id=eve.id, item=second, verdict="correct", reason=f"reason{MARK}")
    project.set_setting("name", f"project{MARK}")
    with write_session(project.engine) as session:  # what raw SQL by the owner could store
        session.execute(update(Model).values(name=f"resnet50{MARK}"))
        image_id = session.execute(select(Image.id).order_by(Image.id)).scalars().first()
        session.execute(update(Image).where(Image.id == image_id).values(file_name=f"file{MARK}.JPEG"))
    # A zoom result of the run's model (its name planted above), computed by bob.
    result = ZoomResult.empty(ZoomParams(scales=(224,), top_k=1), model=f"resnet50{MARK}", weights_sha256=None,
                              image_size=(500, 375))
    for cell in range(9):
        result.set_cell(224, cell // 3, cell % 3, np.array([first.predicted]), np.array([0.9], np.float32))
    project.write(lambda s: save_zoom(session=s, run_id=project.run_id, image=first.image_id,
                                      predicted=first.predicted, result=result, computed_by=bob.id))
    return project, eve, [first, second]


def test_the_review_page_shows_planted_markup_as_text(qtbot, planted, open_window):
    project, eve, items = planted
    window = open_window(panelist_name=eve.name, blind=False)
    page = window.page
    zoom_seen = False
    qtbot.waitUntil(lambda: page.review is not None and page.review.row is not None, timeout=10_000)
    last = len(page.review.queue) - 1
    assert last + 1 == len(snapshot_of(project).items)

    def look() -> None:
        nonlocal zoom_seen
        qtbot.wait(300)  # the parts that arrive after the mistake (zoom, notes, neighbours)
        found = leaks(window)
        assert found == [], "\n".join(found)
        zoom_seen = zoom_seen or f"resnet50{MARK}, computed by bob{MARK}" in page.zoom.summary.text()

    # The window opens at the first mistake still to do: walk to the end, then back to the first
    # (a key past either end would show nothing, and waiting for it costs seconds).
    for key, done in ((Qt.Key.Key_J, lambda: page.review.row == last), (Qt.Key.Key_K, lambda: page.review.row == 0)):
        while not done():
            look()
            with qtbot.waitSignal(page.mistake_shown, timeout=5_000):
                qtbot.keyClick(page, key)
    look()
    assert zoom_seen  # the zoom result's model and who computed it, as typed
    assert shown_literally(window)  # "Reviewing as eve<img ...>" reads as typed


def test_the_meeting_shows_planted_markup_as_text(qtbot, planted, monkeypatch):
    from reviewer.ui.app import create_app
    from reviewer.ui.meeting.qt_meeting_view import QtMeetingView

    project, eve, items = planted
    create_app()
    monkeypatch.setattr(QtMeetingView, "resamples", 20)
    view = QtMeetingView(project, eve)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    with qtbot.waitSignal(view.item_shown, timeout=20_000):
        view.show()
    for row in range(len(view.rows)):
        if view.selected_item() != view.rows[row].item:
            with qtbot.waitSignal(view.item_shown, timeout=10_000):
                view.list.selectRow(row)
        qtbot.wait(300)
        found = leaks(view)
        assert found == [], '\n'.join(found)
