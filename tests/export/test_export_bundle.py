"""Exports on real files: the refreshed labels after the panel's decisions, the
versioned folder and its manifest, atomic writes, and the round trip (import an
export into a new project, export again: identical files)."""

from __future__ import annotations

import filecmp
import importlib.util
import json

import pytest
from review_data import add_images, add_run, decide, val_name

from reviewer._files import sha256_file
from reviewer.app import export as export_acts
from reviewer.app import panel as acts
from reviewer.app.imports import import_review, init_project
from reviewer.classes.vocabulary import load_classes
from reviewer.cli import main
from reviewer.export import ExportError
from reviewer.items import Item

WNIDS = load_classes().wnids


def export_project(project, out_dir, **options):
    """What the export act (reviewer.app.export, the window's and the CLI's) wrote."""
    return export_acts.export_project(project, out_dir, **options).value


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def reviewed_project(request, templates, tmp_path, shared_data):
    """The TFDS sample (labels, 10 problematic images with metadata, ImageNet-M) plus
    four images a run got wrong, three of them decided by the panel; on SQLite (made once,
    copied per test) and on a fresh PostgreSQL database."""
    def build(tmp_path, db_url=None):
        project, _ = init_project(tmp_path / "p", labels=[shared_data / "formats" / "tfds_v3_sample.json"],
                                  db_url=db_url)
        ids = add_images(project, [200, 201, 202, 203], start=30001)
        add_run(project, "model-A", dict(zip(ids, [300, 301, 302, 303])))
        decide(project, ids[0], 300, "correct")
        decide(project, ids[1], 301, "wrong", severity="major", category="spurious_correlation")
        decide(project, ids[2], 302, "unclear", problematic=True, reason="two objects, neither dominant",
               chair="ann", method="override")
        return project

    if request.param == "postgresql":
        return build(tmp_path, request.getfixturevalue("migrated_postgres_url"))
    return templates.copy(build, tmp_path)


def test_labels_after_review_in_the_published_layout(reviewed_project, tmp_path, shared_data):
    result = export_project(reviewed_project, tmp_path / "out")
    assert result.path.name == "export-0001"
    data = json.loads((result.path / "multilabel_annotations.json").read_text())
    sample = json.loads((shared_data / "formats" / "tfds_v3_sample.json").read_text())
    annots = data["initial_annots"]
    # The panel's decisions: correct joins correct, wrong joins wrong, unclear joins unclear.
    assert annots[val_name(30001)] == {"correct": sorted([WNIDS[200], WNIDS[300]])}
    assert annots[val_name(30002)] == {"correct": [WNIDS[201]], "wrong": [WNIDS[301]]}
    assert annots[val_name(30003)] == {"correct": [WNIDS[202]], "unclear": [WNIDS[302]]}
    assert annots[val_name(30004)] == {"correct": [WNIDS[203]]}  # undecided: the set's labels as they were
    for name, entry in sample["initial_annots"].items():  # imported labels unchanged (kinds as lists, sorted)
        assert annots[name] == {k: sorted(v) for k, v in entry.items() if v}
    # Imported problematic metadata kept; ours added for the image the panel flagged.
    problematic = data["problematic_images"]
    for name, meta in sample["problematic_images"].items():
        assert problematic[name] == meta
    ours = problematic[val_name(30003)]
    assert ours["reason"] == "two objects, neither dominant" and ours["reviewer"] == "ann"
    assert ours["time_marked"].endswith("+00:00") and ours["time_reviewed"] >= ours["time_marked"]
    assert set(ours) == set(next(iter(sample["problematic_images"].values())))  # the published keys
    assert data["imagenet_m"] == sorted(sample["imagenet_m"])
    # The panel's reviewed mistakes in the imagenet-mistakes format.
    mistakes = json.loads((result.path / "mistakes" / "model-A_mistakes.json").read_text())
    assert mistakes == {val_name(30002): {"top_prediction": 301, "failure category": "Spurious Correlation",
                                          "failure severity": "Major"}}
    # One CSV row per image with its labels and flags.
    csv = (result.path / "labels.csv").read_text().splitlines()
    row = next(line for line in csv if line.startswith(val_name(30003)))
    assert row.split(",")[1:] == [WNIDS[202], load_classes().names[202], WNIDS[202], "", WNIDS[302], "1", "True",
                                  "True", "False"]


