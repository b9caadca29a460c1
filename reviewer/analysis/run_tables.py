"""The report's tables with one row per run, from the typed project summary
(`reviewer.evaluation.summary.ProjectSummary`): MLA before and after the review
(Table 1), the variable top-k by label count (`reviewer.evaluation.topk`) and the same
on each PatchML set (`reviewer.evaluation.patchml`). Runs not complete (no metrics) have no row."""

from __future__ import annotations

import pandas as pd

from reviewer.evaluation.metrics import GroupScores
from reviewer.evaluation.summary import ProjectSummary

MLA_GROUPS = ("all", "organisms", "objects")
MLA_COLUMNS = ["run_id", "model", "image_slice", "images_covered"] + [
    f"{group}_{when}" for when in ("before", "after") for group in MLA_GROUPS]
TOPK_COLUMNS = ["run_id", "model", "label_set", "labels", "images", "mean_jaccard", "mean_hit_rate", "all_in_topk",
                "asma", "asma_share_found", "real_accuracy_1_to_5"]
PATCHML_COLUMNS = ["run_id", "model", "patchml_set", "labels", "images", "mean_jaccard", "mean_hit_rate",
                   "all_in_topk", "asma", "asma_share_found", "top1_in_labels"]


def _by_group(scores: GroupScores) -> dict[str, float]:
    return {"all": scores.all.value, "organisms": scores.organisms.value, "objects": scores.objects.value}


def mla_table(summary: ProjectSummary) -> pd.DataFrame:
    """Per complete run, MLA over all, organism and object classes, before and after the review."""
    rows = []
    for run in summary.runs:
        if run.metrics is None:
            continue
        row = {"run_id": run.id, "model": run.model, "image_slice": run.image_slice,
               "images_covered": run.images_covered}
        for when, scores in (("before", run.metrics.mla), ("after", run.metrics.mla_after_review)):
            row.update({f"{group}_{when}": value for group, value in _by_group(scores).items()})
        rows.append(row)
    return pd.DataFrame(rows, columns=MLA_COLUMNS)


def topk_table(summary: ProjectSummary) -> pd.DataFrame:
    """One row per run, label set ("real": Anzaku et al.'s; "multilabel": the variant) and
    label count; `labels` 0 is the row of the images with more than `max_labels` labels.
    Per row the subgroup's mean of both per-image scores (`mean_jaccard` |Y∩Ŷ|/|Y∪Ŷ|,
    `mean_hit_rate` m/k); per run and label set both ASMAs and the top-1 accuracy on the
    images with 1..max_labels labels, repeated on each row (`reviewer.evaluation.topk`)."""
    rows = []
    for run in summary.runs:
        if run.metrics is None:
            continue
        for result in (run.metrics.variable_topk, run.metrics.variable_topk_multilabel):
            if result.reason:
                continue
            groups = sorted(result.by_label_count.items())
            for k, group in groups + ([(0, result.over_max)] if result.over_max["images"] else []):
                rows.append({"run_id": run.id, "model": run.model, "label_set": result.label_set,
                             "labels": int(k), **group, "asma": result.asma,
                             "asma_share_found": result.asma_share_found,
                             "real_accuracy_1_to_5": result.real_accuracy_1_to_5})
    return pd.DataFrame(rows, columns=TOPK_COLUMNS)


def patchml_table(summary: ProjectSummary) -> pd.DataFrame:
    """One row per complete run, PatchML set it predicted images of, and label count: the
    subgroup's mean of both per-image scores and how many have all their labels in their
    top-k; per run and set both ASMAs and the share whose top-1 is one of their labels."""
    rows = []
    for run in summary.runs:
        if run.metrics is None:
            continue
        for name, result in run.metrics.variable_topk_patchml.items():
            for k, group in sorted(result.by_label_count.items()):
                rows.append({"run_id": run.id, "model": run.model, "patchml_set": name, "labels": int(k), **group,
                             "asma": result.asma, "asma_share_found": result.asma_share_found,
                             "top1_in_labels": result.real_accuracy_1_to_5})
    return pd.DataFrame(rows, columns=PATCHML_COLUMNS)
