"""Validation images in the training set: the paper's §4.5 and Table 4, from the
duplicates `reviewer index` found (`reviewer.analysis.leakage`)."""

from __future__ import annotations

import pandas as pd

from reviewer.analysis.leakage import Leakage
from reviewer.analysis.sections.cells import pct, share
from reviewer.analysis.sections.section import Section
from reviewer.evaluation.metrics import Score

TITLE = "Validation images in the training set (§4.5, Table 4)"
NO_INDEX = ("No index beside the project: 'reviewer index PROJECT --images TRAIN_DIR' embeds a training folder and "
            "finds the exact and near duplicates of the project's images in it.")


def score_cell(score: Score, *, per_class: bool = False) -> str:
    """Top-1 as a share with its count; MLA (a mean of per-class accuracies) with the images it scores."""
    if not score.total:
        return "–"
    if per_class:
        return f"{pct(score.value)} ({score.total} image{'s' if score.total != 1 else ''})"
    return share(score.correct, score.total)


def exact_table(leak: Leakage) -> pd.DataFrame:
    rows = [
        ("images in the index", str(leak.images)),
        ("with an exact duplicate in training", share(leak.leaked, leak.images)),
        ("... with more than one", share(leak.more_than_once, leak.leaked)),
        ("training images that are exact duplicates", str(leak.copies)),
        ("(image, training copy) pairs labelled otherwise in training",
         share(leak.copies_other_label, leak.pairs - leak.pairs_unlabelled)),
        ("leaked images whose every copy is labelled otherwise", share(leak.images_all_other_label, leak.leaked)),
        ("leaked images in the multi-label set", share(leak.leaked_multilabel, leak.leaked)),
        ("... their copies' training labels the multi-labels accept",
         share(leak.multilabel_pairs_accepted, leak.multilabel_pairs)),
    ]
    if leak.pairs_unlabelled:
        rows.append(("pairs whose training image has no ImageNet label", str(leak.pairs_unlabelled)))
    return pd.DataFrame(rows, columns=["exact duplicates", "count"])


def runs_table(leak: Leakage) -> pd.DataFrame:
    return pd.DataFrame({
        "run": [str(r.run_id) for r in leak.runs], "model": [r.model for r in leak.runs],
        "top-1": [score_cell(r.top1) for r in leak.runs],
        "top-1 on leaked": [score_cell(r.top1_leaked) for r in leak.runs],
        "MLA": [score_cell(r.mla, per_class=True) if not r.mla_reason else "–" for r in leak.runs],
        "MLA on leaked": [score_cell(r.mla_leaked, per_class=True) if not r.mla_reason else "–" for r in leak.runs],
    })


def near_table(leak: Leakage) -> pd.DataFrame:
    words = {"perceptual": "perceptual hash (resizes, re-encodes)", "embedding": "embedding similarity (crops, "
             "the same shoot)"}
    rows = [(words[n.kind], str(n.images), str(n.copies), share(n.different_label, n.copies)) for n in leak.near]
    return pd.DataFrame(rows, columns=["near duplicates by", "images (no exact copy)", "training images",
                                       "training images labelled otherwise"])


def leakage_section(leak: Leakage) -> Section:
    if leak.index is None:
        return Section(TITLE, short="Leakage", empty=NO_INDEX)
    text = (f"From the index of {leak.index} beside the project ('reviewer index'). An exact duplicate has the "
            "same decoded pixels as the validation image (the paper's pixelwise L2 distance of 0: a hash of the "
            "decoded RGB array, each match confirmed pixel by pixel), whatever the file's encoding. The paper found "
            "797 validation images (1.594 %) in ImageNet's training set, 34 more than once (831 training images), "
            "every one labelled otherwise there; of the 331 training copies of leaked images in the 20k multi-label "
            "set, 219 (66.2 %) carry a label the multi-labels accept (correct or unclear, the MLA rule). Table 4: "
            "top-1 against the original labels and MLA as the reference evaluation (the mean over original classes "
            "of the per-class accuracy, problematic images skipped), over every image of the run and over its "
            "leaked images. Labels as imported, before the panel's review. Near duplicates are counted apart: "
            "an image with an exact copy is not counted again as near, and embedding thresholds miss many near "
            "duplicates (Appendix G), so these are a floor.")
    if leak.inside_exact_pairs:
        text += (f" Inside the project, {leak.inside_exact_pairs} pair{'s' if leak.inside_exact_pairs != 1 else ''} "
                 "of images have identical pixels.")
    tables = [("Exact duplicates in training", exact_table(leak))]
    if leak.runs:
        tables.append(("Each run on all its images and on the leaked ones (Table 4)", runs_table(leak)))
    tables.append(("Near duplicates in training (apart)", near_table(leak)))
    return Section(TITLE, text, short="Leakage", tables=tables)
