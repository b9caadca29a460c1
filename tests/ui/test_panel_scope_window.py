"""The panel's scope in the window (issue 34): the run selector's first entry opens the whole
scope as one list, each item once; a run outside the scope says so above its queue and takes
no votes on the mistakes only it makes; items with votes that no longer count are counted
where the panel's progress is shown, and the line follows a label import made elsewhere.

The project: 12 labelled images (no image files), run #1 wrong on images 0-5, run #2 on images
3-8 (3-5 the same mistakes as run #1's); ann chairs the panel, bob is on it. Reference values
are read from the Mistake and Vote tables, not through the code under test."""

from __future__ import annotations

import shutil

import pytest
from project_data import new_project
from review_data import add_images, add_run
from sqlalchemy import func, select

from db.tables import Label, LabelSource, Mistake, Vote
from reviewer.app import panel as acts
from reviewer.app.scope import set_panel_scope
from reviewer.items import Item
from reviewer.project import Project

pytestmark = pytest.mark.gui

ORIGINALS = [10 * i + 5 for i in range(12)]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    root = tmp_path_factory.mktemp("scope_window") / "p"
    project = new_project(root)
    ids = add_images(project, ORIGINALS)
    wrong_1 = {image: label + 1 if i < 6 else label for i, (image, label) in enumerate(zip(ids, ORIGINALS))}
    wrong_2 = {image: label + 1 if 3 <= i < 9 else label for i, (image, label) in enumerate(zip(ids, ORIGINALS))}
    add_run(project, "resnet50.a1_in1k", wrong_1)
    add_run(project, "vit_base_patch16_224.augreg2_in21k_ft_in1k", wrong_2)
    acts.add_panelist(project, "ann", chair=True)
    acts.add_panelist(project, "bob")
    project.close()
    return root


@pytest.fixture
def project(template, tmp_path):
    shutil.copytree(template, tmp_path / "p")
    project = Project.open(tmp_path / "p")
    yield project
    project.close()


def _mistakes(project: Project, run_id: int) -> set[Item]:
    with project.read() as session:
        return {Item(i, p) for i, p in session.execute(
            select(Mistake.image_id, Mistake.predicted).where(Mistake.run_id == run_id))}


def _votes(project: Project) -> int:
    with project.read() as session:
        return session.execute(select(func.count(Vote.id))).scalar_one()


def _accept(project: Project, item: Item) -> None:
    """A label import (as another process makes one): the item's prediction is one of its image's
    correct labels now, and every run's mistakes follow."""
    from reviewer.runs.mistakes import follow_labels

    def work(session):
        source = LabelSource(kind="test", path="relabel.csv")
        session.add(source)
        session.flush()
        session.add(Label(label_set="multilabel", image_id=item.image_id, class_index=item.predicted, kind="correct",
                          source_id=source.id))
        session.flush()
        follow_labels(session=session)

    project.write(work)


def _click_row(qtbot, window, item: Item) -> None:
    from PySide6.QtCore import Qt

    review, view = window.page.review, window.page.queue_panel.view
    row = next(r for r in range(len(review.queue)) if review.queue[r].item == item)
    index = window.page.queue_panel.model.index(row)
    view.scrollTo(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())
    qtbot.waitUntil(lambda: review.current_item() == item)


def test_the_scope_entry_opens_the_whole_scope_as_one_list_each_item_once(qtbot, project, window_on,
                                                                          choose_in_combo):
    from reviewer.app.preferences import load_preferences
    from reviewer.panel.scope import SCOPE_QUEUE

    both = _mistakes(project, 1) | _mistakes(project, 2)
    window = window_on(project)
    combo = window.run_combo
    assert combo.itemData(0) == SCOPE_QUEUE
    assert combo.itemText(0) == f"Panel's scope: {len(both)} items (every run)"
    with qtbot.waitSignal(window.page.bridge.queue_loaded, timeout=10_000):
        choose_in_combo(combo, 0)
    queue = window.page.review.queue
    items = [entry.item for entry in queue.entries]
    assert len(items) == len(set(items)) == len(both) and set(items) == both  # each item once
    # Shared mistakes are shown with the first scoped run that made them; the line says whose top-5.
    shared = _mistakes(project, 1) & _mistakes(project, 2)
    assert all(queue.entry(item).run_id == 1 for item in shared)
    assert all(queue.entry(item).run_id == 2 for item in _mistakes(project, 2) - shared)
    qtbot.waitUntil(lambda: "top-5 of run #" in window.page.subheadline.text())
    # The strip counts the scope, and the queue under review is remembered.
    assert "of the panel's scope" in window.page.queue_panel.progress.toolTip()
    assert str(len(both)) in window.page.queue_panel.progress.text_lines()[0]
    assert load_preferences().last_run[str(project.root)] == SCOPE_QUEUE
    window.close()

    again = window_on(project)
    assert again.bridge.state.run_id == SCOPE_QUEUE and again.run_combo.currentData() == SCOPE_QUEUE


