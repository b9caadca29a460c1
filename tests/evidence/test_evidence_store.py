"""Storing evidence: the same file again changes nothing, a newer file of a kind replaces the
older, the relabeling layout keeps one source per file name; migration 0007 up and down."""

from __future__ import annotations

import json

import pytest
from evidence_data import table_counts
from sqlalchemy import inspect

from db import migrate
from reviewer.app.evidence import import_evidence
from reviewer.errors import InputError
from reviewer.evidence import evidence_for, list_sources

IMAGE = "ILSVRC2012_val_00000293.JPEG"


def test_same_file_again_changes_nothing_and_says_so(published, project, tmp_path):
    files = [published / "flaws-of-imagenet" / "finegrained.csv", published / "label-errors" / "imagenet_mturk.json"]
    first = import_evidence(project, files).value
    counts = table_counts(project)
    with project.read() as session:
        before = list_sources(session=session)
    copy = tmp_path / "renamed.json"  # the same bytes under another name: the same file
    copy.write_bytes(files[1].read_bytes())
    again = import_evidence(project, [files[0], copy]).value
    assert [r.status for r in again] == ["unchanged", "unchanged"]
    assert [r.source_id for r in again] == [r.source_id for r in first]
    assert "already imported as evidence source" in again[0].describe() and "nothing changed" in again[0].describe()
    assert table_counts(project) == counts
    with project.read() as session:
        assert list_sources(session=session) == before  # not even the import time changed


def test_a_newer_file_of_a_kind_replaces_the_older(published, project, tmp_path):
    import_evidence(project, [published / "label-errors" / "imagenet_mturk.json"])
    records = json.loads((published / "label-errors" / "imagenet_mturk.json").read_text())
    newer = [r for r in records if r["id"] != 293][:40]
    newer[0] = {**newer[0], "mturk": {"given": 1, "guessed": 4, "neither": 0, "both": 0}}
    (tmp_path / "imagenet_mturk_v2.json").write_text(json.dumps(newer))
    [result] = import_evidence(project, [tmp_path / "imagenet_mturk_v2.json"]).value
    assert result.status == "replaced" and result.replaced == ("imagenet_mturk.json",)
    assert table_counts(project)["evidence_item"] == 40
    with project.read() as session:
        assert [s.file_name for s in list_sources(session=session)] == ["imagenet_mturk_v2.json"]
    line = next(line for line in evidence_for(project, IMAGE, 48, 0) if line.source == "cleanlab")
    assert line.text == "cleanlab: not flagged"  # 293 is not in the newer file
    name = f"ILSVRC2012_val_{newer[0]['id']:08d}.JPEG"
    line = next(line for line in evidence_for(project, name, newer[0]["our_guessed_label"], 0)
                if line.source == "cleanlab")
    assert line.data["row"]["mturk"] == {"given": 1, "guessed": 4, "neither": 0, "both": 0}


def test_relabelings_of_one_layout_are_one_source_per_file_name(published, project, tmp_path):
    finegrained = published / "flaws-of-imagenet" / "finegrained.csv"
    lines = finegrained.read_text().splitlines(keepends=True)
    (tmp_path / "my_relabeling.csv").write_text("".join(lines[:101]))
    results = import_evidence(project, [finegrained, tmp_path / "my_relabeling.csv"]).value
    assert [r.status for r in results] == ["imported", "imported"]
    image = lines[1].split(",")[0]
    sources = [line.source for line in evidence_for(project, image, 1, 0)]
    assert sources == ["Flaws of ImageNet (finegrained)", "Flaws of ImageNet (my_relabeling)"]
    # A newer finegrained.csv (another folder) replaces only the file of its name.
    (tmp_path / "v2").mkdir()
    (tmp_path / "v2" / "finegrained.csv").write_text("".join(lines[:11]))
    [result] = import_evidence(project, [tmp_path / "v2" / "finegrained.csv"]).value
    assert result.status == "replaced" and result.replaced == ("finegrained.csv",)
    with project.read() as session:
        assert sorted((s.file_name, s.n_items) for s in list_sources(session=session)) == [
            ("finegrained.csv", 10), ("my_relabeling.csv", 100)]


def test_two_files_of_one_kind_in_one_command_are_refused(published, project, tmp_path):
    real = published / "real" / "real.json"
    data = json.loads(real.read_text())
    data[0] = [1]
    (tmp_path / "real_v2.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match="is a second ReaL file beside"):
        import_evidence(project, [real, tmp_path / "real_v2.json"])
    with pytest.raises(InputError, match="is the same file as"):
        import_evidence(project, [real, real])
    assert table_counts(project)["evidence_source"] == 0


def test_migration_0007_down_refuses_while_evidence_is_stored(published, project):
    import_evidence(project, [published / "flaws-of-imagenet" / "problem_groups_clusters.json"])
    counts = table_counts(project)
    with pytest.raises(RuntimeError, match="refusing to downgrade below revision 0007: 1 imported evidence sources"):
        migrate.downgrade(project.engine, "0006")
    assert migrate.current_revision(project.engine) == migrate.head_revision()
    assert table_counts(project) == counts


def test_migration_0007_up_and_down_on_an_empty_project(project):
    tables = {"evidence_source", "evidence_item", "evidence_class"}
    assert tables <= set(inspect(project.engine).get_table_names())
    migrate.downgrade(project.engine, "0006")
    assert migrate.current_revision(project.engine) == "0006"
    assert not tables & set(inspect(project.engine).get_table_names())
    migrate.upgrade(project.engine)
    assert tables <= set(inspect(project.engine).get_table_names())
    indexes = {i["name"] for i in inspect(project.engine).get_indexes("evidence_item")}
    assert "ix_evidence_item_image_name" in indexes
