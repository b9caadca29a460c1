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
    window = QtMainWindow(preferences=Preferences(reviewer_name="ann"))
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
