"""A wrong file of each format gives an error naming the file (and the record) and imports nothing;
pickles inside NumPy files are never run."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from evidence_data import table_counts

from reviewer.app.evidence import import_evidence
from reviewer.cli import main
from reviewer.errors import InputError


def _lines(path: Path, count: int) -> str:
    with open(path) as fh:
        return "".join(line for _, line in zip(range(count), fh))


def _csv_rows(path: Path, count: int, edit) -> str:
    with open(path, newline="") as fh:
        rows = [row for _, row in zip(range(count), csv.reader(fh))]
    edit(rows)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _golden(published: Path, **replace) -> dict[str, np.ndarray]:
    with np.load(published / "real" / "golden.npz", allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays.update(replace)
    return arrays


class Unpickled:
    """Unpickling this creates the file it names: the sign that a pickle ran."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def _write(tmp_path: Path, name: str, content) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content)
    else:
        content(path)
    return path


def _mturk(published: Path, edit) -> str:
    data = json.loads((published / "label-errors" / "imagenet_mturk.json").read_text())[:50]
    edit(data)
    return json.dumps(data)


def _png(path: Path) -> None:
    from PIL import Image

    Image.new("RGB", (8, 8), "red").save(path, format="PNG")


def _zip_of_text(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "hello")


WRONG = {
    # name: (file name, content maker(published, tmp_path), what the message says, record)
    "random json": ("data.json", lambda p, t: json.dumps({"hello": [1, 2]}), "unrecognised JSON evidence file", None),
    "png": ("image.png", lambda p, t: _png, "is not a JSON, CSV or NumPy file", None),
    "empty": ("empty.csv", lambda p, t: "", "is empty", None),
    "deep json": ("deep.json", lambda p, t: "[" * 100_000 + "]" * 100_000, "nested too deeply", None),
    "huge number": ("big.json", lambda p, t: "[[" + "9" * 20_000 + "]]", "thousands of digits", None),
    "zip of text": ("data.npz", lambda p, t: _zip_of_text, "a zip archive of", None),
    "truncated clean csv": ("clean.csv", lambda p, t: _lines(p / "flaws-of-imagenet" / "clean_validation.csv", 60)
                            + "ILSVRC2012_val_00001234.JPEG,5", "has 2 fields where the header has 4", "line 61"),
    "clean csv bad marks": ("clean.csv", lambda p, t: _csv_rows(
        p / "flaws-of-imagenet" / "clean_validation.csv", 30, lambda r: r[9].__setitem__(3, "+x")),
        "'validation' must be '+' and '*' marks", "line 10"),
    "real.json cut short": ("real.json", lambda p, t: (p / "real" / "real.json").read_text()[:200_000],
                            "not valid JSON", None),
    "real.json 1000 rows": ("real.json", lambda p, t: json.dumps(json.loads((p / "real" / "real.json")
                                                                           .read_text())[:1000]),
                            "has 1000 rows", None),
    "mturk without both": ("mturk.json", lambda p, t: _mturk(p, lambda d: d[7]["mturk"].pop("both")),
                           "'mturk' must count the answers", "entry 7"),
    "mturk id 0": ("mturk.json", lambda p, t: _mturk(p, lambda d: d[3].__setitem__("id", 0)),
                   "'id' must be a validation image's number", "entry 3"),
    "mturk url of another image": ("mturk.json", lambda p, t: _mturk(p, lambda d: d[2].__setitem__("id", 5)),
                                   "does not end in", "entry 2"),
    "index 49,999": ("index.json", lambda p, t: json.dumps(json.loads(
        (p / "label-errors" / "imagenet_val_set_index_to_filepath.json").read_text())[:-1]), "lists 49,999 images",
        None),
    "index bad path": ("index.json", lambda p, t: json.dumps(
        ["val/n01440764/ILSVRC2012_val_00000293.JPEG", "val/n01440764/../../etc/passwd"]),
        "expected a path 'val/<wnid>/ILSVRC2012_val_XXXXXXXX.JPEG'", "index 1"),
    "labels npy short": ("labels.npy", lambda p, t: lambda path: np.save(path, np.arange(10)),
                         "expected the 50,000 original labels", None),
    "npz value 2": ("golden.npz", lambda p, t: lambda path: np.savez(
        path, **_golden(p, tensor=np.where(np.arange(5 * 1135 * 3).reshape(5, 1135, 3) == 3 * 40, 2.0,
                                           _golden(p)["tensor"]))), "an answer is a 1 under no, maybe or yes",
                    "question 40"),
    "npz two answers": ("golden.npz", lambda p, t: lambda path: np.savez(
        path, **_golden(p, tensor=np.ones((5, 1135, 3)))), "gave several answers", "question 0"),
    "npz shape": ("golden.npz", lambda p, t: lambda path: np.savez(
        path, **_golden(p, ids=np.arange(4))), "expected 4 x 1135 x 3", None),
    "npz member missing": ("golden.npz", lambda p, t: lambda path: np.savez(
        path, tensor=_golden(p)["tensor"], ids=_golden(p)["ids"]), "ReaL's rater answers hold tensor, info, ids",
                           None),
    "npz bad class": ("golden.npz", lambda p, t: lambda path: np.savez(
        path, **_golden(p, info=np.where(np.arange(1135 * 2).reshape(1135, 2) == 2 * 7 + 1, "1000",
                                         _golden(p)["info"]))), "class index must be an integer 0-999",
                      "question 7"),
    "expert label type": ("expert.json", lambda p, t: json.dumps({"ILSVRC2012_val_00000723.JPEG": {
        "old_label": 356, "new_label": 357, "detailed_labels": "", "label_type": "weird"}}),
        "'label_type' must be one of", "ILSVRC2012_val_00000723.JPEG"),
    "groups class 1000": ("groups.json", lambda p, t: json.dumps([
        {"category": [2], "classes": {"31": "tree frog", "32": "tailed frog"}},
        {"category": [2], "classes": {"1000": "nothing", "32": "tailed frog"}}]), "0-999", "group 1"),
    "label errors mturk text": ("errors.csv", lambda p, t: _csv_rows(
        p / "flaws-of-imagenet" / "label_errors.csv", 20, lambda r: r[5].__setitem__(6, "{'given': 'five'}")),
        "'mturk' must count the answers", "line 6"),
    "finegrained category": ("fine.csv", lambda p, t: _csv_rows(
        p / "flaws-of-imagenet" / "finegrained.csv", 20, lambda r: r[4].__setitem__(1, "Q")),
        "'category' must be one of A, B, M, X, Z", "line 5"),
    "tfds csv bad class": ("multi.csv", lambda p, t: _csv_rows(
        p / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv", 20,
        lambda r: r[3].__setitem__(3, "12a")), "'proposed_labels' must list class indices", "line 4"),
    "a review file": ("review.json", lambda p, t: json.dumps({"ILSVRC2012_val_00001529.JPEG": {
        "top_prediction": 304, "failure category": "Fine-grained error", "failure severity": "Minor"}}),
        "import-review", None),
}


