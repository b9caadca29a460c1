"""The analysis report for any front end (`reviewer report`, the Analysis window):
every table and figure computed from one read snapshot of the project (the act's
unit of work), and the written report with its plots.

Figures are kept between reports in the project folder (`reviewer.analysis.cache`) and
computed again only when what they read changes; `keep=False` computes everything
afresh and keeps nothing. `progress(what, done, total)` hears each step as it starts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.app.changes import Changes, Done
from reviewer.project import Project

if TYPE_CHECKING:
    from reviewer.analysis.report import AnalysisReport, Progress, ReportOptions


def build_report(project: Project, options: ReportOptions | None = None, *, keep: bool = True,
                 progress: Progress | None = None) -> AnalysisReport:
    """Every table of the report, from one snapshot (nothing is written to the database;
    the figures are kept in the project folder)."""
    from reviewer.analysis import report
    from reviewer.analysis.cache import FigureCache

    cache = FigureCache(project.root) if keep else None
    with project.read() as session:
        return report.build_report(project, options or report.ReportOptions(), session=session, cache=cache,
                                   progress=progress)


def write_report(project: Project, options: ReportOptions | None = None, *, out_dir: str | Path | None = None,
                 fmt: str = "markdown", keep: bool = True, progress: Progress | None = None) -> Done[Path]:
    """The report in Markdown or HTML with its PNG plots, into `out_dir` (default
    PROJECT/report); the value is the report file."""
    from reviewer.analysis.render import write_report as render  # matplotlib: only for a written report

    out = Path(out_dir) if out_dir else project.root / "report"
    return Done(render(build_report(project, options, keep=keep, progress=progress), out, fmt=fmt), Changes())
