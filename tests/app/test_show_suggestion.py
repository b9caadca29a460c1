"""`reviewer show` gives the suggestion the review page shows beside the vote, from the same facts."""

from __future__ import annotations

from project_data import new_project
from review_data import add_images, add_run

from reviewer.app.mistake_detail import DetailSource
from reviewer.app.show import format_record, show_mistake

GOLDEN, LABRADOR, TABBY = 207, 208, 281


def test_show_and_the_window_suggest_alike(tmp_path):
    project = new_project(tmp_path / "p")
    ids = add_images(project, [GOLDEN, GOLDEN], labels={1: {"correct": [GOLDEN, LABRADOR]}})
    run = add_run(project, "resnet50", {ids[0]: LABRADOR, ids[1]: TABBY})
    source = DetailSource(project)
    for image_id, predicted, severity in ((ids[0], LABRADOR, "minor"), (ids[1], TABBY, "major")):
        window = source.detail(run_id=run, image_id=image_id).suggestion
        record = show_mistake(project, image=str(image_id), predicted=predicted)
        assert record["suggestion"] == window.as_dict() and record["suggestion"]["severity"] == severity
        assert f"suggested   {window.line} (not a vote)" in format_record(record).splitlines()
    project.close()
