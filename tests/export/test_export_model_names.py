"""Two models never share a mistakes file in an export (issue 29, finding 6): the
safe spelling of 'team/model' and 'team:model' is the same, and the folder held
only the second."""

from __future__ import annotations

import json

from review_data import add_images, add_run, decide, val_name

from reviewer.app import export as export_acts
from reviewer.app.imports import init_project
from reviewer.export.bundle import model_file_names


def export_project(project, out_dir, **options):
    """What the export act (reviewer.app.export, the window's and the CLI's) wrote."""
    return export_acts.export_project(project, out_dir, **options).value


def test_models_whose_safe_names_meet_get_two_files(tmp_path):
    project, _ = init_project(tmp_path / "p")
    ids = add_images(project, [200, 201, 202], start=1)
    for image, model, predicted in ((ids[0], "team/model", 300), (ids[1], "team:model", 301), (ids[2], "plain", 302)):
        add_run(project, model, {image: predicted})
        decide(project, image, predicted, "wrong", severity="major", category="spurious_correlation")
    result = export_project(project, tmp_path / "out")
    manifest = json.loads((result.path / "manifest.json").read_text())
    files = {model: notes["file"] for model, notes in manifest["models"].items()}
    assert set(files) == {"team/model", "team:model", "plain"}
    assert len(set(files.values())) == 3 and files["plain"] == "mistakes/plain_mistakes.json"
    assert len(list((result.path / "mistakes").iterdir())) == 3
    for model, image, predicted in (("team/model", 1, 300), ("team:model", 2, 301), ("plain", 3, 302)):
        written = json.loads((result.path / files[model]).read_text())
        assert list(written) == [val_name(image)] and written[val_name(image)]["top_prediction"] == predicted


def test_names_differing_in_case_only_stay_apart_on_any_file_system():
    names = model_file_names(["ResNet50", "resnet50", "vit"])
    assert len({name.lower() for name in names.values()}) == 3 and names["vit"] == "vit_mistakes.json"
