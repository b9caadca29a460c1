"""ImageNet-X (Idrissi et al. 2023; annotations CC BY-NC 4.0) as an evidence source: its two
validation files import as they are (tests/data/imagenet-x: the real files trimmed to images
1-2,000), what is stored matches the raw lines read here with json, the line says the factors,
the main one first, the annotator's words and the license, and the label questions of the
queue ignore it. Without the imagenet-x package, --imagenet-x says how to install it."""

from __future__ import annotations

import json
from importlib import metadata

import pytest
from evidence_data import table_counts
from project_data import new_project

from reviewer.app.evidence import import_evidence
from reviewer.cli import main
from reviewer.errors import InputError, UserError
from reviewer.evidence import evidence_by_pair, evidence_for, uncovered_images
from reviewer.evidence import imagenet_x as inx
from reviewer.project import Project

MULTI = "imagenet_x_val_multi_factor.jsonl"
TOP = "imagenet_x_val_top_factor.jsonl"
FACTOR_KEYS = ("multiple_objects", "background", "color", "brighter", "darker", "style", "larger", "smaller",
               "object_blocking", "person_blocking", "partial_view", "pattern", "pose", "shape", "subcategory",
               "texture")


@pytest.fixture(scope="module")
def folder(shared_data):
    return shared_data / "imagenet-x"


def raw(path) -> dict[str, dict]:
    with open(path) as fh:
        return {r["file_name"]: r for r in map(json.loads, fh)}


@pytest.fixture(scope="module")
def imported(tmp_path_factory, folder):
    project = Project.create(tmp_path_factory.mktemp("inx") / "p")
    results = import_evidence(project, [folder / MULTI, folder / TOP]).value
    yield project, results
    project.close()


def test_both_files_import_each_as_its_kind_with_every_row(imported, folder):
    _, results = imported
    by_file = {r.file_name: r for r in results}
    assert by_file[MULTI].kind == "imagenet_x" and by_file[TOP].kind == "imagenet_x_top"
    multi, top = raw(folder / MULTI), raw(folder / TOP)
    assert by_file[MULTI].n_items == len(multi) and by_file[TOP].n_items == len(top)
    assert by_file[MULTI].figures["factors marked"] == sum(r[k] for r in multi.values() for k in FACTOR_KEYS)
    assert by_file[MULTI].figures["license"] == "CC BY-NC 4.0"


def test_stored_rows_match_the_raw_lines(imagenet_x_rows, folder):
    multi, top = raw(folder / MULTI), raw(folder / TOP)
    stored_multi, stored_top = imagenet_x_rows
    assert stored_multi.keys() == multi.keys()
    for name, record in multi.items():
        assert set(stored_multi[name]["factors"]) == {k for k in FACTOR_KEYS if record[k] == 1}, name
        assert stored_multi[name]["class"] == record["class"]
    for name, record in top.items():
        marked = [k for k in FACTOR_KEYS if record[k] == 1]
        assert stored_top[name]["top"] == (marked[0] if marked else None), name


@pytest.fixture(scope="module")
def imagenet_x_rows(imported):
    from sqlalchemy import select

    from db.tables import EvidenceItem, EvidenceSource

    project, _ = imported
    out = {}
    with project.read() as session:
        for kind in ("imagenet_x", "imagenet_x_top"):
            rows = session.execute(select(EvidenceItem.image_name, EvidenceItem.payload).join(
                EvidenceSource, EvidenceSource.id == EvidenceItem.source_id).where(EvidenceSource.kind == kind))
            out[kind] = {name: json.loads(payload) for name, payload in rows}
    return out["imagenet_x"], out["imagenet_x_top"]


def test_the_line_names_the_factors_main_first_the_annotator_and_the_license(imported, folder):
    project, _ = imported
    multi, top = raw(folder / MULTI), raw(folder / TOP)
    # An image with several factors whose main one is not the first in the file's order.
    name = next(n for n, r in sorted(multi.items()) if sum(r[k] for k in FACTOR_KEYS) >= 2
                and r["justification"] and [k for k in FACTOR_KEYS if top[n][k]][0] != next(
                    k for k in FACTOR_KEYS if r[k]))
    record, main = multi[name], next(k for k in FACTOR_KEYS if top[name][k])
    lines = [line for line in evidence_for(project, name, predicted=(record["class"] + 1) % 1000,
                                           original=record["class"]) if line.source.startswith("ImageNet-X")]
    assert len(lines) == 1  # the main factor is folded into the one line
    line = lines[0]
    words = inx.FACTORS
    assert line.text.startswith("ImageNet-X: differs from typical ")
    assert f"in {words[main]} (the main factor)" in line.text
    for factor in (k for k in FACTOR_KEYS if record[k] and k != main):
        assert words[factor] in line.text
    assert record["justification"].strip() in line.text
    assert line.text.endswith("(annotations CC BY-NC 4.0)")
    assert line.data["verdict"] is None and line.data["top_factor"] == main
    assert set(line.data["factors"]) == {k for k in FACTOR_KEYS if record[k]}


