"""Variable top-k by label count and ASMA (Anzaku et al.; `reviewer.evaluation.topk`),
both readings of the cited definition named apart."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reviewer.analysis import plots
from reviewer.analysis.plots import PlotStyle
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.cells import pct, plot_names, share
from reviewer.analysis.sections.section import Section

# The variable top-k table's two ASMA columns (reviewer.evaluation.topk: the cited reading and the other).
ASMA_JACCARD = "ASMA (example-based accuracy |Y∩Ŷ|/|Y∪Ŷ|, as the papers cite)"
ASMA_SHARE_FOUND = "ASMA (share of labels found, m/k)"


def topk_section(report: AnalysisReport, out_dir: Path, style: PlotStyle) -> Section:
    topk = report.topk
    names = {"real": "ReaL (Anzaku et al.)", "multilabel": "multi-label set (variant)"}
    table = pd.DataFrame({"run": topk["run_id"].astype(str), "model": topk["model"],
                          "valid labels": topk["label_set"].map(names),
                          "labels (k)": ["more (apart)" if k == 0 else str(k) for k in topk["labels"]],
                          "images": topk["images"].astype(str),
                          "|Y∩Ŷ|/|Y∪Ŷ| (mean)": [pct(v) for v in topk["mean_jaccard"]],
                          "labels found, m/k (mean)": [pct(v) for v in topk["mean_hit_rate"]],
                          "all in top-k": ["–" if pd.isna(v) else share(round(v * n), n)
                                           for v, n in zip(topk["all_in_topk"], topk["images"])],
                          ASMA_JACCARD: [pct(v) for v in topk["asma"]],
                          ASMA_SHARE_FOUND: [pct(v) for v in topk["asma_share_found"]],
                          "top-1 in valid labels, 1-5 labels": [pct(v, 2) for v in topk["real_accuracy_1_to_5"]]})
    return Section("Variable top-k by label count (ASMA)", short="Top-k", text=(
        "Anzaku et al.: an image with k valid labels Y (its ReaL labels) is predicted the set Ŷ of its k most "
        "probable classes; m = |Y∩Ŷ| labels are found. Images are grouped by k and compared over 1-5 labels "
        "(more reported apart); ASMA is the unweighted mean of the subgroups' mean scores. The papers print a "
        "Hamming-style formula over all 1000 classes, which is at least 99% for any model and cannot give "
        "their tables (45-74%), and cite the example-based accuracy of multi-label learning (Zhang & Zhou), "
        f"|Y∩Ŷ|/|Y∪Ŷ| = m/(2k-m): '{ASMA_JACCARD}' follows the citation. '{ASMA_SHARE_FOUND}' is another "
        "reading, given beside it; the two agree on single-label images. Neither could be checked against "
        "their tables (no validation images here, no code of theirs). 'top-1 in valid labels, 1-5 labels' is "
        "on the ReaL rows the ReaL accuracy over the same images, as their ReaL column ('calculated for "
        "samples with one to five labels'); the project's ReaL accuracy counts every image with a ReaL label. "
        "The multi-label-set rows (valid labels: the correct ones; the images MLA counts) are this tool's "
        "variant."), tables=[("", table)] if len(topk) else [],
        images=plot_names(plots.plot_topk(topk, out_dir / "topk.png", style=style)))

