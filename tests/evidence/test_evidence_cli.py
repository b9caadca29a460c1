"""`reviewer import-evidence` and `reviewer evidence` as a user runs them."""

from __future__ import annotations

import json
import re

from reviewer.cli import main


def test_import_evidence_then_read_the_lines(published, shared_data, tmp_path, capsys):
    project = str(tmp_path / "p")
    assert main(["init", project, "--labels", str(shared_data / "formats" / "tfds_v3_sample.json")]) == 0
    files = [published / "label-errors" / "imagenet_mturk.json", published / "real" / "golden.npz",
             published / "flaws-of-imagenet" / "problem_groups_clusters.json"]
    capsys.readouterr()
    assert main(["import-evidence", project, *map(str, files)]) == 0
    out = capsys.readouterr().out.splitlines()
    flagged = len(json.loads(files[0].read_text()))  # 5,440 in the whole file; tests/data keeps a part
    assert re.fullmatch(rf"imagenet_mturk\.json: cleanlab \(cleanlab\): {flagged:,} flagged images; "
                        r"read in \d+\.\d\d s, stored in \d+\.\d\d s", out[0]), out[0]
    assert out[1].startswith("golden.npz: ReaL experts (real_experts): 155 images, 1,135 questions, 5 raters")
    assert out[2].startswith("problem_groups_clusters.json: class group (class_groups): 48 groups, 151 classes")
    assert out[3].startswith("3 of 3 files imported in ")

    assert main(["import-evidence", project, str(files[0])]) == 0
    assert "already imported as evidence source 1 (same file); nothing changed" in capsys.readouterr().out

    assert main(["evidence", project, "--image", "ILSVRC2012_val_00000293.JPEG", "--predicted", "Komodo dragon",
                 "--original", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "note: ILSVRC2012_val_00000293.JPEG is not an image of this project; the evidence is shown all " \
                     "the same"
    assert out[2] == "cleanlab: flagged; MTurk 5 given, 0 guessed, 0 both, 0 neither (guessed = the prediction)"

    assert main(["evidence", project, "--image", "ILSVRC2012_val_00030153.JPEG", "--predicted", "n02504013",
                 "--json"]) == 0  # Indian elephant by wnid
    record = json.loads(capsys.readouterr().out)
    assert record["predicted"] == 385
    groups = [e for e in record["evidence"] if e["data"]["kind"] == "class_groups"]
    assert groups[0]["data"]["predicted_group"]["classes"] == [101, 385, 386]

    assert main(["evidence", project]) == 0
    listing = capsys.readouterr().out
    assert "imagenet_mturk.json" in listing and f"{flagged:,} rows" in listing


def test_evidence_errors_exit_2_without_traceback(tmp_path, capsys):
    project = str(tmp_path / "p")
    assert main(["init", project]) == 0
    capsys.readouterr()
    for argv, message in (
            (["--image", "ILSVRC2012_val_00000001.JPEG", "--predicted", "dragon"], "did you mean Komodo dragon (48)"),
            (["--image", "ILSVRC2012_val_00000001.JPEG", "--predicted", "1000"], "a class index is 0..999"),
            (["--image", "x" * 300, "--predicted", "1"], "is not an image file name"),
            (["--image", "ILSVRC2012_val_00000001.JPEG"], "--image needs --predicted"),
            (["--predicted", "1"], "--predicted and --original need --image")):
        assert main(["evidence", project, *argv]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and "Traceback" not in err, err
