"""Table 1: multi-label accuracy per run, before and after the panel's review
(`reviewer.evaluation.metrics`, `reviewer.analysis.run_tables.mla_table`)."""

from __future__ import annotations

import pandas as pd

from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.run_tables import MLA_GROUPS
from reviewer.analysis.sections.cells import pct
from reviewer.analysis.sections.section import Section


def mla_section(report: AnalysisReport) -> Section:
    o = report.options
    mla = report.mla
    # A run on a slice is scored on that slice only: say so beside its MLA.
    table = pd.DataFrame({"run": mla["run_id"].astype(str), "model": mla["model"],
                          "images": mla["images_covered"].astype(str) if len(mla) else []})
    for group in MLA_GROUPS:
        table[f"{group} before → after"] = [f"{pct(b)} → {pct(a)}" for b, a in zip(mla[f"{group}_before"],
                                                                                 mla[f"{group}_after"])]
    # MLA is a mean of per-class accuracies, not one share: its n is the images it scores.
    metrics = {run.id: run.metrics for run in report.summary.runs if run.metrics is not None}
    table["images scored"] = [str(metrics[run_id].mla.all.total if run_id in metrics else 0)
                              for run_id in mla["run_id"]]
    # A bf16 run's MLA beside an fp32 run's is not the same measurement: say what each computed in.
    precisions = {run.id: run.precision for run in report.summary.runs}
    table["computed in"] = [precisions.get(run_id, "fp32") for run_id in mla["run_id"]]
    reasons = sorted({m.mla.reason for m in metrics.values() if m.mla.reason})
    text = ("MLA as the reference evaluation of the multi-label set (the ImageNet-M evaluation notebook of "
            "google-research/imagenet-mistakes): the multi-label set's validation images, problematic ones "
            "skipped; a top-1 prediction counts when it is among the image's correct or unclear labels; the mean "
            "over original classes of the per-class accuracy. "
            + ("Scored with the paper's Appendix C collapsed class mappings (the reference applies none). "
               if o.collapsed_mappings else "No collapsed class mappings (as the reference). ")
            + "A run on a slice (images other than 'all') is scored on that slice's images only."
            + (" No MLA: " + "; ".join(reasons) + "." if reasons else "") if len(mla) else "No complete run yet.")
    return Section("Multi-label accuracy before and after the review (Table 1)", text, short="MLA",
                   tables=[("", table)] if len(mla) else [])