def test_a_run_outside_the_scope_says_so_and_takes_no_votes_on_its_own_mistakes(qtbot, project, window_on):
    set_panel_scope(project, chair_id=acts.ByName("ann"), runs=[1])
    window = window_on(project)  # the newest run, #2, opens: outside the scope
    assert window.bridge.state.run_id == 2
    notes = window.page.queue_panel.scope_notes
    assert notes.outside.isVisible()
    assert notes.outside.text() == "Run #2 is outside the panel's scope: its mistakes count once the chair adds it"
    assert "#2" in window.run_combo.currentText() and "outside the scope" in window.run_combo.currentText()
    panel = window.page.vote_panel

    only_2 = sorted(_mistakes(project, 2) - _mistakes(project, 1))
    _click_row(qtbot, window, only_2[0])
    qtbot.waitUntil(lambda: "outside the panel's scope" in panel.closed_reason)
    assert panel.closed.isVisible() and not any(b.isEnabled() for b in panel.buttons.values())
    before = _votes(project)
    window.page.setFocus()
    qtbot.keyClick(window.page, "1")  # Correct: says why, records nothing
    assert "outside the panel's scope" in window.status_text.text()
    assert _votes(project) == before

    shared = sorted(_mistakes(project, 2) & _mistakes(project, 1))
    _click_row(qtbot, window, shared[0])  # also run #1's mistake: under review, votes count
    qtbot.waitUntil(lambda: panel.closed_reason == "")
    assert panel.buttons["verdict_correct"].isEnabled() and not panel.closed.isVisible()
    with qtbot.waitSignal(window.bridge.vote_changed, timeout=10_000):
        qtbot.keyClick(window.page, "1")
    qtbot.waitUntil(lambda: _votes(project) == before + 1)


def test_items_with_votes_no_longer_mistakes_are_counted_beside_the_progress(qtbot, project, window_on):
    first, second = sorted(_mistakes(project, 1) - _mistakes(project, 2))[:2]
    for item in (first, second):
        acts.vote(project, panelist_id=acts.ByName("bob"), item=item, verdict="wrong")
    _accept(project, first)
    window = window_on(project)
    line = window.page.queue_panel.scope_notes.history
    assert line.isVisible()
    assert line.text() == ("1 item with votes is no longer a mistake under the current labels; "
                           "reviewer show gives their history")
    assert "kept" in line.toolTip() and "reviewer show" in line.toolTip()

    _accept(project, second)  # elsewhere: the window's poll finds the new labels and the line follows
    qtbot.waitUntil(lambda: line.text().startswith("2 items with votes are no longer mistakes under the current "
                                                   "labels"), timeout=15_000)
    assert _votes(project) == 2  # the history is kept


def test_a_scope_the_chair_sets_elsewhere_reaches_an_open_window(qtbot, project, window_on):
    window = window_on(project)  # on run #2, every run in the scope
    notes, combo = window.page.queue_panel.scope_notes, window.run_combo
    assert not notes.outside.isVisible()
    # The chair narrows the scope from the command line: the window's poll sees it.
    set_panel_scope(project, chair_id=acts.ByName("ann"), runs=[1])
    qtbot.waitUntil(notes.outside.isVisible, timeout=15_000)
    assert notes.outside.text().startswith("Run #2 is outside the panel's scope")
    assert combo.itemText(0) == f"Panel's scope: {len(_mistakes(project, 1))} items (run #1)"
