"""Model against model (§3.1, §4.3): the overlap of their mistakes and what the panel
decided of each model's novel predictions, with chi-square tests (`reviewer.analysis.comparison`)."""

from __future__ import annotations

import pandas as pd

from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.cells import share
from reviewer.analysis.sections.chi_square import chi_table, small_sample_warning
from reviewer.analysis.sections.section import Section


def comparison_section(report: AnalysisReport) -> Section:
    """Model against model (§3.1, §4.3): the overlap of mistakes, novel predictions judged correct."""
    o = report.options
    section = Section("Model against model", short="Models", text=(
        "Mistakes of each pair of models over the images both predicted (only A, only B, both with the same or a "
        "different prediction), and what the panel decided of each model's novel predictions (not a wrong label "
        "before): judged correct, judged unclear, and the paper's 'deemed correct (or the ground truth deemed "
        "incorrect)': correct, unclear or the image flagged problematic, each over those decided, with Pearson's "
        "chi-square test of the difference in the last" + (" (Yates-corrected)." if o.yates else
                                                           " (no continuity correction, as the paper's tests).")))
    if len(report.overlap):
        overlap = report.overlap
        section.tables.append(("Overlap of mistakes", pd.DataFrame({
            "model A": overlap["model_a"], "model B": overlap["model_b"],
            "images": overlap["images"].astype(str),
            "mistakes A / B": [f"{a} / {b}" for a, b in zip(overlap["mistakes_a"], overlap["mistakes_b"])],
            "only A": overlap["only_a"].astype(str), "only B": overlap["only_b"].astype(str),
            "both, same prediction": overlap["both_same"].astype(str),
            "both, different": overlap["both_different"].astype(str)})))
    if len(report.novel):
        n = report.novel
        # Each column counts what it says: "judged correct" is the correct verdicts alone.
        section.tables.append(("Novel predictions as the panel decided them", pd.DataFrame({
            "model": n["model"], "novel": n["novel"].astype(str), "decided": n["decided"].astype(str),
            "judged correct": [share(c, d) for c, d in zip(n["correct"], n["decided"])],
            "judged unclear": [share(u, d) for u, d in zip(n["unclear"], n["decided"])],
            "problematic": n["problematic"].astype(str),
            "correct, unclear or problematic": [share(j, d) for j, d in zip(n["judged_correct"], n["decided"])]})))
    if len(report.novel_tests):
        section.tables.append(("Chi-square tests of the shares", chi_table(report.novel_tests)))
        section.warnings += small_sample_warning(report.novel_tests)
    if not section.tables:
        section.text += " No two models have a complete run over the whole set yet."
    return section

