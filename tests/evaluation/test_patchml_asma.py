"""Variable top-k and ASMA on PatchML (Anzaku et al., "The Impact of the Single-Label
Assumption in Image Recognition Benchmarking", §3.2-3.3, §4.2.3).

First a hand-built case, every figure worked out by hand from the sets. Then a PatchML set
made from hand-drawn boxes on the real sample images and a run imported from logits whose
ranking of each image is chosen here: `reviewer report --json` and the report's PatchML
section against the paper's definition computed in plain Python from the manifest."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from patchml_data import BOXES, SAMPLES

from reviewer.evaluation.patchml import PatchMLSet, patchml_variable_topk
from reviewer.labels.labelset import LabelSet


def labelset(patchml: list[set[int]]) -> LabelSet:
    n = len(patchml)
    rows = [i for i, y in enumerate(patchml) for _ in y]
    classes = [c for y in patchml for c in sorted(y)]
    empty32, empty16 = np.zeros(0, np.int32), np.zeros(0, np.int16)
    return LabelSet(image_ids=np.arange(1, n + 1, dtype=np.int64), original=np.full(n, -1, np.int16),
                    problematic=np.zeros(n, bool), rows=empty32, classes=empty16, kinds=np.zeros(0, np.int8),
                    real_rows=empty32, real_classes=empty16, multilabel=np.zeros(n, bool),
                    validation=np.zeros(n, bool), original_only=True,
                    patchml_rows=np.array(rows, np.int32), patchml_classes=np.array(classes, np.int16))


# Image: its PatchML labels Y, its ranking (best first); Ŷ = the first k = |Y| classes.
CASE = [
    ({1, 2}, [1, 5, 2, 6, 7, 8, 9, 40, 41, 42]),                       # k=2, Ŷ {1, 5}: m=1
    ({3, 4}, [4, 3, 5, 6, 7, 8, 9, 40, 41, 42]),                       # k=2, Ŷ {4, 3}: m=2
    ({10, 11, 12}, [10, 11, 12, 5, 6, 7, 8, 9, 40, 41]),               # k=3: m=3
    (set(range(20, 29)), [90, 20, 21, 22, 23, 24, 25, 91, 92, 26]),    # k=9, Ŷ = 90, 20-25, 91, 92: m=6
    ({30, 31}, [30, 31, 5, 6, 7, 8, 9, 40, 41, 42]),                   # another set's image: not counted
]


def test_asma_on_a_hand_built_patchml_case():
    labels = labelset([y for y, _ in CASE])
    ranked = np.array([r for _, r in CASE])
    the_set = PatchMLSet("patchml-s0", np.array([1, 2, 3, 4]), {"patch_counts": [2, 3, 4, 6, 9]})
    v = patchml_variable_topk(labels, np.arange(len(CASE)), ranked, patchml=the_set)
    assert v.label_set == "patchml" and v.max_labels == 9 and v.images == 4 and v.reason is None
    # By hand: k=2: jaccard m/(2k-m) 1/3 and 1, share m/k 1/2 and 1; k=3: 1, 1; k=9: 6/12, 6/9.
    assert v.by_label_count == {
        2: {"images": 2, "mean_jaccard": pytest.approx(2 / 3), "mean_hit_rate": pytest.approx(3 / 4),
            "all_in_topk": pytest.approx(1 / 2)},
        3: {"images": 1, "mean_jaccard": 1.0, "mean_hit_rate": 1.0, "all_in_topk": 1.0},
        9: {"images": 1, "mean_jaccard": pytest.approx(1 / 2), "mean_hit_rate": pytest.approx(2 / 3),
            "all_in_topk": 0.0}}
    assert v.asma == pytest.approx(13 / 18)  # (2/3 + 1 + 1/2) / 3: the nine-label image counts (no 1-5 cap)
    assert v.asma_share_found == pytest.approx(29 / 36)  # (3/4 + 1 + 2/3) / 3
    assert v.real_accuracy_1_to_5 == pytest.approx(3 / 4)  # top-1 among the labels: not image 4's 90
    assert v.over_max["images"] == 0


def expected_asma(labels: list[set[int]], rankings: list[list[int]]) -> tuple[float, float, dict[int, int]]:
    """The paper's ASMA in plain Python: per image m = |Y ∩ top-|Y||, scores m/(2k-m) and m/k;
    per label count the mean; ASMA the mean of those means."""
    groups: dict[int, list[tuple[float, float]]] = {}
    for y, ranking in zip(labels, rankings):
        k = len(y)
        m = len(y & set(ranking[:k]))
        groups.setdefault(k, []).append((m / (2 * k - m), m / k))
    jaccard = sum(sum(j for j, _ in g) / len(g) for g in groups.values()) / len(groups)
    share = sum(sum(s for _, s in g) / len(g) for g in groups.values()) / len(groups)
    return jaccard, share, {k: len(g) for k, g in groups.items()}


@pytest.mark.slow
def test_a_run_over_a_patchml_set_is_scored_and_the_report_names_the_set(tmp_path, capsys):
    from timm.data import ImageNetInfo

    from reviewer.analysis.sections.patchml import patchml_section
    from reviewer.app.report import build_report
    from reviewer.cli import main
    from reviewer.project import Project

    root = tmp_path / "p"
    assert main(["init", str(root), "--images", str(SAMPLES)]) == 0
    (tmp_path / "boxes.csv").write_text(BOXES)
    assert main(["patchml", str(root), "--boxes", str(tmp_path / "boxes.csv"), "--seed", "5"]) == 0
    manifest = json.loads((root / "patchml" / "patchml-s5" / "manifest.json").read_text())
    index = {w: i for i, w in enumerate(ImageNetInfo().label_names())}
    files = [f["file"] for f in manifest["files"]]
    labels = [{index[w] for w in f["labels"]} for f in manifest["files"]]
    # A ranking per image: its labels first (every third image), or after one or two other classes.
    rankings = []
    for i, y in enumerate(labels):
        others = [c for c in (999, 998, 997, 996, 995, 994, 993, 992, 991, 990) if c not in y][:i % 3]
        ranking = others + sorted(y)
        ranking += [c for c in range(1000) if c not in ranking][:10 - len(ranking)]
        rankings.append(ranking)
    logits = np.full((len(files), 1000), -10.0, np.float32)
    for row, ranking in enumerate(rankings):
        logits[row, ranking] = 10.0 - np.arange(len(ranking))  # distinct even in the float16 probabilities
    np.savez(tmp_path / "run.npz", logits=logits, file_names=np.array(files))
    assert main(["import-logits", str(root), str(tmp_path / "run.npz"), "--model", "chosen"]) == 0
    capsys.readouterr()
    assert main(["report", str(root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    jaccard, share, per_count = expected_asma(labels, rankings)
    result = data["runs"][0]["metrics"]["variable_topk_patchml"]["patchml-s5"]
    assert result["asma"] == pytest.approx(jaccard) and result["asma_share_found"] == pytest.approx(share)
    assert {int(k): g["images"] for k, g in result["by_label_count"].items()} == per_count
    assert result["images"] == len(files) == 32 and result["max_labels"] == 9 and result["truncated"] == 0
    (the_set,) = data["patchml_sets"]
    assert the_set["name"] == "patchml-s5" and the_set["seed"] == 5 and the_set["images"] == 32
    assert the_set["boxes"] == str(tmp_path / "boxes.csv") and the_set["patches"] == 25
    # The text report names the set and gives both ASMAs; the report's section names it with its rule.
    assert main(["report", str(root)]) == 0
    assert (f"PatchML set 'patchml-s5', 32 images: ASMA {100 * jaccard:.1f}% (|Y∩Ŷ|/|Y∪Ŷ|), "
            f"ASMA {100 * share:.1f}% (m/k)") in capsys.readouterr().out
    project = Project.open(root)
    section = patchml_section(build_report(project))
    project.close()
    assert "'patchml-s5': seed 5, 32 images (k=2: 12, k=3: 8, k=4: 6, k=6: 4, k=9: 2) from 25 patches" in section.text
    (_, table), = section.tables
    assert list(table["labels (k)"]) == [str(k) for k in sorted(per_count)]
    assert set(table["set"]) == {"patchml-s5"} and list(table["images"]) == [str(per_count[k]) for k in sorted(per_count)]
    assert Path(the_set["boxes"]).name == "boxes.csv"
