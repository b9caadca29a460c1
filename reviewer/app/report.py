"""The analysis report for any front end (`reviewer report`, the Analysis window):
every table and figure computed from one read snapshot of the project (the act's
unit of work), and the written report with its plots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.app.changes import Changes, Done
from reviewer.project import Project

if TYPE_CHECKING:
    from reviewer.analysis.report import AnalysisReport, ReportOptions


def build_report(project: Project, options: ReportOptions | None = None) -> AnalysisReport:
    """Every table of the report, from one snapshot (nothing is written)."""
    from reviewer.analysis import report

    with project.read() as session:
        return report.build_report(project, options or report.ReportOptions(), session=session)


def write_report(project: Project, options: ReportOptions | None = None, *, out_dir: str | Path | None = None,
                 fmt: str = "markdown") -> Done[Path]:
    """The report in Markdown or HTML with its PNG plots, into `out_dir` (default
    PROJECT/report); the value is the report file."""
    from reviewer.analysis.render import write_report as render  # matplotlib: only for a written report

    out = Path(out_dir) if out_dir else project.root / "report"
    return Done(render(build_report(project, options), out, fmt=fmt), Changes())