@pytest.mark.parametrize("case", list(WRONG))
def test_wrong_file_is_refused_naming_it_and_nothing_is_imported(case, published, project, tmp_path):
    name, make, message, record = WRONG[case]
    path = _write(tmp_path, name, make(published, tmp_path))
    good = published / "flaws-of-imagenet" / "problem_groups_clusters.json"  # given first: must not be stored
    with pytest.raises(InputError) as caught:
        import_evidence(project, [good, path])
    text = str(caught.value)
    assert text.startswith(str(path)) and message in text, text
    if record:
        assert caught.value.record is not None and record in caught.value.record, text
    assert table_counts(project) == {"evidence_source": 0, "evidence_item": 0, "evidence_class": 0}


def test_cleanlab_auxiliary_files_must_agree_with_each_other(published, project, tmp_path):
    folder = published / "label-errors"
    labels = np.load(folder / "imagenet_val_set_original_labels.npy", allow_pickle=False).copy()
    labels[123] = (labels[123] + 1) % 1000
    np.save(tmp_path / "labels.npy", labels)
    with pytest.raises(InputError, match="at index 123 differs from the class folder"):
        import_evidence(project, [folder / "imagenet_val_set_index_to_filepath.json", tmp_path / "labels.npy"])
    assert table_counts(project)["evidence_source"] == 0
    # Each alone is accepted (checked and recorded; nothing per image).
    results = import_evidence(project, [folder / "imagenet_val_set_index_to_filepath.json",
                                        folder / "imagenet_val_set_original_labels.npy"]).value
    assert [r.n_items for r in results] == [0, 0]


def test_pickles_in_numpy_files_never_run(published, project, tmp_path):
    marker = tmp_path / "pickle_ran"
    evil = np.empty(1, dtype=object)
    evil[0] = Unpickled(marker)
    np.save(tmp_path / "labels.npy", evil, allow_pickle=True)
    info = np.empty((1135, 2), dtype=object)
    info[:] = Unpickled(marker)
    np.savez(tmp_path / "golden.npz", **_golden(published, info=info))
    np.savez(tmp_path / "tensor.npz", **_golden(published, tensor=np.full((5, 1135, 3), Unpickled(marker))))
    for name in ("labels.npy", "golden.npz", "tensor.npz"):
        with pytest.raises(InputError, match="holds Python objects .a pickle.; such arrays are never loaded"):
            import_evidence(project, [tmp_path / name])
    assert not marker.exists()
    np.load(tmp_path / "labels.npy", allow_pickle=True)  # the test's own check: the pickle does run when allowed
    assert marker.exists()


def test_import_evidence_cli_error_exits_2_without_traceback(published, tmp_path, capsys):
    assert main(["init", str(tmp_path / "p")]) == 0
    bad = _write(tmp_path, "data.json", json.dumps({"hello": 1}))
    capsys.readouterr()
    assert main(["import-evidence", str(tmp_path / "p"), str(published / "real" / "golden.npz"), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: unrecognised JSON evidence file") and "Traceback" not in err
    assert "Nothing was imported" in err
    assert main(["evidence", str(tmp_path / "p")]) == 0
    assert "no evidence imported" in capsys.readouterr().out