def test_manifest_states_inputs_outputs_and_counts(reviewed_project, tmp_path, shared_data):
    first = export_project(reviewed_project, tmp_path / "out")
    second = export_project(reviewed_project, tmp_path / "out")
    assert (first.path.name, second.path.name) == ("export-0001", "export-0002")
    manifest = json.loads((second.path / "manifest.json").read_text())
    assert manifest == second.manifest and manifest["export_version"] == 2
    assert set(manifest["outputs"]) == {p.relative_to(second.path).as_posix() for p in second.data_files()}
    for name, entry in manifest["outputs"].items():
        assert entry["sha256"] == sha256_file(second.path / name)
    sample = shared_data / "formats" / "tfds_v3_sample.json"
    expected_input = {"kind": "tfds_v3", "path": str(sample), "sha256": sha256_file(sample)}
    assert expected_input.items() <= manifest["inputs"][0].items()
    assert manifest["reviews"]["verdicts"] == {"correct": 1, "unclear": 1, "wrong": 1}
    assert manifest["reviews"]["problematic_flags"] == 1
    assert [r["model"] for r in manifest["runs"]] == ["model-A"]
    assert manifest["split"] == {"slice": "imagenet_m", "images": 3, "rule": None}
    # Same labels, same bytes: only the manifest differs between the two exports.
    for path in first.data_files():
        assert filecmp.cmp(path, second.path / path.relative_to(first.path), shallow=False)


def test_round_trip_gives_identical_files(reviewed_project, tmp_path):
    first = export_project(reviewed_project, tmp_path / "a")
    again, _ = init_project(tmp_path / "p2", labels=[first.path / "original_labels.json",
                                                     first.path / "multilabel_annotations.json"])
    for model, info in first.manifest["models"].items():
        import_review(again, first.path / info["file"], model=model)
    second = export_project(again, tmp_path / "b")
    # The run's suggestions need the run, which the files do not carry: the rest comes back byte for byte.
    suggested = [p.relative_to(first.path).as_posix() for p in first.data_files() if p.parent.name == "suggestions"]
    assert suggested == ["suggestions/run-1.json"]
    names = [p.relative_to(first.path) for p in first.data_files() if p.parent.name != "suggestions"]
    assert names == [p.relative_to(second.path) for p in second.data_files()]
    assert len(names) == 4  # labels.csv, mistakes/model-A_mistakes.json, the two JSON label files
    for name in names:
        assert filecmp.cmp(first.path / name, second.path / name, shallow=False), name


def test_a_failed_export_leaves_nothing_behind(reviewed_project, tmp_path, monkeypatch):
    out = tmp_path / "out"
    export_project(reviewed_project, out)

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("reviewer.export.bundle.label_table", crash)
    with pytest.raises(ExportError, match=f"could not write the export into {out}: disk full"):
        export_project(reviewed_project, out)
    assert sorted(p.name for p in out.iterdir()) == ["export-0001"]  # no partial folder, no export-0002