def test_images_it_does_not_annotate_say_so(imported, folder):
    project, _ = imported
    annotated = raw(folder / MULTI)
    missing = next(f"ILSVRC2012_val_{i:08d}.JPEG" for i in range(1, 2001)
                   if f"ILSVRC2012_val_{i:08d}.JPEG" not in annotated)
    line = next(x for x in evidence_for(project, missing, predicted=1) if x.source == "ImageNet-X")
    assert line.text == f"ImageNet-X: not among its {len(annotated):,} annotated images"
    line = next(x for x in evidence_for(project, "n01440764_tench.JPEG", predicted=1) if x.source == "ImageNet-X")
    assert line.text == "ImageNet-X: not covered (not an ImageNet validation image)"


def test_a_label_other_than_the_projects_is_named(imported, folder):
    project, _ = imported
    name, record = sorted(raw(folder / MULTI).items())[0]
    other = (record["class"] + 7) % 1000
    line = next(x for x in evidence_for(project, name, predicted=3, original=other) if x.source == "ImageNet-X")
    assert "not this project's original label" in line.text


def test_the_queue_label_questions_ignore_it(imported, folder):
    """ImageNet-X describes the image, not its labels: an image only it covers is still 'uncovered'
    for the queue's evidence filter, and it is never among the sources covering a prediction."""
    project, _ = imported
    name = sorted(raw(folder / MULTI))[0]
    assert uncovered_images(project, [name]) == {name}
    assert evidence_by_pair(project, [(name, 5)])[(name, 5)].covered_by == ()


def test_only_the_main_factor_file_gives_a_line_of_its_own(tmp_path, folder):
    project = new_project(tmp_path / "p")
    import_evidence(project, [folder / TOP])
    name, record = sorted(raw(folder / TOP).items())[0]
    main = next(k for k in FACTOR_KEYS if record[k])
    line = next(x for x in evidence_for(project, name, predicted=3) if x.source.startswith("ImageNet-X"))
    assert line.source == "ImageNet-X (main factor)"
    assert f"in {inx.FACTORS[main]} (the main factor)" in line.text
    project.close()


@pytest.mark.parametrize("edit, problem", [
    (lambda r: r.update(pose=2), "factor pose is 2, not 0 or 1"),
    (lambda r: r.pop("texture"), "lacks texture"),
    (lambda r: r.update(file_name="photo.jpg"), "is not an ImageNet validation image"),
    (lambda r: r.update({"class": 1000}), "is not a class index 0-999"),
])
def test_a_wrong_record_names_the_file_and_line_and_nothing_is_stored(tmp_path, folder, edit, problem):
    records = [json.loads(line) for _, line in zip(range(5), open(folder / MULTI))]
    edit(records[3])
    path = tmp_path / MULTI
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    project = new_project(tmp_path / "p")
    before = table_counts(project)
    with pytest.raises(InputError) as caught:
        import_evidence(project, [folder / TOP, path])
    assert str(path) in str(caught.value) and "line 4" in str(caught.value) and problem in str(caught.value)
    assert table_counts(project) == before
    project.close()


def test_without_the_package_the_command_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(inx.metadata, "distribution", missing)
    with pytest.raises(UserError, match=r"pip install 'imagenet-mistake-reviewer\[imagenetx\]'"):
        inx.package_files()
    new_project(tmp_path / "p").close()
    assert main(["import-evidence", str(tmp_path / "p"), "--imagenet-x"]) != 0
    assert "ImageNet-X is not installed" in capsys.readouterr().err


def test_the_installed_package_carries_both_files():
    try:
        metadata.distribution("imagenet-x")
    except metadata.PackageNotFoundError:
        pytest.skip("the [imagenetx] extra (the imagenet-x package) is not installed")
    multi, top = inx.package_files()
    assert (multi.name, top.name) == (MULTI, TOP)
    with open(multi) as fh:
        assert inx.looks_like(fh.readline().encode())
