"""A project made from label files and published reviews, without a run, in the window
(issue 24): the empty review page says what the project holds and what can be done,
not "Run a model over the project's images", which cannot work without image files."""

from __future__ import annotations

from reviewer.app.imports import import_review, init_project


def test_the_empty_page_of_a_labels_only_project_says_what_it_holds_and_what_to_do(qtbot, tmp_path, shared_data):
    from reviewer.app.preferences import Preferences
    from reviewer.ui.app import create_app
    from reviewer.ui.qt_main_window import QtMainWindow

    project, _ = init_project(tmp_path / "p", labels=[shared_data / "formats" / "tfds_v3_sample.json"])
    import_review(project, shared_data / "imagenet-mistakes" / "vit3b_mistakes.json", model="vit3b")
    project.close()
    create_app()
    window = QtMainWindow(preferences=Preferences(panelist_name="ann"))
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.project_opened, timeout=20_000):
        window.open_project(str(tmp_path / "p"))
    image = window.page.image
    assert image.message == "No model run: the images have no files"
    detail = image._detail
    assert "holds 399 images, none with an image file, and published reviews of vit3b (378 reviewed mistakes)" \
        in detail
    assert "reviewer import-images PROJECT FOLDER" in detail and "reviewer import-logits" in detail
    assert "Analysis…" in detail and "Run a model over" not in detail
    window.close()


def _open(qtbot, root):
    from reviewer.app.preferences import Preferences
    from reviewer.ui.app import create_app
    from reviewer.ui.qt_main_window import QtMainWindow

    create_app()
    window = QtMainWindow(preferences=Preferences(panelist_name="ann"))
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    window.open_project(str(root))
    return window


def test_the_window_lists_a_labels_only_projects_reviewed_mistakes_with_the_published_ratings(qtbot, tmp_path,
                                                                                              shared_data):
    """Issue 24: `reviewer gui` on a project of label files and two published reviews lists
    the reviews' 627 reviewed mistakes (the rows the report and the export read), read-only,
    each with its image's placeholder and what every review said of it, as `reviewer show`
    prints it; not "Run a model over the project's images", which cannot work there."""
    project, _ = init_project(tmp_path / "p", labels=[shared_data / "formats" / "tfds_v3_sample.json"])
    import_review(project, shared_data / "imagenet-mistakes" / "vit3b_mistakes.json", model="vit3b")
    import_review(project, shared_data / "imagenet-mistakes" / "greedy_soups_mistakes.json", model="greedy_soups")
    project.close()
    window = _open(qtbot, tmp_path / "p")
    with qtbot.waitSignal(window.reviewed_listed, timeout=20_000) as listed:
        pass
    assert listed.args == [627]
    reviewed = window.reviewed
    assert window.stack.currentWidget() is reviewed
    assert "627 reviewed mistakes (greedy_soups: 249, vit3b: 378)" in reviewed.summary.text()
    assert "none with an image file" in reviewed.summary.text() and "reviewer import-images" in reviewed.summary.text()
    assert "Read-only" in reviewed.summary.text()

    # The README's own example: rated "Fine-grained error / Minor" by both reviews.
    rows = reviewed.shown_rows()
    row = next(r for r in rows if r.file_name == "ILSVRC2012_val_00001529.JPEG" and r.model == "vit3b")
    assert (row.category, row.severity, row.has_file) == ("Fine-grained error", "Minor", False)
    with qtbot.waitSignal(reviewed.record_shown, timeout=20_000):
        reviewed.table.selectRow(rows.index(row))
    facts = reviewed.facts.toPlainText()
    assert facts.startswith("ILSVRC2012_val_00001529.JPEG  (no image file in this project)")
    assert "    vit3b: wrong, Fine-grained error, Minor" in facts
    assert "    greedy_soups: wrong, Fine-grained error, Minor" in facts
    assert reviewed.image.message == "No image file"

    # One review's list: its rows only, as many as the review holds.
    reviewed.model_filter.setCurrentIndex(reviewed.model_filter.findData("vit3b"))
    assert {r.model for r in reviewed.shown_rows()} == {"vit3b"} and len(reviewed.shown_rows()) == 378
    window.close()


def test_a_labels_only_project_without_reviews_keeps_the_page_that_says_what_to_do(qtbot, tmp_path, shared_data):
    project, _ = init_project(tmp_path / "p", labels=[shared_data / "formats" / "tfds_v3_sample.json"])
    project.close()
    window = _open(qtbot, tmp_path / "p")
    qtbot.waitUntil(lambda: window.page.image.message == "No model run: the images have no files", timeout=20_000)
    qtbot.waitUntil(lambda: not window.worker.busy(), timeout=20_000)  # the list's read has come back
    assert window.stack.currentWidget() is window.page and window.reviewed is None
    window.close()
