"""Every published file imports as it is, and what is stored matches the raw files read here
independently (json, csv, numpy), image by image."""

from __future__ import annotations

import csv
import json
import random

import numpy as np
import pytest
from evidence_data import GROUND_TRUTH, table_counts

from reviewer.classes.vocabulary import load_classes
from reviewer.evidence import evidence_for
from reviewer.evidence.kinds import EvidenceKind

IMAGE = "ILSVRC2012_val_00000293.JPEG"  # tench, flagged by cleanlab (guessed Komodo dragon)
NAMES = load_classes().names


def _lines(project, image, predicted, original):
    return {line.data["kind"]: line for line in evidence_for(project, image, predicted, original)}


def _rows(project, kind):
    """image name -> payload of the stored source of that kind."""
    from sqlalchemy import select

    from db.tables import EvidenceItem, EvidenceSource

    with project.read() as session:
        rows = session.execute(select(EvidenceItem.image_name, EvidenceItem.payload).join(
            EvidenceSource, EvidenceSource.id == EvidenceItem.source_id).where(EvidenceSource.kind == kind)).all()
    return {name: json.loads(payload) for name, payload in rows}


def test_every_published_file_imports_and_the_ground_truth_is_untouched(full_project, published):
    project, results, before = full_project
    kinds = {r.file_name: r.kind for r in results}
    assert kinds == {
        "real.json": "real_labels", "raters.npz": "real_raters", "golden.npz": "real_experts",
        "raters_golden.npz": "real_raters_golden", "imagenet_mturk.json": "cleanlab",
        "imagenet_val_set_index_to_filepath.json": "cleanlab_index",
        "imagenet_val_set_original_labels.npy": "cleanlab_labels", "clean_validation.csv": "flaws_clean",
        "label_errors.csv": "flaws_label_errors", "finegrained.csv": "flaws_relabeling",
        "expert_356_357_358_359.json": "flaws_expert", "problem_groups_clusters.json": "class_groups",
        "imagenet2012_multilabel_validation.csv": "tfds_multilabel"}
    assert all(r.status == "imported" for r in results)
    assert table_counts(project, GROUND_TRUTH) == before  # images, labels, problematic marks: as they were
    counts = {r.file_name: r.n_items for r in results}
    assert counts["real.json"] == 50_000
    assert counts["imagenet_mturk.json"] == len(json.loads((published / "label-errors" / "imagenet_mturk.json")
                                                           .read_text()))
    with open(published / "flaws-of-imagenet" / "clean_validation.csv") as fh:
        assert counts["clean_validation.csv"] == sum(1 for _ in csv.DictReader(fh))
    groups = json.loads((published / "flaws-of-imagenet" / "problem_groups_clusters.json").read_text())
    assert counts["problem_groups_clusters.json"] == sum(len(g["classes"]) for g in groups)
    assert counts["imagenet_val_set_index_to_filepath.json"] == 0  # auxiliary: checked, recorded, no rows


def test_real_labels_match_the_raw_file(full_project, published):
    project, _, _ = full_project
    raw = json.loads((published / "real" / "real.json").read_text())
    stored = _rows(project, "real_labels")
    assert len(stored) == len(raw)
    sample = random.Random(7).sample(range(len(raw)), 300) + [292]
    for i in sample:
        name = f"ILSVRC2012_val_{i + 1:08d}.JPEG"
        assert sorted(stored[name]["labels"]) == sorted(set(raw[i])), name
    assert sum(1 for p in stored.values() if not p["labels"]) == sum(1 for r in raw if not r)
    # The line of image 293 as a user reads it, from the raw file's labels.
    labels = raw[292]
    line = _lines(project, IMAGE, 48, 0)["real_labels"]
    assert line.data["row"]["labels"] == labels
    assert ("does not accept Komodo dragon" in line.text) == (48 not in labels)
    assert ("accepts the original label, tench" in line.text) == (0 in labels)


