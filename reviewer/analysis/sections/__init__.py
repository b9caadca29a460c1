"""The report's sections: what `reviewer.analysis.render` writes as Markdown or HTML and
the GUI's Analysis view shows as tabs, each a title, a text, tables of strings and
plots (`Section`). One module per section, in the report's order; each reads the typed
results of `reviewer.analysis.report.build_report` and computes nothing of its own.

Every section says what its figures are and where the definition comes from (the
computing modules: `reviewer.analysis.tables`, `run_tables`, `comparison`,
`calibration`, `class_balance`, `error_types`, `panel_agreement`, `source_agreement`, `zoom_probe`,
`reviewer.evaluation.topk`, `reviewer.evaluation.patchml`). Every share is shown with its count and denominator
("41.2% (7/17)", `cells`); what a reader must not miss (nothing locked yet, a
chi-square on small expected counts) is a section's warning.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from reviewer.analysis.plots import LIGHT, PlotStyle
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.calibration import calibration_section
from reviewer.analysis.sections.categories import categories_section
from reviewer.analysis.sections.chi_square import chi_square_section
from reviewer.analysis.sections.confusions import confusions_section
from reviewer.analysis.sections.distance import distance_section
from reviewer.analysis.sections.error_types import error_types_section
from reviewer.analysis.sections.leaderboard import leaderboard_section
from reviewer.analysis.sections.leakage import leakage_section
from reviewer.analysis.sections.mla import mla_section
from reviewer.analysis.sections.model_comparison import comparison_section
from reviewer.analysis.sections.panel import panel_section
from reviewer.analysis.sections.patchml import patchml_section
from reviewer.analysis.sections.project import project_section
from reviewer.analysis.sections.section import Section
from reviewer.analysis.sections.sources import source_section
from reviewer.analysis.sections.topk import topk_section
from reviewer.analysis.sections.zoom import zoom_section

__all__ = ["Section", "report_sections"]


def report_sections(report: AnalysisReport, out_dir: Path, *, style: PlotStyle = LIGHT,
                    plot_runs: Collection[int] | None = None) -> list[Section]:
    """The report's sections; writes their PNG files into `out_dir`, coloured by `style`
    (the file report's light default, or a window's theme). `plot_runs`: the runs whose
    plots of their own are drawn (None: every run's)."""
    return [
        project_section(report),
        mla_section(report),
        categories_section(report, out_dir, style),
        error_types_section(report.error_types, out_dir, style),
        chi_square_section(report),
        confusions_section(report, out_dir, style),
        distance_section(report, out_dir, style),
        comparison_section(report),
        topk_section(report, out_dir, style),
        patchml_section(report),
        calibration_section(report, out_dir, style, plot_runs=plot_runs),
        leaderboard_section(report, out_dir, style),
        panel_section(report.panel),
        source_section(report, out_dir, style),
        zoom_section(report.zoom),
        leakage_section(report.leakage),
    ]