def test_an_unwritable_folder_is_a_clear_error(reviewed_project, tmp_path, capsys):
    """A file where a folder should be fails as a read-only folder does (the tests may
    run as root, for whom permission bits do not stop a write)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert main(["export", str(reviewed_project.root), str(blocker / "exports")]) == 2
    err = capsys.readouterr().err
    assert f"could not write the export into {blocker / 'exports'}" in err and "nothing was exported" in err
    assert blocker.read_text() == "not a folder"
    assert main(["export-reviews", str(reviewed_project.root), str(blocker / "m.json"), "--model", "model-A"]) == 2
    assert f"could not write {blocker / 'm.json'}" in capsys.readouterr().err


def test_a_killed_exports_partial_folder_is_removed_once_stale(reviewed_project, tmp_path):
    import os
    import time

    out = tmp_path / "out"
    (out / ".export-dead.partial").mkdir(parents=True)  # as left by an export killed mid-write
    (out / ".export-dead.partial" / "multilabel_annotations.json").write_text("{")
    (out / ".export-live.partial").mkdir()  # another export writing right now
    old = time.time() - 2 * 3600
    os.utime(out / ".export-dead.partial" / "multilabel_annotations.json", (old, old))
    os.utime(out / ".export-dead.partial", (old, old))
    export_project(reviewed_project, out)
    assert sorted(p.name for p in out.iterdir()) == [".export-live.partial", "export-0001"]


def test_every_split_image_is_in_initial_annots(reviewed_project, tmp_path):
    """TFDS looks each imagenet_m name up in initial_annots: a hand-made slice of
    images without multi-labels still exports readable, with their original label."""
    from reviewer.evaluation.slices import save_slice

    ids = add_images(reviewed_project, [7, 8], start=30101)
    reviewed_project.write(lambda session: save_slice(session=session, name="hand_made", image_ids=ids))
    data = json.loads((export_project(reviewed_project, tmp_path / "o", split="hand_made").path
                       / "multilabel_annotations.json").read_text())
    assert data["imagenet_m"] == [val_name(30101), val_name(30102)]
    assert data["initial_annots"][val_name(30101)] == {"correct": [WNIDS[7]]}
    assert {name: data["initial_annots"][name] for name in data["imagenet_m"]}  # TFDS's lookup, no KeyError


def test_formats_and_the_command(reviewed_project, tmp_path, capsys):
    has_pyarrow = importlib.util.find_spec("pyarrow") is not None
    if not has_pyarrow:
        with pytest.raises(ExportError, match="Parquet needs the pyarrow package"):
            export_project(reviewed_project, tmp_path / "x", formats="csv,parquet")
        assert not (tmp_path / "x").exists() or not any((tmp_path / "x").iterdir())
    result = export_project(reviewed_project, tmp_path / "csv", formats="csv")
    assert [p.name for p in result.data_files()] == ["labels.csv"]
    assert main(["export", str(reviewed_project.root), str(tmp_path / "cli"), "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "export-0001" in out and "1 reviewed mistakes of model-A" in out
    assert "; the major-error split: slice 'imagenet_m', " in out  # not "split of N" without a word of what
    assert main(["export", str(reviewed_project.root), str(tmp_path / "cli"), "--format", "xml"]) == 2
    assert "unknown export format xml" in capsys.readouterr().err
    assert main(["export", str(reviewed_project.root), str(tmp_path / "cli"), "--split", "imagenet_x"]) == 2
    assert "no slice named 'imagenet_x' to export as the split (slices: imagenet_m)" in capsys.readouterr().err


def test_decisions_locked_by_the_panel_are_exported(reviewed_project, tmp_path):
    """Through the panel's own API: the panel votes, the chair locks the majority. The
    project's fourth panelist ("chair", who decided the fixture's items) votes the verdict
    but rates last: until then the lock settles the verdict only, and the export says
    what is settled."""

    project = reviewed_project
    (image_id,) = add_images(project, [400], start=30101)
    add_run(project, "model-B", {image_id: 401})
    chair = acts.add_panelist(project, "ann", chair=True).value.id
    for name, severity in (("ann", "major"), ("bob", "major"), ("cy", "minor")):
        reviewer = acts.add_panelist(project, name).value.id
        acts.vote(project, panelist_id=reviewer, item=Item(image_id, 401), verdict="wrong",
                  severity=severity, category="non_prototypical")
    acts.vote(project, panelist_id=acts.add_panelist(project, "chair").value.id, item=Item(image_id, 401),
              verdict="wrong")
    acts.lock(project, chair_id=chair, item=Item(image_id, 401))
    result = export_project(project, tmp_path / "out")
    data = json.loads((result.path / "multilabel_annotations.json").read_text())
    assert data["initial_annots"][val_name(30101)] == {"correct": [WNIDS[400]], "wrong": [WNIDS[401]]}
    # Wrong, but severity and category not settled yet: left out of the mistakes file, and counted.
    mistakes = json.loads((result.path / "mistakes" / "model-B_mistakes.json").read_text())
    assert mistakes == {} and result.manifest["models"]["model-B"]["left_out_incomplete"] == 1

    acts.vote(project, panelist_id=acts.add_panelist(project, "chair").value.id, item=Item(image_id, 401),
              severity="minor", category="non_prototypical")
    acts.lock(project, chair_id=chair, item=Item(image_id, 401))
    result = export_project(project, tmp_path / "out2")
    data = json.loads((result.path / "multilabel_annotations.json").read_text())
    assert data["initial_annots"][val_name(30101)] == {"correct": [WNIDS[400]], "wrong": [WNIDS[401]]}
    mistakes = json.loads((result.path / "mistakes" / "model-B_mistakes.json").read_text())
    assert mistakes == {val_name(30101): {"top_prediction": 401, "failure category": "Non-prototypical",
                                          "failure severity": "Major"}}  # 2:2, major on a tie
    # Every vote row is kept: three panelists once, "chair" twice (verdict, then the rating).
    assert result.manifest["reviews"]["vote_rows"] == 5 and result.manifest["reviews"]["panelists"] == 4


def test_an_empty_split_says_why_and_what_to_do(tmp_path, shared_data, capsys):
    """Issue 24: "split of 0" said neither that the project has no imagenet_m slice nor how to make one."""
    project = tmp_path / "p"
    assert main(["init", str(project), "--images", str(shared_data / "imagenet-samples")]) == 0
    capsys.readouterr()
    assert main(["export", str(project), str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert ("no major-error split (imagenet_m written empty): the project has no slice named 'imagenet_m'; make one "
            "with 'reviewer split PROJECT --runs RUN RUN RUN --save imagenet_m' (or name another slice with --split)"
            ) in out
