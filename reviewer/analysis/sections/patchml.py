"""PatchML (Anzaku et al. §3.2, §4.2.3): each set the project holds, named with how it was
made, and each run's variable top-k and ASMA on it (`reviewer.evaluation.patchml`,
`run_tables.patchml_table`)."""

from __future__ import annotations

import pandas as pd

from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.run_tables import patchml_table
from reviewer.analysis.sections.cells import pct, share
from reviewer.analysis.sections.section import Section
from reviewer.analysis.sections.topk import ASMA_JACCARD, ASMA_SHARE_FOUND

TITLE = "PatchML: object patches on a black canvas (Anzaku et al. §3.2)"
NO_SET = ("No PatchML set: 'reviewer patchml PROJECT --boxes FILE --seed S' makes one from object boxes of the "
          "project's images (docs/patchml.md).")


def set_line(rule: dict) -> str:
    """'patchml-s0: seed 0, 36 images (k=2: 12, ...) from 24 patches of boxes.csv (SHA-256 1a2b3c4d…); ...'"""
    per_k = ", ".join(f"k={k}: {n}" for k, n in rule.get("images_per_k", {}).items())
    per_labels = ", ".join(f"{k}: {n}" for k, n in rule.get("images_per_label_count", {}).items())
    skipped = (f"; {rule['skipped_boxes']} boxes of {rule['skipped_images']} images the project lacks left out"
               if rule.get("skipped_images") else "")
    return (f"'{rule['name']}': seed {rule['seed']}, {rule['images']} images ({per_k}) from {rule['patches']} patches "
            f"of {rule['boxes']} (SHA-256 {str(rule.get('boxes_sha256', ''))[:12]}…), patch sizes "
            f"{'/'.join(str(p) for p in rule.get('patch_sizes', []))} px on a {rule.get('canvas')} px canvas; images "
            f"per label count: {per_labels}{skipped}.")


def patchml_section(report: AnalysisReport) -> Section:
    sets = [s.as_dict() for s in report.summary.patchml_sets]
    if not sets:
        return Section(TITLE, short="PatchML", empty=NO_SET)
    data = patchml_table(report.summary)
    table = pd.DataFrame({"run": data["run_id"].astype(str), "model": data["model"], "set": data["patchml_set"],
                          "labels (k)": data["labels"].astype(str), "images": data["images"].astype(str),
                          "|Y∩Ŷ|/|Y∪Ŷ| (mean)": [pct(v) for v in data["mean_jaccard"]],
                          "labels found, m/k (mean)": [pct(v) for v in data["mean_hit_rate"]],
                          "all in top-k": [share(round(v * n), n) for v, n in zip(data["all_in_topk"], data["images"])],
                          ASMA_JACCARD: [pct(v) for v in data["asma"]],
                          ASMA_SHARE_FOUND: [pct(v) for v in data["asma_share_found"]],
                          "top-1 among the labels": [pct(v, 2) for v in data["top1_in_labels"]]})
    text = ("PatchML isolates recognising several objects from their context: patches of annotated objects, k of "
            "them per image (2, 3, 4, 6 or 9), each in its own cell of a grid on a black 512 x 512 canvas; an image's "
            "labels are its patches' classes (two patches of one class make one label). A run is scored as on ReaL "
            "(the 'Variable top-k' section): an image with k labels is predicted its k most probable classes, images "
            "are grouped by label count, every count kept (up to 9), and ASMA is the unweighted mean of the groups. "
            "Sets: " + " ".join(set_line(rule) for rule in sets))
    empty = "" if len(table) else ("No complete run has predicted a PatchML image yet: 'reviewer predict PROJECT "
                                   f"--model MODEL --images {sets[0]['name']}'.")
    return Section(TITLE, short="PatchML", text=text, tables=[("", table)] if len(table) else [], empty=empty)