def test_rater_counts_are_summed_straight_from_the_tensor(full_project, published):
    """The stored (image, class) counts of raters.npz against a sum over the raw tensor, for 25 questions."""
    project, _, _ = full_project
    with np.load(published / "real" / "raters.npz", allow_pickle=False) as z:
        tensor, info = z["tensor"], z["info"]
    stored = _rows(project, "real_raters")
    questions = random.Random(3).sample(range(len(info)), 24)
    questions.append(int(np.flatnonzero((info[:, 0] == IMAGE) & (info[:, 1] == "0"))[0]))
    for n in questions:
        name, cls = str(info[n, 0]), int(info[n, 1])
        no, maybe, yes = (int(v) for v in tensor[:, n, :].sum(axis=0))
        answers = {a[0]: a[1:] for a in stored[name]["answers"]}
        assert answers[cls] == [no, maybe, yes], (name, cls)
    assert len(stored) == len(set(info[:, 0].tolist()))
    # The ReaL line carries the crowd's counts of the predicted and the original class.
    n = questions[-1]
    no, maybe, yes = (int(v) for v in tensor[:, n, :].sum(axis=0))
    assert f"tench (raters {yes} yes, {maybe} maybe, {no} no)" in _lines(project, IMAGE, 48, 0)["real_labels"].text


def test_golden_files_are_told_apart_by_content_not_name(tmp_path, published, project):
    """golden.npz and raters_golden.npz share one layout; copied under each other's names they keep their kinds."""
    from reviewer.evidence import read_evidence_files

    swapped = {"raters_golden.npz": published / "real" / "golden.npz",
               "golden.npz": published / "real" / "raters_golden.npz"}
    for name, source in swapped.items():
        (tmp_path / name).write_bytes(source.read_bytes())
    kinds = {s.file_name: s.kind for s in read_evidence_files([tmp_path / n for n in swapped])}
    assert kinds == {"raters_golden.npz": EvidenceKind.REAL_EXPERTS, "golden.npz": EvidenceKind.REAL_RATERS_GOLDEN}


def test_expert_answers_on_a_golden_question(full_project, published):
    project, _, _ = full_project
    with np.load(published / "real" / "golden.npz", allow_pickle=False) as z:
        tensor, info = z["tensor"], z["info"]
    name, cls = str(info[0, 0]), int(info[0, 1])
    no, maybe, yes = (int(v) for v in tensor[:, 0, :].sum(axis=0))
    line = _lines(project, name, cls, None)["real_experts"]
    assert line.text.startswith(f"ReaL experts: {NAMES[cls]} {yes} yes, {maybe} maybe, {no} no")


def test_cleanlab_counts_and_guess_of_image_293(full_project, published):
    project, _, _ = full_project
    raw = {r["id"]: r for r in json.loads((published / "label-errors" / "imagenet_mturk.json").read_text())}
    record = raw[293]
    guessed, m = record["our_guessed_label"], record["mturk"]
    line = _lines(project, IMAGE, guessed, record["given_original_label"])["cleanlab"]
    assert line.text == (f"cleanlab: flagged; MTurk {m['given']} given, {m['guessed']} guessed, {m['both']} both, "
                         f"{m['neither']} neither (guessed = the prediction)")
    assert line.data["row"] == {"given": record["given_original_label"], "guessed": guessed, "mturk": m}
    unflagged = next(f"ILSVRC2012_val_{i:08d}.JPEG" for i in range(1, 50_001) if i not in raw)
    assert _lines(project, unflagged, 1, 0)["cleanlab"].text == "cleanlab: not flagged"
    assert "not covered" in _lines(project, "n01440764_10026.JPEG", 1, 0)["cleanlab"].text


def test_flaws_clean_set_counts_hand_validations(full_project, published):
    project, _, _ = full_project
    with open(published / "flaws-of-imagenet" / "clean_validation.csv") as fh:
        raw = {r["id"]: r for r in csv.DictReader(fh)}
    stored = _rows(project, "flaws_clean")
    for name in random.Random(5).sample(sorted(raw), 200) + [IMAGE]:
        row = raw[name]
        assert stored[name]["validated"] == row["validation"].count("+")
        assert stored[name]["unvalidated"] == row["validation"].count("*")
        assert stored[name]["proposed"] == [int(c) for c in row["proposed_labels"].split(",")]
    plus = raw[IMAGE]["validation"].count("+")
    proposed = int(raw[IMAGE]["proposed_labels"])
    text = _lines(project, IMAGE, proposed, 0)["flaws_clean"].text
    assert text.startswith(f"Flaws of ImageNet: proposed {NAMES[proposed]} (the prediction), "
                           f"validated by {plus} sources")


