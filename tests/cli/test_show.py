"""`reviewer show`: everything the review page shows for one mistake, on real files.

A project of the 50,000 validation images made from label files alone (cleanlab's
list of validation paths in class folders gives the original labels, ReaL its
labels), the published evidence imported beside it; reference values are read
straight from the published files."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reviewer.app import panel as acts
from reviewer.items import Item

pytestmark = pytest.mark.slow


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reviewer", *args], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def val50k(tmp_path_factory, shared_data):
    published = shared_data / "published"
    root = tmp_path_factory.mktemp("show") / "p"
    made = cli("init", str(root), "--labels", str(published / "label-errors" / "imagenet_val_set_index_to_filepath.json"),
               str(published / "real" / "real.json"))
    assert made.returncode == 0, made.stderr
    imported = cli("import-evidence", str(root), str(published / "label-errors" / "imagenet_mturk.json"),
                   str(published / "real" / "real.json"),
                   str(published / "flaws-of-imagenet" / "problem_groups_clusters.json"))
    assert imported.returncode == 0, imported.stderr
    return root, published


def show(root, image: str, predicted: str) -> dict:
    done = cli("show", str(root), "--image", image, "--predicted", predicted, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_show_gives_cleanlabs_mturk_answers_and_the_real_labels(val50k):
    root, published = val50k
    name = "ILSVRC2012_val_00000293.JPEG"
    flagged = {row["id"]: row for row in json.loads((published / "label-errors" / "imagenet_mturk.json").read_text())}
    expected = flagged[293]
    real = json.loads((published / "real" / "real.json").read_text())[292]
    paths = json.loads((published / "label-errors" / "imagenet_val_set_index_to_filepath.json").read_text())
    folder = next(p.split("/")[-2] for p in paths if p.endswith(name))
    record = show(root, name, str(expected["our_guessed_label"]))
    assert record["labels"]["original"]["wnid"] == folder
    assert record["labels"]["original"]["index"] == expected["given_original_label"]
    assert [c["index"] for c in record["labels"]["real"]] == sorted(set(real))
    cleanlab = next(line for line in record["evidence"] if line["source"] == "cleanlab")
    assert cleanlab["data"]["row"]["mturk"] == expected["mturk"]
    assert cleanlab["data"]["row"]["guessed"] == expected["our_guessed_label"]
    assert "guessed = the prediction" in cleanlab["text"]
    real_line = next(line for line in record["evidence"] if line["source"] == "ReaL")
    assert real_line["data"]["row"]["labels"] == real


def test_show_names_the_problem_group_of_the_images_class(val50k):
    root, published = val50k
    groups = json.loads((published / "flaws-of-imagenet" / "problem_groups_clusters.json").read_text())
    paths = json.loads((published / "label-errors" / "imagenet_val_set_index_to_filepath.json").read_text())
    wnids = sorted({p.split("/")[-2] for p in paths})
    group = groups[0]
    members = sorted(int(c) for c in group["classes"])
    image = next(p.split("/")[-1] for p in paths if wnids.index(p.split("/")[-2]) == members[0])
    record = show(root, image, str(members[1]))
    line = next(line for line in record["evidence"] if line["source"] == "class group")
    assert line["data"]["same_group"] is True
    assert sorted(int(c) for c in line["data"]["predicted_group"]["classes"]) == members
    text = cli("show", str(root), "--image", image, "--predicted", str(members[1])).stdout
    assert "class group: the prediction and the original label are in one group" in text


def test_show_of_a_run_has_the_top5_the_votes_and_the_decision(tmp_path, shared_data):
    import shutil

    from review_data import add_run, decide

    from reviewer.app.imports import init_project

    images = tmp_path / "images"
    images.mkdir()
    shutil.copy(shared_data / "imagenet-samples" / "n01440764_tench.JPEG", images)
    project, _ = init_project(tmp_path / "p", images=images)
    image_id = 1
    add_run(project, "resnet50", {image_id: 1}, probs={image_id: 0.7})
    ann = acts.add_panelist(project, "ann", chair=True).value.id
    acts.vote(project, panelist_id=ann, item=Item(image_id, 1), verdict="wrong", severity="major", category="fine_grained")
    acts.note(project, panelist_id=ann, item=Item(image_id, 1), text="a goldfish is orange")
    decide(project, image_id, 1, "wrong", severity="major", category="fine_grained", chair="ann")
    project.close()
    record = show(tmp_path / "p", "n01440764_tench.JPEG", "1")
    run = record["runs"][0]
    assert run["model"] == "resnet50" and run["mistake"] is not None
    assert [r["index"] for r in run["top5"]] == [1, 2, 3, 4, 5]  # add_run fills the top-5 with the next classes
    assert run["top5"][0]["probability"] == pytest.approx(0.7, abs=1e-3)
    assert run["top5"][0]["label"] == "wrong" and run["top5"][0]["decided_by_panel"]
    assert record["panel"]["votes"][0]["panelist"] == "ann" and record["panel"]["votes"][0]["severity"] == "major"
    assert record["panel"]["notes"][0]["text"] == "a goldfish is orange"
    assert record["panel"]["decision"].startswith("wrong")
    assert record["wordnet"]["nearest_label"]["index"] == 0
    assert record["evidence"] == []  # no source imported: the text says how to import one
    text = cli("show", str(tmp_path / "p"), "--image", "n01440764_tench.JPEG", "--predicted", "1").stdout
    # A class by its whole name (any case), as every command takes it.
    assert cli("show", str(tmp_path / "p"), "--image", "n01440764_tench.JPEG", "--predicted", "GOLDFISH").stdout == text
    assert "no evidence source imported" in text and "vote of ann: wrong, major, fine_grained" in text
    # The prediction line follows the panel's decision, not the imported labels' silence.
    assert record["labels"]["prediction_decided"] == "wrong"
    assert "prediction  wrong by the panel's final decision" in text and "(unreviewed)" not in text


def test_show_of_an_unknown_image_is_a_clear_error(val50k):
    root, _ = val50k
    done = cli("show", str(root), "--image", "no_such.JPEG", "--predicted", "3")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "no_such.JPEG" in done.stderr
