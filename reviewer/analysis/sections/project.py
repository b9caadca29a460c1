"""The report's first section: the project's images and how far the panel has come."""

from __future__ import annotations

from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.section import Section


def project_section(report: AnalysisReport) -> Section:
    p = report.summary.project
    return Section("Project", f"{p.name}: {p.images} images, {p.multilabel_set} in the multi-label "
                              f"set, {p.evaluable} counted by MLA (its validation images, not problematic), "
                              f"{p.problematic} problematic; app version {report.summary.app_version}. "
                              f"The panel: {report.status.locked} of {report.status.items} items with a final "
                              "decision.", warnings=[report.note] if report.note else [])
