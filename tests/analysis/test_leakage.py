"""The report's leakage section (the paper's §4.5 and Table 4) on a hand-built case whose
answers are counted by hand below: exact duplicates in training (one shared by two
identical validation images, one image copied twice, one copy with no ImageNet label),
their training labels against the multi-labels, each run's top-1 and MLA on the leaked
images beside all, and near duplicates counted apart."""

from __future__ import annotations

import pytest
from index_data import duplicate, write_index
from project_data import new_project
from review_data import add_images, add_run, val_name

from reviewer.analysis.render import to_markdown
from reviewer.analysis.sections import report_sections
from reviewer.analysis.sections.leakage import NO_INDEX
from reviewer.app.report import build_report
from reviewer.classes.vocabulary import load_classes

# Position: (original label, {multi-labels}); every original class differs, so MLA's per-class mean is a plain mean.
IMAGES = {1: (1, {"correct": [1, 2]}), 2: (3, {"correct": [3]}), 3: (6, {"correct": [6], "unclear": [7]}),
          4: (8, None), 5: (13, None), 6: (14, None), 7: (20, None), 8: (21, None)}
TOP1 = {1: 2, 2: 3, 3: 7, 4: 8, 5: 0, 6: 14, 7: 21, 8: 21, 9: 10}  # image 9: label 10, outside the multi-label set


@pytest.fixture
def project(tmp_path):
    project = new_project(tmp_path / "p")
    labels = {pos - 1: kinds for pos, (_, kinds) in IMAGES.items() if kinds}
    ids = add_images(project, [original for original, _ in IMAGES.values()], labels=labels)
    ids += add_images(project, [10], multilabel=False)
    add_run(project, "model-A", {ids[n - 1]: cls for n, cls in TOP1.items()})
    wnid = load_classes().wnids
    root = tmp_path / "train"

    def copy(n, kind, path, cls, **measure):
        return duplicate(val_name(n), kind, train_root=root, path=path, wnid=wnid[cls] if cls is not None else "",
                         **measure)

    dups = [
        copy(1, "exact", "a/1.JPEG", 2), copy(1, "perceptual", "a/1b.JPEG", 5, distance=2),  # exact wins
        copy(2, "exact", "a/2.JPEG", 4), copy(2, "exact", "a/2b.png", 5),  # copied twice
        copy(3, "exact", "a/3.JPEG", 7),
        copy(5, "perceptual", "a/5.JPEG", 12, distance=3),  # near only, another label
        copy(6, "embedding", "a/6.JPEG", 14, similarity=0.93),  # near only, the same label
        copy(7, "exact", "a/twin.JPEG", 20), copy(8, "exact", "a/twin.JPEG", 20),  # one training image, two copies
        duplicate(val_name(7), "exact", train_root=root, path=f"/v/{val_name(8)}", wnid=wnid[21], collection="project"),
        duplicate(val_name(8), "exact", train_root=root, path=f"/v/{val_name(7)}", wnid=wnid[20], collection="project"),
        copy(9, "exact", "a/9.JPEG", 11), copy(9, "exact", "x/9b.JPEG", None),  # the second has no label
    ]
    write_index(project.root, train_root=root, train=[("a/1.JPEG", wnid[2])], duplicates=dups,
                project=[(f"/v/{val_name(n)}", "") for n in range(1, 10)])
    return project


def test_the_leakage_counts_by_hand(project):
    leak = build_report(project).leakage
    assert leak.index == "hand_built" and leak.images == 9
    # Leaked: 1, 2, 3, 7, 8, 9; 2 and 9 twice; training copies 1, 2, 2b, 3, twin, 9, 9b.
    assert (leak.leaked, leak.more_than_once, leak.copies) == (6, 2, 7)
    # Pairs: 1-2, 2-4, 2-5, 3-7, 7-20, 8-20, 9-11, 9-(none): 8, one unlabelled; labelled otherwise: all but 7-20.
    assert (leak.pairs, leak.pairs_unlabelled, leak.copies_other_label) == (8, 1, 6)
    # Every copy labelled otherwise: 1, 2, 3, 8 (7's is its own label; 9's second copy has none).
    assert leak.images_all_other_label == 4
    # In the multi-label set: 1, 2, 3, 7, 8 with 6 labelled copies; accepted: 2 (correct) for 1, 7 (unclear) for 3,
    # 20 (correct, its original) for 7; not 4, 5 for 2, nor 20 for 8.
    assert (leak.leaked_multilabel, leak.multilabel_pairs, leak.multilabel_pairs_accepted) == (5, 6, 3)
    [run] = leak.runs
    # Top-1 right on 2, 4, 6, 8, 9 of 9; of the leaked 1, 2, 3, 7, 8, 9: on 2, 8, 9.
    assert (run.top1.correct, run.top1.total, run.top1_leaked.correct, run.top1_leaked.total) == (5, 9, 3, 6)
    # MLA (images 1-8): accepted 1 (2 correct), 2, 3 (7 unclear), 4, 6, 8; not 5, 7: 6 of 8; leaked 1, 2, 3, 8 of 5.
    assert run.mla.value == pytest.approx(6 / 8) and run.mla.total == 8
    assert run.mla_leaked.value == pytest.approx(4 / 5) and run.mla_leaked.total == 5
    near = {n.kind: (n.images, n.copies, n.different_label) for n in leak.near}
    assert near == {"perceptual": (1, 1, 1), "embedding": (1, 1, 0)}  # image 1's perceptual copy is not near
    assert leak.inside_exact_pairs == 1


def test_the_section_writes_table_4(project, tmp_path):
    section = next(s for s in report_sections(build_report(project), tmp_path) if s.short == "Leakage")
    exact, runs, near = (table for _, table in section.tables)
    cells = dict(zip(exact["exact duplicates"], exact["count"]))
    assert cells["with an exact duplicate in training"] == "66.7% (6/9)"
    assert cells["(image, training copy) pairs labelled otherwise in training"] == "85.7% (6/7)"
    assert cells["... their copies' training labels the multi-labels accept"] == "50.0% (3/6)"
    assert cells["pairs whose training image has no ImageNet label"] == "1"
    assert runs.iloc[0].to_dict() == {"run": "1", "model": "model-A", "top-1": "55.6% (5/9)",
                                      "top-1 on leaked": "50.0% (3/6)", "MLA": "75.0% (8 images)",
                                      "MLA on leaked": "80.0% (5 images)"}
    assert list(near["images (no exact copy)"]) == ["1", "1"]
    assert "1 pair of images have identical pixels" in section.text
    assert "Validation images in the training set" in to_markdown([section], "t")


def test_without_an_index_the_section_says_how_to_build_one(tmp_path):
    project = new_project(tmp_path / "p")
    add_run(project, "m", dict(zip(add_images(project, [1, 2]), [3, 4])))
    section = next(s for s in report_sections(build_report(project), tmp_path) if s.short == "Leakage")
    assert section.empty == NO_INDEX and not section.tables


def test_report_json_carries_it(project):
    from reviewer.analysis.report_json import report_json

    data = report_json(build_report(project))["leakage"]
    assert (data["leaked"], data["multilabel_pairs_accepted"]) == (6, 3)
    assert data["runs"][0]["top1_leaked"] == {"value": 0.5, "correct": 3, "total": 6}
    assert data["leaked_files"] == [val_name(n) for n in (1, 2, 3, 7, 8, 9)]