def test_flaws_label_errors_and_finegrained_rows(full_project, published):
    project, _, _ = full_project
    folder = published / "flaws-of-imagenet"
    for file_name, kind in (("label_errors.csv", "flaws_label_errors"), ("finegrained.csv", "flaws_relabeling")):
        with open(folder / file_name) as fh:
            raw = list(csv.DictReader(fh))
        stored = _rows(project, kind)
        assert len(stored) == len(raw)
        for row in random.Random(11).sample(raw, 100):
            got = stored[row["id"]]
            assert got["category"] == row["category"]
            assert got["proposed"] == [int(c) for c in row["proposed_labels"].split(",") if c.strip()]
            if kind == "flaws_label_errors":
                counts = dict(part.split(": ") for part in row["mturk"].strip("{}").replace("'", "").split(", "))
                assert got["mturk"] == {k: int(v) for k, v in counts.items()}
                assert got["guessed"] == int(row["cl_label"])


def test_weasel_experts_and_class_groups(full_project, published):
    project, _, _ = full_project
    folder = published / "flaws-of-imagenet"
    expert = json.loads((folder / "expert_356_357_358_359.json").read_text())
    name, entry = next((k, v) for k, v in expert.items() if v["label_type"] == "custom")
    line = _lines(project, name, 357, entry["old_label"])["flaws_expert"]
    assert line.text == f"Flaws of ImageNet (weasel experts): no ImageNet class fits ({entry['detailed_labels']})"
    assert line.data["verdict"] == "rejects"
    name, entry = next((k, v) for k, v in expert.items() if v["label_type"] == "basic")
    line = _lines(project, name, entry["new_label"], entry["old_label"])["flaws_expert"]
    assert line.data["verdict"] == "accepts" and NAMES[entry["new_label"]] in line.text

    groups = json.loads((folder / "problem_groups_clusters.json").read_text())
    first, second = (int(c) for c in list(groups[0]["classes"])[:2])
    line = _lines(project, IMAGE, first, second)["class_groups"]
    assert "the prediction and the original label are in one group" in line.text
    assert sorted(line.data["predicted_group"]["classes"]) == sorted(int(c) for c in groups[0]["classes"])
    other = int(list(groups[1]["classes"])[0])
    line = _lines(project, IMAGE, first, other)["class_groups"]
    assert "the prediction's group" in line.text and "the original label's group" in line.text
    assert not line.data["same_group"]


def test_tfds_multilabels_as_evidence(full_project, published):
    project, _, _ = full_project
    with open(published / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv") as fh:
        raw = {r["id"]: r for r in csv.DictReader(fh)}
    row = raw[IMAGE]
    correct = [int(c) for c in row["proposed_labels"].split(",") if c.strip()]
    wrong = [int(c) for c in row["wrong_multi_labels"].split(",") if c.strip()]
    line = _lines(project, IMAGE, wrong[0], int(row["original_label"]))["tfds_multilabel"]
    assert line.data["row"]["correct"] == correct and line.data["row"]["wrong"] == wrong
    assert line.text.startswith("TFDS multi-labels: the prediction is wrong")
    outside = next(f"ILSVRC2012_val_{i:08d}.JPEG" for i in range(1, 50_001)
                   if f"ILSVRC2012_val_{i:08d}.JPEG" not in raw)
    assert _lines(project, outside, 1, 0)["tfds_multilabel"].text == \
        f"TFDS multi-labels: not in the multi-label set ({len(raw):,} images)"


@pytest.mark.parametrize("image", [IMAGE, "ILSVRC2012_val_00030153.JPEG", "not_in_any_source.JPEG"])
def test_one_line_per_source_that_speaks_about_images(full_project, image):
    """Every imported source has its line (the auxiliary files none; the crowd raters' counts are in the ReaL line)."""
    project, results, _ = full_project
    kinds = [line.data["kind"] for line in evidence_for(project, image, 48, 0)]
    expected = {r.kind for r in results} - {"cleanlab_index", "cleanlab_labels", "real_raters"}
    assert sorted(kinds) == sorted(expected)
