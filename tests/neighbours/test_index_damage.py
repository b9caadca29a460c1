"""A damaged index file is named, never read as sound, and repaired by a rebuild (issue 36).

One index is built (the planted case, the tiny model, with the approximate index so its
files exist too) and copied back before each case. Each case damages one file as a disk,
a copy or a hand can: cut short, emptied, deleted, a byte changed (the file still parses:
JSON still JSON, a similarity or a label changed), filled with other bytes, or replaced by
a file of another shape or type. Then:

- `reviewer show`, the report and the window's reader (the facts of a mistake) each give
  one clear error naming the file and the `reviewer index` command that rebuilds it, never
  a traceback and never neighbours;
- a rebuild names the file, computes it again (never from the damaged file), and leaves
  the index as it was built: the same embeddings, neighbours and duplicates, read again.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from neighbours_data import build_planted

from reviewer.cli import main
from reviewer.neighbours.approximate import ApproximateSettings
from reviewer.neighbours.build import build_index
from reviewer.neighbours.integrity import IndexDamaged
from reviewer.neighbours.lookup import DamagedIndex, NeighbourIndex, read_neighbour_evidence
from reviewer.neighbours.store import IndexFiles
from reviewer.project import Project

pytestmark = pytest.mark.slow


# -- damages ------------------------------------------------------------------------------------------
def cut_short(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def emptied(path: Path) -> None:
    path.write_bytes(b"")


def deleted(path: Path) -> None:
    path.unlink()


def other_bytes(path: Path) -> None:
    """Bytes of no format, as many as there were."""
    size = path.stat().st_size
    path.write_bytes((b"\x00\xff garbage \x13\x37" * (size // 16 + 1))[:size])


def byte_changed(path: Path) -> None:
    """One bit of a byte in the middle of a binary file's data (its size and header unchanged)."""
    data = bytearray(path.read_bytes())
    data[len(data) * 3 // 4] ^= 0x10
    path.write_bytes(bytes(data))


def text_changed(pattern: str, replace) -> callable:
    """The first match of `pattern` changed, the file as long as it was and still parsing."""
    def damage(path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        match = re.search(pattern, text)
        assert match, (pattern, path)
        new = replace(match.group(0))
        assert len(new) == len(match.group(0)) and new != match.group(0)
        path.write_text(text[:match.start()] + new + text[match.end():], encoding="utf-8")
    damage.__name__ = "text_changed"
    return damage


def json_of_another_type(value) -> callable:
    def damage(path: Path) -> None:
        path.write_text(json.dumps(value), encoding="utf-8")
    return damage


def other_shape(path: Path) -> None:
    """A sound NumPy file of another shape: five rows."""
    rows = np.load(path, mmap_mode="r")
    np.save(path, np.array(rows[:5], dtype=np.float16))


def next_digit(text: str) -> str:
    return text[:-1] + str((int(text[-1]) + 1) % 10)


CASES = [
    ("manifest.json", cut_short), ("manifest.json", emptied), ("manifest.json", deleted),
    ("manifest.json", text_changed(r'"project": \d', next_digit)),  # its count of the project's images
    ("manifest.json", json_of_another_type([])),
    ("neighbours.json", cut_short), ("neighbours.json", emptied), ("neighbours.json", deleted),
    ("neighbours.json", text_changed(r"0\.\d\d", next_digit)),  # a similarity
    ("neighbours.json", json_of_another_type({"k": 10, "images": []})),
    ("duplicates.json", cut_short), ("duplicates.json", deleted),
    ("duplicates.json", text_changed(r'"wnid": "n\d', next_digit)),  # a copy's label in training
    ("duplicates.json", json_of_another_type({})),
    ("train_files.csv", cut_short), ("train_files.csv", deleted), ("train_files.csv", other_bytes),
    ("train_files.csv", text_changed(r",n\d{8}\r?\n", lambda m: m[:2] + next_digit(m[2:9]) + m[9:])),  # a label
    ("project_files.csv", deleted), ("project_files.csv", text_changed(r"n\d{8}", next_digit)),
    ("train.npy", cut_short), ("train.npy", emptied), ("train.npy", deleted), ("train.npy", other_bytes),
    ("train.npy", byte_changed), ("train.npy", other_shape),
    ("project.npy", cut_short), ("project.npy", byte_changed), ("project.npy", other_shape),
    ("train_rows.jsonl", cut_short), ("train_rows.jsonl", deleted),
    ("train_rows.jsonl", text_changed(r'"sha":"[0-9a-f]', lambda m: m[:-1] + ("0" if m[-1] != "0" else "1"))),
    ("project_rows.jsonl", emptied), ("project_rows.jsonl", text_changed(r'"dhash":\d', next_digit)),
    ("train.ivfpq.faiss", cut_short), ("train.ivfpq.faiss", deleted), ("train.ivfpq.faiss", other_bytes),
    ("train.ivfpq.faiss", byte_changed),
    ("train.ivfpq.json", deleted), ("train.ivfpq.json", text_changed(r'"nprobe": \d', next_digit)),
    ("train.ivfpq.json", json_of_another_type("exact")),
]
IDS = [f"{name}-{damage.__name__}" for name, damage in CASES]


@pytest.fixture(scope="module")
def built(tmp_path_factory, tiny_checkpoint):
    """The planted case indexed once; the index's files as built, kept aside; what the readers said."""
    from run_data import TINY_MODEL

    case = build_planted(tmp_path_factory.mktemp("damage"))
    project = Project.open(case.project_root)
    options = dict(images=case.train, model=TINY_MODEL, checkpoint=tiny_checkpoint, approximate=ApproximateSettings())
    summary = build_index(project, **options)
    kept = case.project_root.parent / "index_as_built"
    shutil.copytree(summary.folder, kept)  # copy2: the times the manifest recorded kept too
    names = [v.name for v in case.val]
    facts = {name: read_neighbour_evidence(case.project_root, name) for name in names}
    return case, project, options, IndexFiles(summary.folder), kept, facts


@pytest.fixture
def fresh(built):
    case, project, options, files, kept, facts = built
    shutil.rmtree(files.folder)
    shutil.copytree(kept, files.folder)
    return built


def _same_as_built(files: IndexFiles, kept: Path) -> None:
    for name in ("train.npy", "project.npy"):
        assert np.array_equal(np.load(files.folder / name), np.load(kept / name)), name
    for name in ("train_rows.jsonl", "project_rows.jsonl", "train_files.csv", "project_files.csv", "duplicates.json",
                 "train.ivfpq.json"):
        assert (files.folder / name).read_bytes() == (kept / name).read_bytes(), name
    assert json.loads(files.neighbours_path.read_text()) == json.loads((kept / "neighbours.json").read_text())


@pytest.mark.parametrize(("name", "damage"), CASES, ids=IDS)
def test_a_damaged_file_is_named_by_every_reader_and_repaired_by_a_rebuild(fresh, name, damage, capsys):
    from reviewer.app.mistake_detail import DetailSource
    from reviewer.app.report import build_report

    case, project, options, files, kept, facts = fresh
    root, image = case.project_root, case.val[0].name
    damage(files.folder / name)
    path = str(files.folder / name)
    command = f"reviewer index {root} --images "

    # The window's reader: the mistake's facts carry the error in place of neighbours, and it goes on.
    index = NeighbourIndex.open(root)
    assert isinstance(index, DamagedIndex) and index.error.name == name, getattr(index, "error", index)
    shown = DetailSource(project).neighbour_facts(image, 0)
    assert shown.neighbours == () and shown.duplicates == ()
    assert path in shown.problem and command in shown.problem and shown.lines == (shown.problem,)
    # show: one clear error, no traceback, exit 2.
    capsys.readouterr()
    assert main(["show", str(root), "--image", image, "--predicted", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: the index file {path} ") and command in err and "Traceback" not in err
    assert err.count("\n") == 1
    with pytest.raises(IndexDamaged, match=re.escape(path)):
        read_neighbour_evidence(root, image)
    # The report (and the Analysis window, which builds the same): the same error.
    with pytest.raises(IndexDamaged, match=re.escape(path)):
        build_report(project, keep=False)

    # A rebuild names the file, computes it again, and the index is as it was built.
    lines: list[str] = []
    summary = build_index(project, progress=lines.append, **options)
    assert name in [n for n, _ in summary.repaired], (summary.repaired, lines)
    if name == "manifest.json" or name.startswith("train.npy") or name.startswith("train_rows"):
        assert "train: 31/31 images (" in " ".join(lines)  # embedded again, not read from what was damaged
    if name.startswith("project.npy") or name.startswith("project_rows"):
        assert "project: 7/7 images (" in " ".join(lines)
    _same_as_built(files, kept)
    again = NeighbourIndex.open(root)
    assert isinstance(again, NeighbourIndex)
    assert {n: read_neighbour_evidence(root, n) for n in facts} == facts
    assert DetailSource(project).neighbour_facts(image, 0).problem is None


def test_the_cases_cover_every_file_of_the_index(built):
    _, _, _, files, kept, _ = built
    assert {name for name, _ in CASES} == set(files.data_names()) | {"manifest.json"}
    assert len(CASES) >= 22


def test_a_stopped_build_with_a_cut_embeddings_file_embeds_it_again(tmp_path, tiny_checkpoint):
    """No complete build recorded the files yet: their structure is checked, and a file cut
    short is not extended with zeros (the issue's 31 of 51 training rows of zeros)."""
    from run_data import TINY_MODEL

    case = build_planted(tmp_path)
    project = Project.open(case.project_root)
    run = dict(images=case.train, model=TINY_MODEL, checkpoint=tiny_checkpoint, chunk=8)
    stopped = build_index(project, stop_after_chunks=3, **run)
    files = IndexFiles(stopped.folder)
    assert len(files.read_rows("train")) == 24 and not files.read_manifest()["complete"]
    cut_short(files.embeddings_path("train"))
    lines: list[str] = []
    summary = build_index(project, progress=lines.append, **run)
    assert summary.repaired and summary.repaired[0][0] == "train.npy" and "truncated" in summary.repaired[0][1]
    assert "train: 8/31 images (8.0 images/s)" not in lines and any(line.startswith("train: 31/31") for line in lines)
    train = np.load(files.embeddings_path("train"))
    valid = [not r.get("error") for r in files.read_rows("train")]
    norms = np.linalg.norm(train.astype(np.float32), axis=1)
    assert np.allclose(norms[valid], 1, atol=1e-2)  # every usable row a unit vector: none left as zeros


def test_an_index_built_before_the_checks_is_asked_to_be_rebuilt_and_its_embeddings_kept(fresh):
    case, project, options, files, kept, facts = fresh
    manifest = json.loads(files.manifest_path.read_text())
    for key in ("files", "checksum"):
        manifest.pop(key)
    files.manifest_path.write_text(json.dumps(manifest))
    index = NeighbourIndex.open(case.project_root)
    assert isinstance(index, DamagedIndex) and "built before they were checked" in str(index.error)
    lines: list[str] = []
    summary = build_index(project, progress=lines.append, **options)
    assert summary.repaired == [] and summary.neighbours_computed == 0
    assert "train: 31 images embedded already" in lines and "project: 7 images embedded already" in lines
    assert {n: read_neighbour_evidence(case.project_root, n) for n in facts} == facts


def test_new_training_files_renumber_the_rows_so_every_neighbour_is_found_again(fresh):
    """Rows are positions in the sorted listing: a file added before others moves them, and a
    neighbour kept by its old row would name another image."""
    case, project, options, files, kept, facts = fresh
    first = sorted(p for p in case.train.rglob("*") if p.is_file())[0]
    added = first.parent / ("0_" + first.name)  # sorts first in its folder
    shutil.copy(case.val[2], added)
    try:
        summary = build_index(project, **options)
    finally:
        added.unlink()  # the training folder is the module's
    assert summary.neighbours_computed == 7 and summary.repaired == []
    train = files.read_files("train")
    for name in (case.val[0].name, case.val[1].name):  # their exact copies are still their nearest
        nearest = read_neighbour_evidence(case.project_root, name)["neighbours"][0]
        assert nearest["path"].endswith(case.exact[name]) and any(p == case.exact[name] for p, _ in train)


def test_the_window_reads_the_repaired_index_once_it_is_rebuilt(fresh):
    """The window's source holds the index it read: damaged, its facts say so until a rebuild,
    which it then reads without being reopened."""
    from reviewer.app.mistake_detail import DetailSource

    case, project, options, files, kept, facts = fresh
    image = case.val[0].name
    cut_short(files.neighbours_path)
    source = DetailSource(project)
    assert str(files.neighbours_path) in source.neighbour_facts(image, 0).problem
    build_index(project, **options)
    repaired = source.neighbour_facts(image, 0)
    assert repaired.problem is None
    assert [n.file_name for n in repaired.neighbours] == [n["file_name"] for n in facts[image]["neighbours"]]
